package servers

import (
	"context"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp/lspfake"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The test binary is also the fake language server (see lspfake).
func TestMain(m *testing.M) {
	lspfake.Main(os.Getenv)
	os.Exit(m.Run())
}

// fakeManager returns a manager whose only Rust server is the fake, run
// with behaviour, in a workspace holding lib.rs and use.rs.
func fakeManager(t *testing.T, mode Mode, behaviour string) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"lib.rs": "fn lib() {}\n", "use.rs": "fn user() {}\n"})
	reg := NewRegistry(RegistryOptions{LookPath: noPath, Overrides: []Spec{{
		Name: "fake", Command: os.Args[0], Languages: []string{"rust"}, Mode: mode,
		Env: []string{lspfake.Env(behaviour)},
	}}})
	mgr := NewManager(dir, reg, ManagerOptions{StartTimeout: 10 * time.Second})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		mgr.Shutdown(ctx)
	})
	return mgr, dir
}

func change(dir, rel, oldText, newText string) FileChange {
	return FileChange{Path: filepath.Join(dir, rel), Language: "rust", Old: []byte(oldText), OldExists: oldText != "", New: []byte(newText)}
}

func errorsIn(res CheckResult, path string) int {
	n := 0
	for _, d := range res.After[path] {
		if d.IsError() {
			n++
		}
	}
	return n
}

// A well-behaved server of each kind reports what the change does, for a
// changed file, a created one, and (push) a dependant re-sent unchanged.
func TestCheckHealthyFake(t *testing.T) {
	for _, tc := range []struct {
		mode      Mode
		behaviour string
	}{
		{ModePush, "push"},
		{ModePush, "push,noversion"},
		{ModePull, "pull"},
		{ModePushProgress, "progress"},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			mgr, dir := fakeManager(t, tc.mode, tc.behaviour)
			srv, err := mgr.ForLanguage("rust")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := srv.Check(ctx, CheckRequest{
				Files: []FileChange{
					change(dir, "lib.rs", "fn lib() {}\n", "fn lib() { ERROR }\n"),
					change(dir, "new.rs", "", "fn broken( { ERROR\n"),
				},
				Dependants:       []string{filepath.Join(dir, "use.rs")},
				DirectDependants: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"lib.rs", "new.rs"} {
				if n := errorsIn(res, filepath.Join(dir, f)); n != 1 {
					t.Errorf("%s: %d errors after the change, want 1 (after: %v)", f, n, res.After)
				}
			}
			if tc.mode != ModePushProgress && !contains(res.Checked, filepath.Join(dir, "use.rs")) {
				t.Errorf("the dependant was not checked: %v", res.Checked)
			}
		})
	}
}

// A server that misbehaves never yields a result: the check fails within
// its deadline plus a bound, and the next check starts on a server with
// nothing of the failed one open.
func TestCheckFaultsNeverClean(t *testing.T) {
	const deadline = 1500 * time.Millisecond
	// bound covers killing and reaping the failed server (proc.WaitDelay
	// at worst) on top of the deadline.
	const bound = deadline + 3*time.Second
	for _, tc := range []struct {
		mode      Mode
		behaviour string
	}{
		{ModePush, "push,never-publish"},
		{ModePush, "push,late=5s"},
		{ModePush, "push,stale"},
		{ModePush, "push,crash-on-change"},
		{ModePush, "push,hang-on-change"},
		{ModePush, "push,never-publish,detach"},
		{ModePush, "push,deaf"},
		{ModePull, "pull,never-publish"},
		{ModePull, "pull,late=5s"},
		{ModePull, "pull,crash-on-change"},
		{ModePull, "pull,hang-on-change"},
		{ModePull, "pull,deaf"},
		{ModePushProgress, "progress,never-publish,late=5s"},
		{ModePushProgress, "progress,crash-on-change"},
		{ModePushProgress, "progress,hang-on-change"},
		{ModePushProgress, "progress,stale,late=5s"},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			t.Parallel()
			mgr, dir := fakeManager(t, tc.mode, tc.behaviour)
			srv, err := mgr.ForLanguage("rust")
			if err != nil {
				t.Fatal(err)
			}
			// Start outside the measured time: readiness is not the check.
			if err := srv.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			// More than a pipe holds, so that a server that stopped reading
			// blocks the write.
			big := "fn lib() { ERROR }\n" + strings.Repeat("// padding\n", 100_000)
			res, err := srv.Check(ctx, CheckRequest{
				Files:      []FileChange{change(dir, "lib.rs", "fn lib() {}\n", big)},
				Dependants: []string{filepath.Join(dir, "use.rs")},
			})
			elapsed := time.Since(start)
			if err == nil {
				t.Fatalf("check of a faulty server succeeded: checked %v, after %v", res.Checked, res.After)
			}
			if elapsed > bound {
				t.Errorf("check took %s, bound %s", elapsed, bound)
			}
			t.Logf("failed after %s: %v", elapsed.Round(time.Millisecond), err)
		})
	}
}

