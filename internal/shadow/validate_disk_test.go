package shadow

import (
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// Servers are told about files that change on disk between validations:
// an error the user adds to a dependant meanwhile is pre-existing for the
// next validation, not new, and not missed. (This also covers the
// dependants' baselines, which are reused only while the disk is
// unchanged.)
func TestUserEditsBetweenValidations(t *testing.T) {
	for _, tc := range []struct {
		project, language, changed, dependant, appendChange, appendError string
	}{
		{"ts", "typescript", "src/db.ts", "src/auth.ts", "\nexport const version = 1;\n", "\nexport const broken: number = \"x\";\n"},
		{"go", "go", "db/db.go", "auth/auth.go", "\n// Version is the schema version.\nconst Version = 1\n", "\nvar broken int = \"x\"\n"},
		{"py", "python", "app/db.py", "app/auth.py", "\nVERSION = 1\n", "\nbroken: int = \"x\"\n"},
	} {
		t.Run(tc.project, func(t *testing.T) {
			h := newHarness(t, tc.project, harnessOptions{})
			h.requireServer(tc.language)
			change := map[string]string{tc.changed: h.read(tc.changed) + tc.appendChange}
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
