package shadow

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// Servers are told about files that change on disk between validations:
// an error the user adds to a dependant meanwhile is pre-existing for the
// next validation, not new, and not missed. (This also covers the
// dependants' baselines, which are reused only while the disk is
// unchanged.)
//
// The change widens the interface the dependant uses (an optional
// parameter), so the early cut-off checks the dependant.
func TestUserEditsBetweenValidations(t *testing.T) {
	for _, tc := range []struct {
		project, language, changed, dependant, from, to, appendError string
	}{
		{"ts", "typescript", "src/db.ts", "src/auth.ts", "export function findUser(id: string)", "export function findUser(id: string, _hint?: string)", "\nexport const broken: number = \"x\";\n"},
		{"go", "go", "db/db.go", "auth/auth.go", "", "\n// Version is the schema version.\nconst Version = 1\n", "\nvar broken int = \"x\"\n"},
		{"py", "python", "app/db.py", "app/auth.py", "def find_user(user_id: str)", "def find_user(user_id: str, hint: str = \"\")", "\nbroken: int = \"x\"\n"},
		{"c", "c", "include/shapes.h", "src/report.c", "int area(struct point p);", "int area(struct point p);\nint perimeter(struct point p);", "\nint broken = \"x\" * 2;\n"},
	} {
		t.Run(tc.project, func(t *testing.T) {
			h := newHarness(t, tc.project, harnessOptions{})
			h.requireServer(tc.language)
			changed := h.read(tc.changed) + tc.to
			if tc.from != "" {
				if !strings.Contains(h.read(tc.changed), tc.from) {
					t.Fatalf("%s lacks %q", tc.changed, tc.from)
				}
				changed = strings.Replace(h.read(tc.changed), tc.from, tc.to, 1)
			}
			change := map[string]string{tc.changed: changed}
			expect(t, h.validate(change), Clean)
			expect(t, h.validate(change), Clean)

			testfs.Write(t, h.dir, map[string]string{tc.dependant: h.read(tc.dependant) + tc.appendError})
			res := h.validate(change)
			expect(t, res, Clean)
			if len(res.Preexisting) != 1 || res.Preexisting[0].Path != tc.dependant {
				t.Fatalf("the user's new error in %s should be pre-existing:\n%s", tc.dependant, describe(res))
			}
		})
	}
}
