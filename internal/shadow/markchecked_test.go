package shadow

import (
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// A run over the whole project that finished checked every file it
// names either side and every file its projects hold: a file with errors
// before and none named after has none. One that stopped checked only
// what it names after, so an error before elsewhere is not resolved.
func TestMarkCheckedReadsSilenceOnlyOfAFinishedRun(t *testing.T) {
	errAt := []lsp.Diagnostic{{Severity: lsp.SeverityError, Message: "e"}}
	for _, tc := range []struct {
		name        string
		whole       bool
		wantChecked []string
		wantAfter   []string // files with an entry after the change
	}{
		{"finished", true, []string{"/w/a", "/w/b", "/w/c"}, []string{"/w/a", "/w/b", "/w/c"}},
		{"stopped", false, []string{"/w/a"}, []string{"/w/a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := servers.CheckResult{
				Before: map[string][]lsp.Diagnostic{"/w/b": errAt, "": errAt},
				After:  map[string][]lsp.Diagnostic{"/w/a": errAt},
			}
			markChecked(&cr, []string{"/w/c"}, tc.whole)
			if !slices.Equal(cr.Checked, tc.wantChecked) {
				t.Errorf("checked %v, want %v", cr.Checked, tc.wantChecked)
			}
			var after []string
			for p := range cr.After {
				after = append(after, p)
			}
			slices.Sort(after)
			if !slices.Equal(after, tc.wantAfter) {
				t.Errorf("after %v, want %v", after, tc.wantAfter)
			}
		})
	}
}