// A write the server does not read (a change larger than a pipe holds,
// sent to a server that stopped reading) gives up with the check's context
// and takes the server down, rather than blocking forever.
func TestWriteToDeafServerGivesUp(t *testing.T) {
	mgr, dir := fakeManager(t, ModePull, "pull,deaf")
	srv, err := mgr.ForLanguage("rust")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := srv.PID()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	big := strings.Repeat("// ERROR padding\n", 200_000)
	_, err = srv.Check(ctx, CheckRequest{Files: []FileChange{change(dir, "new.rs", "", big)}})
	if err == nil || time.Since(start) > 4*time.Second {
		t.Fatalf("err %v after %s, want a failure within the deadline and a bound", err, time.Since(start))
	}
	for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server that stopped reading is still running")
		}
	}
}

// Shutting down while a server is starting does not wait for the start to
// finish, and leaves no process behind.
func TestShutdownDuringStart(t *testing.T) {
	dir := t.TempDir()
	reg := NewRegistry(RegistryOptions{LookPath: noPath, Overrides: []Spec{{
		Name: "silent", Command: "/bin/sleep", Args: []string{"3600"}, Languages: []string{"rust"}, Mode: ModePush,
	}}})
	mgr := NewManager(dir, reg, ManagerOptions{StartTimeout: time.Minute})
	srv, err := mgr.ForLanguage("rust")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() {
		started <- srv.Start(context.Background())
	}()
	for srv.PID() == 0 && !strings.Contains(runningStart(srv), "yes") {
		time.Sleep(10 * time.Millisecond)
	}
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	mgr.Shutdown(ctx)
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("Shutdown took %s while a start was pending", d)
	}
	select {
	case err := <-started:
		if err == nil {
			t.Fatal("a start interrupted by Shutdown succeeded")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the caller waiting for the start was not released")
	}
}

// runningStart reports "yes" once a start of srv is in progress.
func runningStart(srv *Server) string {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.starting != nil {
		return "yes"
	}
	return "no"
}

// A check queued behind another one gives up when its context ends.
func TestCheckQueueHonoursDeadline(t *testing.T) {
	mgr, dir := fakeManager(t, ModePull, "pull,never-publish")
	srv, err := mgr.ForLanguage("rust")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	long, cancelLong := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelLong()
	go srv.Check(long, CheckRequest{Files: []FileChange{change(dir, "lib.rs", "fn lib() {}\n", "x")}})
	for len(srv.turn) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = srv.Check(short, CheckRequest{Files: []FileChange{change(dir, "use.rs", "fn user() {}\n", "y")}})
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("queued check: err %v after %s, want a prompt deadline error", err, time.Since(start))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// gopls -remote=auto starts a shared daemon and detaches it; in the
// server's PID namespace the daemon still dies with it, so nothing is left
// once the manager shuts down.
func TestRemoteAutoLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "m.go": "package m\n"})
	reg := NewRegistry(RegistryOptions{Policy: execpolicy.New(execpolicy.Options{Root: dir, Environ: os.Environ()}), ToolsDir: DefaultToolsDir(os.Getenv), Overrides: []Spec{{Name: "gopls", Args: []string{"-remote=auto"}}}})
	mgr := NewManager(dir, reg, ManagerOptions{StartTimeout: time.Minute})
	srv, err := mgr.ForLanguage("go")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(ownProcesses(t, "-listen")) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no gopls daemon was started: %v", ownProcesses(t, "gopls"))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	mgr.Shutdown(ctx)
	for deadline := time.Now().Add(5 * time.Second); len(ownProcesses(t, "gopls")) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %v", ownProcesses(t, "gopls"))
		}
	}
}

// ownProcesses lists this test process's descendants whose command line
// mentions name.
func ownProcesses(t *testing.T, name string) []string {
	t.Helper()
	parent := map[int]int{}
	cmdline := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+2:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		c, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cmdline[pid] = strings.ReplaceAll(string(c), "\x00", " ")
	}
	var out []string
	for pid, c := range cmdline {
		if !strings.Contains(c, name) {
			continue
		}
		for q := parent[pid]; q > 1; q = parent[q] {
			if q == os.Getpid() {
				out = append(out, fmt.Sprintf("%d %s", pid, c))
				break
			}
		}
	}
	return out
}

