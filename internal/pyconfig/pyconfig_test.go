package pyconfig

import (
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
