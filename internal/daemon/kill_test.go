package daemon

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// connect starts (or finds) this test's out-of-process daemon.
func (e *env) connect(t *testing.T, extra ...string) *Client {
	t.Helper()
	ctx, cancel := untilDeadline(t)
	defer cancel()
	c, err := Connect(ctx, e.connectOptions(extra...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Connect starts a daemon when none is running, reuses it after, and
// replaces one of another version.
func TestConnectStartsReusesAndReplaces(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { e.stopDaemon(t) })

	oldOpts := e.connectOptions("ANVIL_TEST_DAEMON_VERSION=an-older-build")
	oldOpts.Version = "an-older-build"
	ctx, cancel := untilDeadline(t)
	defer cancel()
	old, err := Connect(ctx, oldOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if old.Version != "an-older-build" {
		t.Fatalf("the daemon started is of version %q", old.Version)
	}
	// A client of this build finds that one, stops it, starts its own.
	c := e.connect(t)
	if c.Version != Version() || c.PID == old.PID {
		t.Fatalf("want a new daemon of version %s, got pid %d (old %d) of %s", Version(), c.PID, old.PID, c.Version)
	}
	waitGone(t, old.PID)
	again := e.connect(t)
	if again.PID != c.PID {
		t.Fatalf("a second client started another daemon (%d, was %d)", again.PID, c.PID)
	}
	info, err := os.Stat(filepath.Dir(e.socket))
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("the socket's directory is not private: %v %v", info.Mode(), err)
	}
}

// Clients that start the daemon at the same moment end up with one.
func TestConnectRace(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { e.stopDaemon(t) })
	pids := make([]int, 4)
	var wg sync.WaitGroup
	for i := range pids {
		wg.Go(func() {
			ctx, cancel := untilDeadline(t)
			defer cancel()
			c, err := Connect(ctx, e.connectOptions())
			if err != nil {
				t.Error(err)
				return
			}
			pids[i] = c.PID
			c.Close()
		})
	}
	wg.Wait()
	for _, p := range pids[1:] {
		if p != pids[0] {
			t.Fatalf("clients connected to different daemons: %v", pids)
		}
	}
}

// Killed with SIGKILL in the middle of a check, the daemon takes its
// servers with it; the next client starts another and gets the verdict
// the check gets alone.
func TestDaemonKilledMidCheck(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { e.stopDaemon(t) })
	dir := writeProject(t, mixedProject)

	c := e.connect(t)
	ws, _ := c.Workspace(dir)
	done := checkUnderWay(t, ws, conflicting[7])
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var serverPIDs []int
	for _, w := range st.Workspaces {
		for _, s := range w.Servers {
			serverPIDs = append(serverPIDs, s.PID)
		}
	}
	if len(serverPIDs) == 0 {
		t.Fatalf("no server running mid-check: %+v", st)
	}
	if err := syscall.Kill(c.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "went away") {
		t.Fatalf("a check cut off by the daemon's death returned %v", err)
	}
	waitGone(t, c.PID)
	for _, p := range serverPIDs {
		waitGone(t, p)
	}

	ws2, _ := e.connect(t).Workspace(dir)
	out, err := ws2.Check(context.Background(), specs(conflicting[7]), service.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// types.ts's id becomes a number (db.ts breaks), lib.go uses an
	// undeclared name.
	got := verdict(out.Result)
	if out.Result.Verdict != shadow.Rejected || !strings.Contains(got, "src/db.ts:4:2322") || !strings.Contains(got, "lib/lib.go:3:UndeclaredName") {
		t.Fatalf("after the restart: %s", got)
	}
}

// Killed with SIGKILL in the middle of a commit, the daemon leaves the
// journal to the next client: its first request rolls the commit back (or
// forward past the mark), and no file is ever half old, half new.
func TestDaemonKilledMidCommit(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { e.stopDaemon(t) })
	const n = 200
	files := map[string]string{}
	changed := map[string]string{}
	for i := range n {
		p := fmt.Sprintf("data/f%03d.txt", i)
		files[p] = strings.Repeat(fmt.Sprintf("old %d\n", i), 40000)
		changed[p] = strings.Repeat(fmt.Sprintf("new %d\n", i), 40000)
	}
	dir := writeProject(t, files)

	c := e.connect(t)
	ws, _ := c.Workspace(dir)
	done := make(chan error, 1)
	go func() {
		_, err := ws.Commit(context.Background(), specs(changed), "big", service.GateOptions{})
		done <- err
	}()
	// The commit is under way once its manifest is in the journal.
	stateDir := e.vars["ANVIL_STATE_DIR"]
	ctx, cancel := untilDeadline(t)
	defer cancel()
	for !hasManifest(stateDir) {
		if ctx.Err() != nil {
			t.Fatal("no commit began before the test's deadline")
		}
		select {
		case err := <-done:
			// Ended before its manifest was seen: the daemon failed it
			// (or died), and no kill can come mid-commit.
			t.Fatalf("the commit ended before it was seen under way: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	if err := syscall.Kill(c.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-done
	waitGone(t, c.PID)
	if err != nil && !IsOutcomeUnknown(err) {
		t.Errorf("the commit the daemon was killed in: %v, want it said to be of unknown outcome", err)
	}

	ws2, _ := e.connect(t).Workspace(dir)
	out, cerr := ws2.Check(context.Background(), specs(map[string]string{"notes.txt": "x\n"}), service.GateOptions{})
	if cerr != nil {
		t.Fatal(cerr)
	}
	t.Logf("commit: %v; next client: recovered %v", err, out.Recovered)
	after := readAllMap(filterData(t, dir))
	switch after {
	case readAllMap(files):
		if err == nil {
			t.Fatal("the commit was reported done, and the files are all old")
		}
	case readAllMap(changed):
		// Killed past the commit mark: the commit stands, and undoes.
		u, err := ws2.Undo(context.Background(), service.UndoOptions{})
		if err != nil || len(u.Restored) != n {
			t.Fatalf("undo after recovery: %+v %v", u, err)
		}
		if readAllMap(filterData(t, dir)) != readAllMap(files) {
			t.Fatal("undo did not restore every file")
		}
	default:
		t.Fatal("after the kill and recovery the files are a mix of old and new")
	}
	for p := range testfs.Snapshot(t, dir) {
		if !strings.HasPrefix(p, "data/f") {
			t.Errorf("left behind: %s", p)
		}
	}
}

func hasManifest(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "manifest.json" {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

func filterData(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for p, c := range testfs.Snapshot(t, dir) {
		if strings.HasPrefix(p, "data/f") {
			out[p] = c
		}
	}
	return out
}

// A daemon that never listens is named with what it wrote: the error is
// where the user (and a failed test's log) reads why, and the log file
// may be gone or hold earlier starts' lines.
func TestConnectSaysWhatADaemonThatNeverListensWrote(t *testing.T) {
	dir, err := os.MkdirTemp("", "anvil-d-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "daemon.sock")
	if err := os.WriteFile(filepath.Join(dir, "daemon.log"), []byte("an earlier start's line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Connect(context.Background(), ConnectOptions{
		Socket:       sock,
		Command:      []string{"sh", "-c", "echo starting; echo 'cannot listen: the disk is full' >&2; sleep 1"},
		StartTimeout: 300 * time.Millisecond,
	})
	if err == nil {
		t.Fatal("connected to a daemon that never listens")
	}
	if msg := err.Error(); !strings.Contains(msg, "it wrote: starting | cannot listen: the disk is full") || strings.Contains(msg, "earlier start") {
		t.Errorf("error %q: want this start's log line, and only it", msg)
	}
}