// A server that keeps answering is slow, not hung: a check longer than the
// silence bound completes, while a server that stops answering is given up
// on once it has been silent that long.
func TestWatchProgressTellsSlowFromHung(t *testing.T) {
	const idle = 700 * time.Millisecond
	check := func(t *testing.T, behaviour string, dependants int) (time.Duration, error) {
		mgr, dir := fakeManager(t, ModePull, behaviour)
		srv, err := mgr.ForLanguage("rust")
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		var deps []string
		for i := range dependants {
			rel := fmt.Sprintf("dep%d.rs", i)
			testfs.Write(t, dir, map[string]string{rel: "fn dep() {}\n"})
			deps = append(deps, filepath.Join(dir, rel))
		}
		ctx, cancel := srv.WatchProgress(context.Background(), idle, time.Minute)
		defer cancel()
		start := time.Now()
		_, err = srv.Check(ctx, CheckRequest{
			Files:      []FileChange{change(dir, "lib.rs", "fn lib() {}\n", "fn lib() { ERROR }\n")},
			Dependants: deps, DirectDependants: len(deps),
		})
		return time.Since(start), err
	}
	t.Run("slow", func(t *testing.T) {
		// 2 × 13 answers, 150 ms apart: about 4 s in all, never 700 ms
		// without a word.
		took, err := check(t, "pull,slow=150ms", 12)
		if err != nil {
			t.Fatalf("a server answering all along was given up on after %s: %v", took, err)
		}
		if took < 2*idle {
			t.Fatalf("the check took %s: too short to show anything", took)
		}
	})
	t.Run("hung", func(t *testing.T) {
		took, err := check(t, "pull,hang-on-change", 2)
		if err == nil {
			t.Fatal("a hung server's check succeeded")
		}
		if took > idle+5*time.Second {
			t.Errorf("given up on after %s, bound %s", took, idle+5*time.Second)
		}
		t.Logf("given up on after %s: %v", took.Round(time.Millisecond), err)
	})
}

// A server that dies as soon as it starts is restarted with a growing
// pause, then left down until a check asks for it, which then says why.
func TestCrashLoopBacksOff(t *testing.T) {
	mgr, _ := fakeManager(t, ModePull, "pull,die-after-start")
	srv, err := mgr.ForLanguage("rust")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Pauses of 0.2, 0.4, 0.8 and 1.6 s: five deaths in about 3.5 s, then
	// none. A fixed 200 ms pause would have restarted it about 25 times.
	time.Sleep(6 * time.Second)
	n := srv.Restarts()
	if n != maxQuickCrashes {
		t.Fatalf("%d restarts in 6 s, want %d", n, maxQuickCrashes)
	}
	time.Sleep(2 * time.Second)
	if m := srv.Restarts(); m != n {
		t.Fatalf("restarted again while nobody asked: %d → %d", n, m)
	}
	if srv.PID() != 0 {
		t.Fatal("a server is running after the crash loop stopped")
	}
}

// Telling a server of disk changes never waits for its turn, and never
// costs another caller's check its server: the changes are sent at the
// start of the next turn.
func TestDiskNoticeNeverWaits(t *testing.T) {
	mgr, dir := fakeManager(t, ModePull, "pull,slow=200ms")
	srv, err := mgr.ForLanguage("rust")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := srv.PID()
	var deps []string
	for i := range 5 {
		rel := fmt.Sprintf("dep%d.rs", i)
		testfs.Write(t, dir, map[string]string{rel: "fn dep() {}\n"})
		deps = append(deps, filepath.Join(dir, rel))
	}
	checked := make(chan error, 1)
	go func() {
		_, err := srv.Check(context.Background(), CheckRequest{
			Files:      []FileChange{change(dir, "lib.rs", "fn lib() {}\n", "fn lib() { ERROR }\n")},
			Dependants: deps, DirectDependants: len(deps),
		})
		checked <- err
	}()
	time.Sleep(300 * time.Millisecond) // the check holds the turn
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	srv.NotifyDiskChanges(ctx, map[string]int{filepath.Join(dir, "use.rs"): FileChanged})
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("the notice waited %s", took)
	}
	if err := <-checked; err != nil {
		t.Fatalf("the check beside the notice: %v", err)
	}
	if srv.PID() != pid || srv.Restarts() != 0 {
		t.Fatalf("the server was replaced (pid %d → %d, %d restarts)", pid, srv.PID(), srv.Restarts())
	}
	// The next turn sends the change and goes on with the same server.
	if _, err := srv.Diagnose(context.Background(), []string{filepath.Join(dir, "use.rs")}); err != nil {
		t.Fatal(err)
	}
	if srv.PID() != pid {
		t.Fatal("the server was replaced when told of the change")
	}
}
