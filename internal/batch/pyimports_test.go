package batch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// pyright's record as 1.1.414 prints it: the diagnostics (a file's
// header line among them), then each program file's lists, then the
// files not imported, which close it.
const pyrightRecord = `No configuration file found.
/ws/app/bad.py
  /ws/app/bad.py:1:1 - error: Import "nope" could not be resolved (reportMissingImports)
1 error, 0 warnings, 0 informations
Completed in 0.8sec
app/main.py
 Imports     3 files
    file:///usr/lib/pyright/typeshed-fallback/stdlib/builtins.pyi
    file:///ws/sp%20ace/helper.py
    file:///ws/pkg/a.py
 Imported by 0 files
pkg/a.py
 Imports     1 file
    file:///usr/lib/pyright/typeshed-fallback/stdlib/builtins.pyi
 Imported by 2 files
    file:///ws/app/main.py
    file:///ws/tools/run.py

1 file not explicitly imported
    file:///ws/app/main.py
`

func TestParsePyrightImports(t *testing.T) {
	for _, tc := range []struct {
		name     string
		out      string
		want     map[string][]string
		complete bool
	}{
		{"a record", pyrightRecord, map[string][]string{
			"/ws/app/main.py":  {"/usr/lib/pyright/typeshed-fallback/stdlib/builtins.pyi", "/ws/sp ace/helper.py", "/ws/pkg/a.py"},
			"/ws/pkg/a.py":     {"/usr/lib/pyright/typeshed-fallback/stdlib/builtins.pyi"},
			"/ws/tools/run.py": {"/ws/pkg/a.py"},
		}, true},
		{"cut short", pyrightRecord[:len(pyrightRecord)/2], nil, false},
		{"no record (a run without --verbose)", "0 errors, 0 warnings, 0 informations\n", map[string][]string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, complete := ParsePyrightImports([]byte(tc.out), "/ws")
			if complete != tc.complete {
				t.Fatalf("complete = %v, want %v", complete, tc.complete)
			}
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("imports = %v\nwant      %v", got, tc.want)
			}
		})
	}
}

// Whatever pyright prints, every path read is absolute and clean.
func FuzzParsePyrightImports(f *testing.F) {
	f.Add(pyrightRecord)
	f.Add("x.py\n Imports 1 file\n    file:///../../etc/passwd\n1 file not explicitly imported\n")
	f.Add("../up.py\n Imported by 1 file\n    file://host/a.py\n")
	f.Fuzz(func(t *testing.T, out string) {
		imports, _ := ParsePyrightImports([]byte(out), "/ws")
		for from, targets := range imports {
			for _, p := range append([]string{from}, targets...) {
				if !filepath.IsAbs(p) || filepath.Clean(p) != p {
					t.Fatalf("path %q is not absolute and clean", p)
				}
			}
		}
	})
}

// pyright's record is what pyright resolves, sealed: a namespace package
// a virtual environment's .pth file adds to the path (an editable
// install), which no file of the workspace names, and a script's own
// folder.
func TestImportsAsPyrightResolves(t *testing.T) {
	cli := filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin", "pyright")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("pyright is not installed (scripts/install-servers.sh): %v", err)
	}
	ws := testfs.Tree(t, map[string]string{
		"pyrightconfig.json": `{"venvPath": ".", "venv": ".venv"}`,
		".venv/pyvenv.cfg":   "home = /usr/bin\n",
		"extra/nspkg/mod.py": "def f() -> int:\n    return 1\n",
		"app/main.py":        "from nspkg.mod import f\n\nx: int = f()\n",
		"tools/main.py":      "import helper\n\nhelper.g()\n",
		"tools/helper.py":    "def g() -> None:\n    pass\n",
	})
	testfs.Write(t, ws, map[string]string{".venv/lib/python3.11/site-packages/extra.pth": filepath.Join(ws, "extra") + "\n"})
	policy := execpolicy.New(execpolicy.Options{Root: ws, Trusted: false, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}})
	c := New(ws, Tool{Kind: Pyright, Argv: []string{cli}, Label: "pyright"}, t.TempDir(), policy)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	imports, err := c.Imports(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"app/main.py": "extra/nspkg/mod.py", "tools/main.py": "tools/helper.py"} {
		if !slices.Contains(imports[filepath.Join(ws, from)], filepath.Join(ws, to)) {
			t.Errorf("%s → %s not recorded: %v", from, to, imports)
		}
	}
}
