package shadow

import (
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
)

// Every unverified verdict a user can act on says how, in the words
// 'anvil doctor' uses.
func TestUnverifiedReasonsSayHowToFix(t *testing.T) {
	for _, tc := range []struct {
		name    string
		project string
		ho      harnessOptions
		file    string
		want    []string
		// edit makes the change ("" appends a comment).
		edit func(string) string
	}{
		{"TypeScript 6 or older, none installed", "ts-esm", harnessOptions{toolsDir: t.TempDir()}, "src/main.ts",
			[]string{"no tsserver.js", servers.TSServerFix}, nil},
		{"no server binary", "ts", harnessOptions{overrides: []servers.Spec{{Name: "tsgo", Command: "no-such-tsc"}}}, "src/db.ts",
			[]string{"no language server found for typescript", "run scripts/install-servers.sh", "[servers.tsgo]"}, nil},
		{"no server configured", "ts", harnessOptions{}, "src/lib.rs",
			[]string{"no language server is configured for rust", "add a [servers.NAME] table"}, nil},
		{"a server that never answers initialize", "py", harnessOptions{
			overrides: []servers.Spec{{Name: "pyright", Command: "sleep", Args: []string{"3600"}}},
			opts:      Options{LoadTimeout: time.Second},
		}, "app/db.py", []string{"not ready within the load timeout", "raise load_timeout ('anvil config set load_timeout 10m')"}, nil},
		{"more dependants than the bound", "ts", harnessOptions{opts: Options{MaxDependants: 1}}, "src/types.ts",
			[]string{"raise max_dependants ('anvil config set max_dependants 4')"},
			// An interface its importers use (a comment reaches none).
			func(s string) string {
				return strings.Replace(s, "email: string;", "email: string;\n  age?: number;", 1)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.project, tc.ho)
			old, _ := readIfExists(h, tc.file)
			content := old + "// a comment\n"
			if tc.edit != nil {
				content = tc.edit(old)
			}
			res := h.validate(map[string]string{tc.file: content})
			expect(t, res, Unverified)
			for _, w := range tc.want {
				if !strings.Contains(res.Unverified[0].Reason, w) {
					t.Errorf("reason %q lacks %q", res.Unverified[0].Reason, w)
				}
			}
		})
	}
}

func readIfExists(h *harness, rel string) (string, error) {
	data, err := h.root.ReadFile(rel)
	return string(data), err
}
