package reach

import (
	"context"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// cutoffProject is a small project with the shapes that decide the cut-off:
// a hub of types, a function whose return type is declared and one whose
// return type is inferred, a barrel, a namespace import, and a Python
// package whose __init__ re-exports.
var cutoffProject = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
	"src/types.ts":  "export interface User { id: string; name: string }\nexport interface Order { id: string; total: number }\n",
	"src/db.ts": "import { User, Order } from \"./types\";\n" +
		"export function findUser(id: string): User | undefined { return undefined; }\n" +
		"export function totals(orders: Order[]): number { return orders.reduce((a, o) => a + o.total, 0); }\n" +
		"export function label(id: string) { return `user ${id}`; }\n",
	"src/auth.ts":    "import { findUser } from \"./db\";\nexport function login(id: string): string { return findUser(id)?.name ?? \"\"; }\n",
	"src/report.ts":  "import { totals } from \"./db\";\nexport const sum: number = totals([]);\n",
	"src/badge.ts":   "import { label } from \"./db\";\nexport const badge = label(\"x\");\n",
	"src/page.ts":    "import { badge } from \"./badge\";\nexport const title: string = badge;\n",
	"src/index.ts":   "export * from \"./db\";\nexport * from \"./auth\";\n",
	"src/app.ts":     "import { login } from \"./index\";\nconsole.log(login(\"u\"));\n",
	"src/admin.ts":   "import { totals } from \"./index\";\nconsole.log(totals([]));\n",
	"src/ns.ts":      "import * as db from \"./db\";\nexport const n: number = db.totals([]);\n",
	"src/whole.ts":   "import * as db from \"./db\";\nexport const all = db;\n",
	"src/virtual.ts": "import { thing } from \"virtual:generated\";\nexport const v = thing;\n",

	"pyrightconfig.json":   `{"include": ["pkg", "app"]}`,
	"pkg/__init__.py":      "from .core import Command\nfrom . import helpers\n",
	"pkg/core.py":          "class Command:\n    def run(self) -> int:\n        return 1\n",
	"pkg/helpers.py":       "def fmt(x: int) -> str:\n    return str(x)\n\ndef width(x):\n    return len(x)\n",
	"app/main.py":          "from pkg import Command\n\nCommand().run()\n",
	"app/uses_helpers.py":  "from pkg import helpers\n\nhelpers.fmt(1)\n",
	"app/uses_width.py":    "import pkg.helpers\n\npkg.helpers.width('a')\n",
	"app/other_helpers.py": "from pkg import helpers\n\nhelpers.width('x')\n",
	"app/direct_fmt.py":    "from pkg.helpers import fmt\n\nfmt(1)\n",
	"app/direct_width.py":  "from pkg.helpers import width\n\nwidth('a')\n",
}

