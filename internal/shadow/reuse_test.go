package shadow

import (
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// A commit's check takes the answers the staging check of the same state
// gave, unless a dependant gained an error there (then it stops where a
// check of its own would); a warning after a "before" the batch
// checker's answer spared (empty) is no gained error.
func TestAnswersOfTheSameStateAreTakenUnlessAnErrorWasGained(t *testing.T) {
	warning := lsp.Diagnostic{Severity: lsp.SeverityWarning, Message: "unused"}
	failure := lsp.Diagnostic{Severity: lsp.SeverityError, Message: "broken"}
	for _, tc := range []struct {
		name          string
		before, after []lsp.Diagnostic
		want          []string
	}{
		{"nothing either side", nil, nil, []string{"/w/a.ts", "/w/b.ts"}},
		{"a warning after a spared before", nil, []lsp.Diagnostic{warning}, []string{"/w/a.ts", "/w/b.ts"}},
		{"an error kept", []lsp.Diagnostic{failure}, []lsp.Diagnostic{failure}, []string{"/w/a.ts", "/w/b.ts"}},
		{"an error gained", nil, []lsp.Diagnostic{failure}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := &servers.CheckResult{
				Before:  map[string][]lsp.Diagnostic{"/w/a.ts": tc.before, "/w/b.ts": nil},
				After:   map[string][]lsp.Diagnostic{"/w/a.ts": tc.after, "/w/b.ts": nil},
				Checked: []string{"/w/a.ts", "/w/b.ts"},
			}
			req := servers.CheckRequest{Dependants: []string{"/w/a.ts", "/w/b.ts", "/w/c.ts"}, DirectDependants: 3}
			got := skipKnown(&req, prev)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("taken %v, want %v", got, tc.want)
			}
			if tc.want != nil && (!slices.Equal(req.Dependants, []string{"/w/c.ts"}) || req.DirectDependants != 1) {
				t.Errorf("left to ask %v (%d direct), want /w/c.ts (1)", req.Dependants, req.DirectDependants)
			}
		})
	}
}
