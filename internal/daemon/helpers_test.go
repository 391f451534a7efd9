package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/lsp/lspfake"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The test binary is also a fake language server (lspfake) and, with
// ANVIL_TEST_DAEMON set to a socket path, a daemon in a process of its
// own, for the tests that kill one.
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	lspfake.Main(os.Getenv)
	trustHelpers()
	if sock := os.Getenv("ANVIL_TEST_DAEMON"); sock != "" {
		// Every daemon a test starts is listed, for its cleanup: one that
		// lost a start race may come up after the winner has stopped.
		if f, err := os.OpenFile(sock+".pids", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		idle, _ := time.ParseDuration(os.Getenv("ANVIL_TEST_DAEMON_IDLE"))
		// Started by a client, like a real one: one no client reaches
		// (a start race's loser that came up late) does not linger.
		err := Run(ctx, Options{Socket: sock, Log: os.Stderr, Getenv: os.Getenv, Version: os.Getenv("ANVIL_TEST_DAEMON_VERSION"), Idle: idle, Unused: 5 * time.Second})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// env is the environment a test's daemon and workspaces see: state and
// config of the test's own, the language servers installed for the user.
type env struct {
	home   string
	vars   map[string]string
	socket string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	// Socket paths are limited to 108 bytes; t.TempDir's can be long.
	sockDir, err := os.MkdirTemp("", "anvil-d-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A daemon's log goes with its directory: a failed test shows
		// it first (a restarted daemon once did not listen within its
		// bound, and why was lost).
		if t.Failed() {
			if data, err := os.ReadFile(filepath.Join(sockDir, "d", "daemon.log")); err == nil {
				t.Logf("the daemon's log:\n%s", data)
			}
		}
		os.RemoveAll(sockDir)
	})
	home := t.TempDir()
	e := &env{home: home, socket: filepath.Join(sockDir, "d", "daemon.sock"), vars: map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"ANVIL_STATE_DIR": filepath.Join(home, "state"),
		"ANVIL_TOOLS_DIR": servers.DefaultToolsDir(os.Getenv),
		"PATH":            os.Getenv("PATH"),
	}}
	return e
}

func (e *env) getenv(k string) string { return e.vars[k] }

// environ is e as a process environment, plus extra.
func (e *env) environ(extra ...string) []string {
	var out []string
	for k, v := range e.vars {
		out = append(out, k+"="+v)
	}
	return append(out, extra...)
}

// serve runs a daemon in this process until the test ends.
func (e *env) serve(t *testing.T, opts Options) *Daemon {
	t.Helper()
	opts.Socket, opts.Getenv = e.socket, e.getenv
	if testing.Verbose() && opts.Log == nil {
		opts.Log = os.Stderr
	}
	d, err := Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve() }()
	t.Cleanup(func() {
		d.Stop()
		ctx, cancel := untilDeadline(t)
		defer cancel()
		select {
		case <-served:
		case <-ctx.Done():
			t.Error("the daemon did not stop")
		}
	})
	return d
}

func (e *env) dial(t *testing.T) *Client {
	t.Helper()
	ctx, cancel := untilDeadline(t)
	defer cancel()
	c, err := Dial(ctx, e.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// connectOptions start this test binary as the daemon.
func (e *env) connectOptions(extra ...string) ConnectOptions {
	return ConnectOptions{
		Socket:  e.socket,
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     e.environ(append([]string{"ANVIL_TEST_DAEMON=" + e.socket}, extra...)...),
	}
}

// stopDaemon stops the out-of-process daemon at e.socket, if any, and
// waits until its process is gone.
func (e *env) stopDaemon(t *testing.T) {
	ctx, cancel := untilDeadline(t)
	defer cancel()
	c, err := Find(ctx, e.socket)
	if err != nil {
		e.stopStragglers(t)
		return
	}
	pid := c.PID
	if err := c.Stop(ctx); err != nil {
		t.Errorf("stopping the daemon: %v", err)
	}
	waitGone(t, pid)
	e.stopStragglers(t)
}

// stopStragglers ends every daemon process this test started that still
// runs: one started by a client that lost a start race can come up after
// the winner stopped, and would wait out its idle time.
func (e *env) stopStragglers(t *testing.T) {
	data, _ := os.ReadFile(e.socket + ".pids")
	for _, line := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(line)
		if err != nil || syscall.Kill(pid, 0) != nil {
			continue
		}
		syscall.Kill(pid, syscall.SIGTERM)
		waitGone(t, pid)
	}
}

// waitGone waits for the process pid to be gone (or a zombie).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still running", pid)
}

// specs turns path → content ("" with delete) into a change set.
func specs(files map[string]string) []changeset.Spec {
	var out []changeset.Spec
	for p, c := range files {
		if c == "<delete>" {
			out = append(out, changeset.Spec{Path: p, Delete: true})
			continue
		}
		out = append(out, changeset.Spec{Path: p, Content: &c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// verdict is what must be the same whether a check runs alone or beside
// others: the verdict, the new errors, the files checked.
func verdict(r *shadow.Result) string {
	var errs []string
	for _, d := range r.New {
		errs = append(errs, fmt.Sprintf("%s:%d:%s", d.Path, d.Line, d.Code))
	}
	sort.Strings(errs)
	checked := append([]string(nil), r.CheckedFiles...)
	sort.Strings(checked)
	b, _ := json.Marshal(map[string]any{"verdict": r.Verdict, "new": errs, "checked": checked, "unverified": r.Unverified})
	return string(b)
}

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testfs.Write(t, dir, files)
	return dir
}

// readAll is the tree at dir in one string, for comparing.
func readAll(t *testing.T, dir string) string {
	t.Helper()
	return readAllMap(testfs.Snapshot(t, dir))
}

func readAllMap(files map[string]string) string {
	var keys []string
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\x00%s\x00", k, files[k])
	}
	return b.String()
}

// checkUnderWay starts a check of files on ws and returns once the daemon
// says the servers are checking it; the check's error arrives on the
// channel returned.
func checkUnderWay(t *testing.T, ws *Remote, files map[string]string) <-chan error {
	t.Helper()
	checking := make(chan struct{})
	var once sync.Once
	progress := func(p service.Progress) {
		if strings.Contains(p.Message, "checking") {
			once.Do(func() { close(checking) })
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := ws.Check(context.Background(), specs(files), service.GateOptions{Progress: progress})
		done <- err
	}()
	wait, cancel := untilDeadline(t)
	defer cancel()
	select {
	case <-checking:
	case err := <-done:
		t.Fatalf("the check ended before it was under way: %v", err)
	case <-wait.Done():
		t.Fatal("no progress before the test's deadline")
	}
	return done
}

// untilDeadline is a context for the waits of a test: it ends shortly
// before the test binary's deadline (go test -timeout), so a wait that
// never ends fails with its message, and sets no wall-clock bound of its
// own, which a loaded machine would overrun. Usable in cleanups.
func untilDeadline(t *testing.T) (context.Context, context.CancelFunc) {
	d, ok := t.Deadline()
	if !ok {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), d.Add(-deadlineMargin))
}

// deadlineMargin is the time left, after a wait gives up, to report it.
const deadlineMargin = 10 * time.Second
