package reach

import (
	"context"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A change that keeps every interface is answered without the import
// graph, and only such a change: each row is a change the short way must
// refuse (the long way then decides), or one it takes, with no dependant.
func TestOnlyAChangeThatKeepsEveryInterfaceSkipsTheGraph(t *testing.T) {
	project := map[string]string{
		"tsconfig.json":       `{"compilerOptions": {"allowJs": true, "resolveJsonModule": true}}`,
		"src/lib.ts":          "export function f(): number { return 1; }\n",
		"src/user.ts":         "import { f } from \"./lib\";\nimport { g } from \"./nowhere\";\nconsole.log(f(), g);\n",
		"src/global.ts":       "export {};\ndeclare global { var g: number }\nexport function h(): number { return 1; }\n",
		"src/data.json":       `{"a": 1}`,
		"src/script.js":       "var s = 1;\n",
		"src/cjs.js":          "module.exports = { a: 1 };\n",
		"pkg/__init__.py":     "",
		"pkg/core.py":         "def run() -> int:\n    return 1\n",
		"app/main.py":         "from pkg.core import run\nprint(run())\n",
		"c/h.h":               "int f(void);\n",
		"c/m.c":               "#include \"h.h\"\nint main(void) { return f(); }\n",
		"node_modules/x/i.ts": "export const x = 1;\n",
	}
	for _, tc := range []struct {
		name, file, after string
		created, deleted  bool
		kept              bool
	}{
		{name: "a body edit", file: "src/lib.ts", after: "export function f(): number { return 2; }\n", kept: true},
		{name: "a comment", file: "src/lib.ts", after: "// one\nexport function f(): number { return 1; }\n", kept: true},
		{name: "a Python body edit", file: "pkg/core.py", after: "def run() -> int:\n    return 2\n", kept: true},
		{name: "a signature", file: "src/lib.ts", after: "export function f(x = 1): number { return x; }\n"},
		{name: "a new export", file: "src/lib.ts", after: "export function f(): number { return 1; }\nexport const k = 1;\n"},
		{name: "a Python signature", file: "pkg/core.py", after: "def run(n: int) -> int:\n    return n\n"},
		{name: "a body edit beside declare global", file: "src/global.ts", after: "export {};\ndeclare global { var g: number }\nexport function h(): number { return 2; }\n"},
		{name: "a script's body", file: "src/script.js", after: "var s = 2;\n"},
		{name: "CommonJS exports", file: "src/cjs.js", after: "module.exports = { a: 2 };\n"},
		{name: "a JSON value", file: "src/data.json", after: `{"a": 2}`},
		{name: "a C header", file: "c/h.h", after: "int f(void); /* one */\n"},
		{name: "an installed package's file", file: "node_modules/x/i.ts", after: "export const x = 1; // one\n"},
		{name: "a created file", file: "src/new.ts", after: "export const n = 1;\n", created: true},
		{name: "a deleted file", file: "src/lib.ts", deleted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, project)
			root, parser, snap := scanned(t, dir)
			ch := &changeset.Change{Path: tc.file, Delete: tc.deleted}
			if !tc.created {
				if err := ch.ReadBase(root); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.deleted {
				ch.Content = []byte(tc.after)
			}
			d, err := New(root, parser).Dependants(context.Background(), snap, []*changeset.Change{ch}, 100)
			if err != nil {
				t.Fatal(err)
			}
			if d.InterfacesKept != tc.kept {
				t.Errorf("interfaces kept: %t, want %t (dependants %v)", d.InterfacesKept, tc.kept, d.Files)
			}
			if d.InterfacesKept && len(d.Files) > 0 {
				t.Errorf("interfaces kept, yet dependants %v", d.Files)
			}
		})
	}
}
