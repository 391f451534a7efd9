package batch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/execpolicy"
)

// A run that stops on a syntax error is kept as the checker's answer for
// its disk state (Answer, with why it stopped) but is no whole answer
// (Baseline): a comparison of two compilers may see that they differ,
// never that they agree.
func TestAStoppedRunIsAnAnswerButNoBaseline(t *testing.T) {
	ws := t.TempDir()
	config := filepath.Join(ws, "tsconfig.json")
	policy := execpolicy.New(execpolicy.Options{Root: ws, Trusted: true, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	for _, tc := range []struct {
		name    string
		printed string
		whole   bool
	}{
		{"a type error", "a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.", true},
		{"a syntax error", "a.ts(1,9): error TS1109: Expression expected.", false},
		{"an option the compiler removed", "tsconfig.json(1,40): error TS5108: Option 'moduleResolution=node10' has been removed.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := Tool{Kind: TSC, Argv: []string{"sh", "-c", "echo \"$0\"; exit 2", tc.printed}, Label: "printed"}
			c := New(ws, tool, t.TempDir(), policy)
			c.Warm(context.Background(), config, "disk-1")
			_, ready := c.Baseline(config, "disk-1")
			diags, stopped, ok := c.Answer(config, "disk-1")
			if !ok || len(diags) != 1 {
				t.Fatalf("answer %v (ok %v), want the one printed error", diags, ok)
			}
			if ready != tc.whole || (stopped == "") != tc.whole {
				t.Errorf("baseline ready %v, stopped %q; want whole %v", ready, stopped, tc.whole)
			}
			if _, _, ok := c.Answer(config, "disk-2"); ok {
				t.Error("an answer for a disk state never run")
			}
		})
	}
}

// A project command's stopped answer (go vet at a package's first type
// error, cargo at a unit that failed) is the unchanged tree's answer all
// the same: no server checks its files instead, and the changed tree's
// run says whether it stopped too.
func TestAStoppedProjectCommandIsTheBaseline(t *testing.T) {
	ws := t.TempDir()
	policy := execpolicy.New(execpolicy.Options{Root: ws, Trusted: true, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	printed := "# example.com/v\nvet: ./a.go:7:14: undefined: x"
	tool := Tool{Kind: Command, Argv: []string{"sh", "-c", "echo \"$0\"; exit 1", printed}, Format: diagformat.GoVet, Label: "go vet"}
	c := New(ws, tool, t.TempDir(), policy)
	res, err := c.Check(context.Background(), ws, "disk-1", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Incomplete == "" || len(res.Before) != 1 || len(res.After) != 1 {
		t.Fatalf("result %+v, want both sides' error and the changed tree's stop", res)
	}
	if _, ok := c.Baseline(ws, "disk-1"); !ok {
		t.Error("the stopped answer was not kept for the unchanged tree")
	}
	if _, stopped, ok := c.Answer(ws, "disk-1"); !ok || stopped == "" {
		t.Errorf("Answer = stopped %q, ok %v: want why it stopped", stopped, ok)
	}
}
