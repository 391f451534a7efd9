package shadow

import (
	"strings"
	"testing"
)

// The project's own checks decide what is the project: pyright's
// include in pyproject.toml, a tsconfig.json's include. A file they leave
// out is checked only when it imports a changed file itself, and its new
// errors say so; dependencies are never the project's files.
func TestScopeIsTheProjects(t *testing.T) {
	t.Run("pyright's [tool.pyright] include", func(t *testing.T) {
		// Exhaustive: every dependant is checked, so that only the scope
		// keeps a file out.
		h := newHarnessAt(t, t.TempDir(), harnessOptions{opts: Options{Exhaustive: true}, files: map[string]string{
			"pyproject.toml":      "[project]\nname = \"pkg\"\n\n[tool.pyright]\ninclude = [\"src\"]\ntypeCheckingMode = \"standard\"\n",
			"src/pkg/__init__.py": "from .util import helper\n",
			"src/pkg/util.py":     "def helper(x: int) -> int:\n    return x\n",
			// run's return type is inferred from its body, so it changes
			// with helper's and the change goes on to run's users.
			"src/pkg/core.py":    "from .util import helper\n\n\ndef run():\n    return helper(1)\n",
			"tests/test_util.py": "from pkg.util import helper\n\n\ndef test_helper() -> None:\n    assert helper(1) == 1\n",
			"tests/test_core.py": "from pkg.core import run\n\n\ndef test_run() -> None:\n    assert run() == 1\n",
			"examples/ex.py":     "import not_installed_anywhere\nfrom pkg.core import run\n\nvalue: int = \"example\"\n",
		}})
		h.requireServer("python")
		res := h.validate(map[string]string{"src/pkg/util.py": "def helper(x: str) -> int:\n    return len(x)\n"})
		expect(t, res, Rejected, "src/pkg/core.py", "tests/test_util.py")
		// An edit of the file outside: clean, as an editor sees it, and
		// the verdict says so.
		own := h.validate(map[string]string{"tests/test_util.py": "from pkg.util import helper\n\n\ndef test_helper() -> None:\n    assert helper(2) == 2\n"})
		expect(t, own, Clean)
		if note := strings.Join(own.Notes, "\n"); !strings.Contains(note, "outside the project's own checks: tests/test_util.py (pyproject.toml [tool.pyright]") {
			t.Errorf("notes %q: the clean verdict does not say that tests/test_util.py was checked as an editor checks it", own.Notes)
		}
		for _, d := range res.New {
			outside := d.Path == "tests/test_util.py"
			if (d.Outside != "") != outside || (outside && !strings.Contains(d.Outside, "pyproject.toml [tool.pyright]")) {
				t.Errorf("%s: outside = %q", d, d.Outside)
			}
		}
		// tests/test_core.py and examples/ex.py reach the change only
		// through run: outside the project's checks, they are not checked,
		// and examples' pre-existing errors are not reported.
		for _, f := range []string{"tests/test_core.py", "examples/ex.py"} {
			if contains(res.CheckedFiles, f) {
				t.Errorf("%s checked: %v", f, res.CheckedFiles)
			}
		}
		for _, d := range append(res.Preexisting, res.Resolved...) {
			if strings.HasPrefix(d.Path, "examples/") {
				t.Errorf("an error of a file the check did not look at after the change: %s", d)
			}
		}
	})

	t.Run("a tsconfig.json's include, and node_modules without a .gitignore", func(t *testing.T) {
		h := newHarnessAt(t, t.TempDir(), harnessOptions{opts: Options{Exhaustive: true}, files: map[string]string{
			"tsconfig.json":   `{"compilerOptions": {"strict": true, "noEmit": true, "skipLibCheck": false}, "include": ["src"]}`,
			"src/lib.ts":      "export function area(w: number, h: number): number {\n  return w * h;\n}\n",
			"src/use.ts":      "import { area } from \"./lib\";\nexport const a: number = area(1, 2);\n",
			"examples/ex.ts":  "import { area } from \"../src/lib\";\nconsole.log(area(3, 4));\n",
			"examples/old.ts": "import { a } from \"../src/use\";\nconst broken: number = \"pre-existing\";\nconsole.log(a, broken);\n",
			// A dependency with its own errors and globals, not ignored by
			// any .gitignore: an input, never a project file.
			"node_modules/fakelib/package.json": `{"name": "fakelib", "types": "index.d.ts"}`,
			"node_modules/fakelib/index.d.ts":   "declare const FAKE: number;\ndeclare let oops: string = 1;\n",
		}})
		h.requireServer("typescript")
		res := h.validate(map[string]string{"src/lib.ts": "export function area(w: number, h: number, unit: string): number {\n  return w * h;\n}\n"})
		expect(t, res, Rejected, "examples/ex.ts", "src/use.ts")
		for _, d := range res.New {
			if (d.Outside != "") != (d.Path == "examples/ex.ts") {
				t.Errorf("%s: outside = %q", d, d.Outside)
			}
		}
		for _, f := range res.CheckedFiles {
			if strings.HasPrefix(f, "node_modules/") || f == "examples/old.ts" {
				t.Errorf("checked %s: %v", f, res.CheckedFiles)
			}
		}
		for _, d := range append(res.Preexisting, res.New...) {
			if strings.HasPrefix(d.Path, "node_modules/") {
				t.Errorf("a dependency's error reported as the project's: %s", d)
			}
		}
		// A change the file outside takes without error: clean, and the
		// verdict says whose view of that file it rests on.
		wider := h.validate(map[string]string{"src/lib.ts": "export function area(w: number, h: number, unit?: string): number {\n  return w * h;\n}\n"})
		expect(t, wider, Clean)
		if note := strings.Join(wider.Notes, "\n"); !contains(wider.CheckedFiles, "examples/ex.ts") || !strings.Contains(note, "outside the project's own checks: examples/ex.ts (tsconfig.json does not include it)") {
			t.Errorf("checked %v, notes %q: the clean verdict does not say that examples/ex.ts was checked as an editor checks it", wider.CheckedFiles, wider.Notes)
		}
		// A body-only change checks the changed file alone, whoever
		// imports it.
		body := h.validate(map[string]string{"src/lib.ts": "export function area(w: number, h: number): number {\n  const a = w * h;\n  return a;\n}\n"})
		expect(t, body, Clean)
		if len(body.CheckedFiles) != 1 {
			t.Errorf("a body-only change checked %v", body.CheckedFiles)
		}
	})
}

func TestOutsideNoteNamesOnlyCheckedFilesOutside(t *testing.T) {
	outside := map[string]string{"a.py": "why a", "b.py": "why b", "c.py": "why c", "d.py": "why d", "unchecked.py": "why u"}
	cases := []struct {
		name    string
		checked []string
		want    string
	}{
		{"none outside", []string{"src/x.py"}, ""},
		{"one", []string{"src/x.py", "b.py"}, "checked as an editor checks them, outside the project's own checks: b.py (why b)"},
		{"four, sorted, two named", []string{"d.py", "c.py", "b.py", "a.py"}, "checked as an editor checks them, outside the project's own checks: a.py (why a), b.py (why b) and 2 more files"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := outsideNote(tc.checked, outside); got != tc.want {
				t.Errorf("outsideNote = %q, want %q", got, tc.want)
			}
		})
	}
}
