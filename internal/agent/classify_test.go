package agent

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		request string
		complex bool
		files   string
		reason  string
	}{
		{"Rename the User type to Account across all files", true, "", `keyword "rename"`},
		{"Add a JSDoc comment to fetchUser in src/api.ts", false, "src/api.ts", "names one file"},
		{"Fix the off-by-one in @src/pager.go", false, "src/pager.go", "names one file"},
		{"Update db.ts and auth.ts to log errors", true, "auth.ts,db.ts", "names 2 files"},
		{"Make the login faster", true, "", "names no file"},
		{"Refactoring: pull config out of main.go", true, "main.go", `keyword "refactoring"`},
		{"the renamed variable in util.py shadows a builtin", true, "util.py", `keyword "renamed"`},
		{"Fix the typo in README.md (see v1.2.3, e.g. the heading)", false, "README.md", "names one file"},
		{"A removable banner in page.tsx", false, "page.tsx", "names one file"}, // "removable" is no keyword
		{"Fix src/a.ts, then ./src/a.ts again", false, "src/a.ts", "names one file"},
	}
	for _, tt := range tests {
		c := Classify(tt.request)
		if c.Complex != tt.complex || strings.Join(c.Files, ",") != tt.files || !strings.Contains(c.Reason, tt.reason) {
			t.Errorf("Classify(%q) = %+v; want complex=%v files=%q reason~%q", tt.request, c, tt.complex, tt.files, tt.reason)
		}
	}
}
