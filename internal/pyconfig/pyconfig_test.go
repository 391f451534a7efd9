package pyconfig

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestCovers(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"pyproject.toml": "[project]\nname = \"click\"\n\n[tool.pyright]\ninclude = [\"src\", \"tests/typing\"]\ntypeCheckingMode = \"basic\"\n",
		"sub/pyrightconfig.json": `{
			// comments are allowed
			"exclude": ["gen", "**/legacy_*.py"],
			"extraPaths": ["../libs"],
		}`,
		"other/pyproject.toml": "[tool.black]\nline-length = 100\n",
	})
	cases := []struct {
		file string
		want bool
		from string
	}{
		{"src/click/core.py", true, "pyproject.toml [tool.pyright]"},
		{"tests/typing/typing_confirm.py", true, "pyproject.toml [tool.pyright]"},
		{"tests/test_basic.py", false, "pyproject.toml [tool.pyright]"},
		{"examples/repo/repo.py", false, "pyproject.toml [tool.pyright]"},
		{"sub/pkg/mod.py", true, "sub/pyrightconfig.json"},
		{"sub/gen/out.py", false, "sub/pyrightconfig.json"},
		{"sub/pkg/legacy_api.py", false, "sub/pyrightconfig.json"},
		{"sub/.hidden/x.py", true, "sub/pyrightconfig.json"}, // an explicit exclude replaces the defaults
		// A pyproject.toml without [tool.pyright] configures nothing: the
		// root's configuration governs.
		{"other/x.py", false, "pyproject.toml [tool.pyright]"},
	}
	for _, c := range cases {
		cfg := Nearest(dir, c.file)
		if got := cfg.Covers(c.file); got != c.want || cfg.Describe() != c.from {
			t.Errorf("%s: covered %v by %s, want %v by %s", c.file, got, cfg.Describe(), c.want, c.from)
		}
	}
	// The stub path (pyright's default, typings) comes first.
	if c := Nearest(dir, "sub/pkg/mod.py"); !slices.Equal(c.Paths(), []string{"sub/typings", "libs"}) {
		t.Errorf("paths %v, want [sub/typings libs]", c.Paths())
	}
	if c, _, _ := Read(dir, "."); c.TypeCheckingMode != "basic" {
		t.Errorf("mode %q", c.TypeCheckingMode)
	}
}

func TestDefaults(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"app/main.py": ""})
	c := Nearest(dir, "app/main.py")
	for file, want := range map[string]bool{"app/main.py": true, "node_modules/x/y.py": false, "a/__pycache__/m.py": false, ".venv/lib/m.py": false} {
		if got := c.Covers(file); got != want {
			t.Errorf("%s: %v, want %v", file, got, want)
		}
	}
}

// include and exclude come down an extends chain where the extending
// file sets none, relative to the file that sets them; a file's own
// setting replaces its base's whole (pyright 1.1.414's reading). Covers
// once read only the file's own, so a file a base excluded was taken as
// checked by the command line, which skipped it.
func TestCoversThroughExtends(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"a/pyrightconfig.json": `{"extends": "../configs/base.json"}`,
		"configs/base.json":    `{"exclude": ["../a/legacy"], "extends": "./root.json"}`,
		"configs/root.json":    `{"include": ["../a/src", "../a/legacy"]}`,
		"b/pyrightconfig.json": `{"extends": "../configs/base.json", "exclude": ["gen"]}`,
		"c/pyproject.toml":     "[tool.pyright]\nextends = \"../configs/loop.json\"\n",
		"configs/loop.json":    `{"extends": "./loop.json", "exclude": ["../c/old"]}`,
		"a/src/m.py":           "",
		"a/legacy/old.py":      "",
		"a/tools/t.py":         "",
		"b/gen/g.py":           "",
		"b/legacy/x.py":        "",
		"d/pyrightconfig.json": `{"extends": "../../shared/base.json"}`,
		"e/pyrightconfig.json": `{"extends": "` + filepath.Join(dir, "configs", "gen.json") + `"}`,
		"configs/gen.json":     `{"exclude": ["../e/gen"]}`,
	})
	for file, want := range map[string]bool{
		"a/src/m.py":      true,
		"a/legacy/old.py": false, // the base's exclude
		"a/tools/t.py":    false, // the base's base's include
		"b/gen/g.py":      false, // b's own exclude
		"b/legacy/x.py":   false, // the base's include names a/ only
		"c/old/o.py":      false, // a chain that loops: its scope is not known
		"c/new/n.py":      false,
		"d/x.py":          false, // a base outside the workspace: not known
		"e/x.py":          true,  // an absolute path inside it
		"e/gen/g.py":      false,
	} {
		if got := Nearest(dir, file).Covers(file); got != want {
			t.Errorf("%s: covered %v, want %v", file, got, want)
		}
	}
}
