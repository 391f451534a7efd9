package shadow

import (
	"testing"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// At a confirming check, TypeScript 7's server is held to tsserver's
// answer only where both checked the same files whole: a pull server
// stops at the direct importers once they have new errors, and the
// importers it left would read as errors only tsserver found.
func TestBothWholeComparesOnlyWhatBothChecked(t *testing.T) {
	errs := map[string][]lsp.Diagnostic{"/w/a.ts": {diag(1, "2322")}, "/w/b.ts": {diag(2, "2345")}}
	for _, tc := range []struct {
		name          string
		own, native   servers.CheckResult
		compared      bool
		ownB, nativeB int // errors after the change in b.ts, as compared
	}{
		{"the same files", servers.CheckResult{After: errs, Checked: []string{"/w/a.ts", "/w/b.ts"}},
			servers.CheckResult{After: errs, Checked: []string{"/w/b.ts", "/w/a.ts"}}, true, 1, 1},
		{"TypeScript 7's server stopped at the direct importers", servers.CheckResult{After: errs, Checked: []string{"/w/a.ts", "/w/b.ts"}},
			servers.CheckResult{After: map[string][]lsp.Diagnostic{"/w/a.ts": errs["/w/a.ts"]}, Checked: []string{"/w/a.ts"}, Skipped: 1}, false, 0, 0},
		{"tsserver stopped short", servers.CheckResult{After: errs, Checked: []string{"/w/a.ts"}, Skipped: 1},
			servers.CheckResult{After: errs, Checked: []string{"/w/a.ts", "/w/b.ts"}}, false, 0, 0},
		{"other files checked", servers.CheckResult{After: errs, Checked: []string{"/w/a.ts", "/w/b.ts"}},
			servers.CheckResult{After: errs, Checked: []string{"/w/a.ts"}}, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own, native, ok := bothWhole(tc.own, tc.native)
			if ok != tc.compared {
				t.Fatalf("compared = %v, want %v", ok, tc.compared)
			}
			if !ok {
				return
			}
			if got := len(own.After["/w/b.ts"]); got != tc.ownB {
				t.Errorf("tsserver's b.ts: %d errors, want %d", got, tc.ownB)
			}
			if got := len(native.After["/w/b.ts"]); got != tc.nativeB {
				t.Errorf("TypeScript 7's b.ts: %d errors, want %d", got, tc.nativeB)
			}
		})
	}
}
