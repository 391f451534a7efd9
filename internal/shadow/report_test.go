package shadow

import (
	"strings"
	"testing"
)

// A model is shown new errors in full each time, and pre-existing ones
// listed once per file, then counted.
func TestModelReportListsPreexistingOncePerFile(t *testing.T) {
	res := &Result{Verdict: Rejected,
		New: []Diag{{Path: "a.ts", Line: 3, Column: 1, Severity: "error", Code: "2322", Message: "new one", LineText: "let x: number = 's';"}},
		Preexisting: []Diag{
			{Path: "a.ts", Line: 9, Column: 1, Severity: "error", Message: "old in a"},
			{Path: "b.ts", Line: 2, Column: 1, Severity: "error", Message: "old in b"},
		},
		Resolved:     []Diag{{Path: "c.ts", Line: 1, Column: 1, Severity: "error", Message: "gone"}},
		CheckedFiles: []string{"a.ts", "b.ts", "c.ts"},
	}
	shown := map[string]bool{}
	var first, second strings.Builder
	res.ModelReport(&first, shown)
	res.ModelReport(&second, shown)
	for _, want := range []string{"new one", "let x: number", "old in a", "old in b", "Pre-existing errors: 2 in 2 files", "gone"} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("first report lacks %q:\n%s", want, first.String())
		}
	}
	if s := second.String(); strings.Contains(s, "old in a") || strings.Contains(s, "old in b") ||
		!strings.Contains(s, "new one") || !strings.Contains(s, "Pre-existing errors: 2 in 2 files") || !strings.Contains(s, "2 not listed here") {
		t.Errorf("second report:\n%s", s)
	}
}
