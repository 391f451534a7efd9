package shadow

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// Who reads a file is who the compiler says reads it. Anvil's own
// resolution takes a package under node_modules for an installed one
// when no workspace package of that name exists; npm links a local
// dependency ("file:./shared") there under the dependency's key, whatever
// its package.json calls it, and TypeScript follows the link to the
// workspace's own source.
func TestDependantsTheCompilerRecorded(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{files: map[string]string{
		"package.json":        `{"name": "app", "private": true, "dependencies": {"lib": "file:./shared"}}`,
		"tsconfig.json":       `{"compilerOptions": {"strict": true, "noEmit": true, "module": "preserve", "moduleResolution": "bundler"}, "include": ["src", "shared"]}`,
		"shared/package.json": `{"name": "shared-lib", "types": "./index.ts"}`,
		"shared/index.ts":     "export function total(xs: number[]): number {\n  return xs.length;\n}\n",
		"src/app.ts":          "import { total } from \"lib\";\n\nexport const n: number = total([1]);\n",
		"node_modules/lib":    "->../shared",
	}})
	h.requireServer("typescript")
	res := h.validate(map[string]string{"shared/index.ts": "export function total(xs: number[]): string {\n  return String(xs.length);\n}\n"})
	expect(t, res, Rejected, "src/app.ts")
}

// The same for Python, from pyright's record: an editable install's .pth
// file in the project's virtual environment puts extra/ on the path,
// where nspkg is a namespace package (no __init__.py). Anvil's own
// reading knows no such root, so app/main.py was never checked. Before
// the first record (a cold start), the project's batch check decides.
func TestDependantsPyrightRecorded(t *testing.T) {
	files := map[string]string{
		"pyrightconfig.json": `{"typeCheckingMode": "standard", "include": ["app", "extra"], "venvPath": ".", "venv": ".venv"}`,
		".venv/pyvenv.cfg":   "home = /usr/bin\n",
		"extra/nspkg/mod.py": "def f() -> int:\n    return 1\n",
		"app/uses.py":        "from nspkg.mod import f\n\nx: int = f()\n",
	}
	change := map[string]string{"extra/nspkg/mod.py": "def f() -> str:\n    return \"1\"\n"}
	for _, tc := range []struct {
		name      string
		noRecords bool
		cold      bool // no record made yet
		want      Verdict
		newIn     []string
		via       string
	}{
		{"with pyright's record", false, false, Rejected, []string{"app/uses.py"}, "the server"},
		{"a cold start: the batch checker decides", false, true, Rejected, []string{"app/uses.py"}, "batch: pyright"},
		{"Anvil's reading alone", true, false, Clean, nil, "the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "py", harnessOptions{files: files, noRecords: tc.noRecords, opts: Options{BatchStateDir: t.TempDir()}})
			testfs.Write(t, h.dir, map[string]string{".venv/lib/python3.11/site-packages/extra.pth": filepath.Join(h.dir, "extra") + "\n"})
			h.requireServer("python")
			if !tc.cold {
				// The record is made in the background (no check waits
				// for a whole pyright run): here, ahead of the check.
				h.prepareRecords()
			}
			res := h.validate(change)
			expect(t, res, tc.want, tc.newIn...)
			if via := res.Servers[0].Via; !strings.HasPrefix(via, tc.via) {
				t.Errorf("checked via %q, want %q…", via, tc.via)
			}
		})
	}
}

// pyright's record is made for every pyright project the workspace's
// Python files belong to, as the batch checker runs them (the nearest
// configuration above each file), not only the root's; and a file of a
// nested project is judged by that project's batch run, since pyright's
// server answers as the root's project does. tools/ is a project of its
// own, which the root's configuration leaves out. Before, the record was
// the root project's alone, so tools/uses.py was never checked; checked
// by the server (the record alone), it came back clean too: the server
// kept the namespace package's text on disk for it. `pyright -p tools`
// finds the error.
func TestDependantsPyrightRecordedInANestedProject(t *testing.T) {
	files := map[string]string{
		"pyrightconfig.json":       `{"typeCheckingMode": "standard", "include": ["app", "extra"], "venvPath": ".", "venv": ".venv"}`,
		"tools/pyrightconfig.json": `{"typeCheckingMode": "standard", "venvPath": "..", "venv": ".venv"}`,
		".venv/pyvenv.cfg":         "home = /usr/bin\n",
		"extra/nspkg/mod.py":       "def f() -> int:\n    return 1\n",
		"app/main.py":              "print(1)\n",
		"tools/uses.py":            "from nspkg.mod import f\n\nx: int = f()\n",
	}
	// cold: no record made yet. The batch run of the changed file's own
	// project does not reach tools/: every pyright project of the
	// workspace runs (before, the cold start came back clean).
	for _, cold := range []bool{false, true} {
		t.Run(map[bool]string{false: "with pyright's record", true: "a cold start"}[cold], func(t *testing.T) {
			h := newHarness(t, "py", harnessOptions{files: files, opts: Options{BatchStateDir: t.TempDir()}})
			testfs.Write(t, h.dir, map[string]string{".venv/lib/python3.11/site-packages/extra.pth": filepath.Join(h.dir, "extra") + "\n"})
			h.requireServer("python")
			if !cold {
				h.prepareRecords()
			}
			res := h.validate(map[string]string{"extra/nspkg/mod.py": "def f() -> str:\n    return \"1\"\n"})
			expect(t, res, Rejected, "tools/uses.py")
			if via := res.Servers[0].Via; !strings.HasPrefix(via, "batch: pyright") {
				t.Errorf("checked via %q, want the batch checker", via)
			}
		})
	}
}
