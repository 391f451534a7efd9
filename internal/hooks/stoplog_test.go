package hooks

import (
	"os"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// The end-of-turn check refuses MaxBlocks times in a row, the last time
// saying it is the last; the next end of the turn goes through with the
// errors as a warning naming the log. Every refusal and the end past the
// bound are in the log, private to the user.
func TestRefusalsUpToTheBoundAreSaidAndLogged(t *testing.T) {
	root, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &Gate{Snapshots: NewStore(t.TempDir())}
	snap := &Snapshot{Workspace: root.Dir(), Session: "s1", Files: map[string]string{}}
	errs := "Anvil: the session's changes leave 1 new error in src/b.ts:\nsrc/b.ts:3:14 error Type 'string' is not assignable to type 'number'. [2322]"
	for i := 1; i <= MaxBlocks; i++ {
		a := g.refuse(root, snap, Answer{Deny: true, Reason: errs})
		last := strings.Contains(a.Reason, "last refusal")
		if !a.Deny || last != (i == MaxBlocks) || a.Message != "" {
			t.Fatalf("refusal %d: deny %v, says last %v, message %q", i, a.Deny, last, a.Message)
		}
	}
	a := g.refuse(root, snap, Answer{Deny: true, Reason: errs})
	if a.Deny || !strings.Contains(a.Message, "refused for 5 times in a row") || !strings.Contains(a.Message, "src/b.ts:3:14") ||
		!strings.Contains(a.Message, g.Snapshots.StopLog()) {
		t.Fatalf("past the bound: deny %v, message %q", a.Deny, a.Message)
	}
	if snap.Blocks != 0 {
		t.Errorf("the count is %d after the turn ended, want 0", snap.Blocks)
	}
	data, err := os.ReadFile(g.Snapshots.StopLog())
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{
		root.Dir() + " session s1: refused the end of the turn (1 of 5 in a row)",
		"refused the end of the turn (5 of 5 in a row)",
		root.Dir() + " session s1: the turn ended after 5 refusals in a row, with: the session's changes leave 1 new error",
		"\n    src/b.ts:3:14 error",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "refused the end of the turn"); n != MaxBlocks {
		t.Errorf("%d refusals logged, want %d", n, MaxBlocks)
	}
	if info, err := os.Stat(g.Snapshots.StopLog()); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v %v", info.Mode(), err)
	}
}
