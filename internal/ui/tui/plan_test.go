package tui

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/plan"
)

// A plan widened by a re-plan says what it adds and why, above the plan.
func TestPlanShowsWhatAReplanAdds(t *testing.T) {
	st := defaultStyles()
	p := &plan.Plan{Goal: "Rename User", Context: "c", FilesToModify: []string{"src/types.ts", "src/auth.ts"}, Steps: []string{"rename"}}
	for _, tc := range []struct {
		ev   event.Plan
		want []string
		not  []string
	}{
		{event.Plan{Plan: p}, []string{"Plan", "src/auth.ts"}, []string{"Widened"}},
		{event.Plan{Plan: p, Revision: 2, Reason: "the change breaks files outside the plan: src/auth.ts (2 new errors)",
			Widened: []event.Widened{{Path: "src/auth.ts", Why: "2 new errors (first: 2304 at line 5: Cannot find name 'User'.)"}}},
			[]string{"Plan (revision 2)", "Widened:", "+ src/auth.ts: 2 new errors", "Cannot find name 'User'."}, nil},
	} {
		out := (&planBlock{ev: tc.ev}).render(100, &st, "")
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("missing %q in:\n%s", w, out)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(out, n) {
				t.Errorf("unexpected %q in:\n%s", n, out)
			}
		}
	}
}
