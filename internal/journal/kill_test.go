package journal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// The test binary doubles as a committer that kills itself with SIGKILL at
// one step of a commit: no deferred function, no rollback, only what the
// kernel does when a process dies.
func TestMain(m *testing.M) {
	if step := os.Getenv("JOURNAL_KILL_AT"); step != "" {
		killedCommit(step)
		os.Exit(3) // the step never came
	}
	os.Exit(m.Run())
}

func killedCommit(step string) {
	root, err := workspace.New(os.Getenv("JOURNAL_WS"))
	if err != nil {
		panic(err)
	}
	j := New(root, Options{StateDir: os.Getenv("JOURNAL_STATE")})
	die := func(s string) {
		if s == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Hour)
		}
	}
	j.at = die
	j.beforeApply = func(i int, _ string) error { die(fmt.Sprintf("apply %d", i)); return nil }
	j.beforeSwap = func(p string) { die("swap " + p) }
	set, err := changesetFor(root)
	if err != nil {
		panic(err)
	}
	lock, err := j.Lock(context.Background(), nil)
	if err != nil {
		panic(err)
	}
	if _, err := j.Commit(context.Background(), lock, set, "killed"); err != nil {
		panic(err)
	}
}

// Killing the process at any step of a commit leaves the files all old or,
// once the commit is marked, all new, and nothing of Anvil's behind in
// the tree, after the next run's recovery.
func TestKilledAtEveryStep(t *testing.T) {
	steps := []string{"prepared"}
	for i := range len(crashOrder()) {
		steps = append(steps, fmt.Sprintf("apply %d", i))
	}
	for _, p := range crashOrder() {
		steps = append(steps, "swap "+p)
	}
	steps = append(steps, "committing", "committed")
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "", nil, crashFiles())
			f.chmod("run.sh", 0o755)
			before := snapshot(t, f.dir)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "JOURNAL_KILL_AT="+step, "JOURNAL_WS="+f.dir, "JOURNAL_STATE="+f.state)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the committer was not killed at %q: %v\n%s", step, err, out)
			}
			if _, err := f.j.Recover(context.Background()); err != nil {
				t.Fatal(err)
			}
			committed := step == "committed"
			if !committed {
				f.sameTree(before)
			} else {
				if f.read("a.txt") != "A\r\nB\r\n" || f.read("new/dir/n.txt") != "n\n" || f.read("run.sh") != "<absent>" {
					t.Errorf("after a kill past the commit mark, the new contents are not all there")
				}
				if _, err := f.j.Undo(context.Background()); err != nil {
					t.Fatal(err)
				}
				f.sameTree(before)
			}
			for p := range snapshot(t, f.dir) {
				if strings.Contains(p, asideMarker) || strings.Contains(p, tempMarker) {
					t.Errorf("left behind: %s", p)
				}
			}
		})
	}
}