func TestCutoff(t *testing.T) {
	cases := []struct {
		name string
		file string
		edit func(string) string
		want []string // dependants, in any order
	}{
		{"a body-only edit reaches nobody", "src/db.ts",
			func(s string) string {
				return strings.Replace(s, "return undefined;", "const u = id; return undefined;", 1)
			}, nil},
		{"a comment reaches nobody", "src/types.ts",
			func(s string) string { return "// the model\n" + s }, nil},
		{"a member of one type reaches the users of that type and on through declared signatures", "src/types.ts",
			func(s string) string { return strings.Replace(s, "total: number", "total: string", 1) },
			[]string{"src/db.ts", "src/report.ts", "src/index.ts", "src/admin.ts", "src/ns.ts", "src/whole.ts", "src/virtual.ts"}},
		{"the other type's users are not reached", "src/types.ts",
			func(s string) string { return strings.Replace(s, "name: string", "name?: string", 1) },
			[]string{"src/db.ts", "src/auth.ts", "src/index.ts", "src/whole.ts", "src/virtual.ts"}},
		{"an inferred return type follows the body", "src/db.ts",
			func(s string) string { return strings.Replace(s, "return `user ${id}`;", "return id.length;", 1) },
			[]string{"src/badge.ts", "src/page.ts", "src/index.ts", "src/whole.ts", "src/virtual.ts"}},
		{"python: a method body with a declared return type", "pkg/core.py",
			func(s string) string { return strings.Replace(s, "return 1", "x = 2\n        return x", 1) }, nil},
		{"python: a signature reaches through the package's re-export", "pkg/core.py",
			func(s string) string {
				return strings.Replace(s, "def run(self) -> int", "def run(self, n: int) -> int", 1)
			},
			[]string{"pkg/__init__.py", "app/main.py"}},
		{"python: a submodule's member, used by attribute", "pkg/helpers.py",
			func(s string) string { return strings.Replace(s, "def fmt(x: int)", "def fmt(x: str)", 1) },
			// The package re-exports helpers without using it: not checked,
			// but what it re-exports changed.
			[]string{"app/uses_helpers.py", "app/uses_width.py", "app/other_helpers.py", "app/direct_fmt.py"}},
		{"python: an inferred return type", "pkg/helpers.py",
			func(s string) string { return strings.Replace(s, "return len(x)", "return str(x)", 1) },
			[]string{"app/uses_helpers.py", "app/uses_width.py", "app/other_helpers.py", "app/direct_width.py"}},
	}
	dir := t.TempDir()
	testfs.Write(t, dir, cutoffProject)
	ctx := context.Background()
	root, parser, snap := scanned(t, dir)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := &changeset.Change{Path: c.file}
			if err := ch.ReadBase(root); err != nil {
				t.Fatal(err)
			}
			ch.Content = []byte(c.edit(string(ch.Base)))
			if string(ch.Content) == string(ch.Base) {
				t.Fatal("the edit changed nothing")
			}
			g := New(root, parser)
			d, err := g.Dependants(ctx, snap, []*changeset.Change{ch}, 100)
			if err != nil {
				t.Fatal(err)
			}
			got, want := slices.Sorted(slices.Values(d.Files)), slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, want) {
				t.Errorf("dependants %v, want %v", got, want)
			}
			all, err := New(root, parser).WithoutCutoff().Dependants(ctx, snap, []*changeset.Change{ch}, 100)
			if err != nil {
				t.Fatal(err)
			}
			// Every file the full propagation reaches is either a
			// dependant or counted as unaffected.
			if d.InterfacesKept && len(d.Files) > 0 {
				t.Errorf("interfaces kept, yet %d dependants", len(d.Files))
			}
			if !d.InterfacesKept && d.Unaffected+len(d.Files) < len(all.Files) {
				t.Errorf("%d dependants + %d unaffected < %d importers", len(d.Files), d.Unaffected, len(all.Files))
			}
		})
	}
}

// A change the cut-off cannot decide name by name says so, with the
// reason, so the verdict can tell why every importer was checked.
func TestCutoffSaysWhyAFileIsOpaque(t *testing.T) {
	cases := []struct{ name, file, before, after, want string }{
		{"CommonJS exports", "src/cjs.js", "module.exports = { a: 1 };\n", "module.exports = { a: 2 };\n", "CommonJS"},
		{"a module-wide statement", "src/wide.ts", "export const a = 1;\nif (a) { console.log(a); }\n", "export const a = 1;\nif (a) { console.log(2); }\n", "module-wide"},
		{"declare global", "src/g.ts", "export {};\ndeclare global { var g: number }\n", "export {};\ndeclare global { var g: string }\n", "outside the imports"},
		{"a body-only edit is not opaque", "src/body.ts", "export function f(): number { return 1; }\n", "export function f(): number { return 2; }\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, map[string]string{"tsconfig.json": `{"compilerOptions": {"allowJs": true}}`, c.file: c.before, "src/user.ts": "import * as m from \"./" + strings.TrimSuffix(strings.TrimPrefix(c.file, "src/"), ".ts") + "\";\nconsole.log(m);\n"})
			ctx := context.Background()
			root, parser, snap := scanned(t, dir)
			ch := &changeset.Change{Path: c.file}
			if err := ch.ReadBase(root); err != nil {
				t.Fatal(err)
			}
			ch.Content = []byte(c.after)
			d, err := New(root, parser).Dependants(ctx, snap, []*changeset.Change{ch}, 100)
			if err != nil {
				t.Fatal(err)
			}
			got := d.Opaque[c.file]
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("opaque reason %q, want one with %q", got, c.want)
			}
		})
	}
}

// scanned opens dir as a workspace, with a parser (closed with the test)
// and its files as a scan keeps them.
func scanned(t *testing.T, dir string) (*workspace.Root, *syntax.Parser, Files) {
	t.Helper()
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	parser := syntax.New(syntax.Options{})
	t.Cleanup(parser.Close)
	return root, parser, scanFiles(t, root)
}

// scanFiles lists root's files the way the validator's scan does: what
// the ignore rules keep, outside installed packages.
func scanFiles(t *testing.T, root *workspace.Root) Files {
	t.Helper()
	files := Files{}
	start, err := root.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	err = root.Walk(context.Background(), start, workspace.WalkOptions{}, func(e workspace.Entry) error {
		switch {
		case e.IsDir() && workspace.IsDependencyDir(e.Abs):
			return fs.SkipDir
		case e.Mode.IsRegular():
			info, err := os.Stat(e.Abs)
			if err != nil {
				return err
			}
			files[e.Rel] = FileStat{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Abs: e.Abs}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
