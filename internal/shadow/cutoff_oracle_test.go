package shadow

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/tsdecl"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// The cut-off held to the batch checker on the shapes an adversarial user
// would try: each case is a small project and a change that breaks a file
// through text a shape could leave out (a constructor body, JSDoc, a type
// comment, an augmentation, a `global` assignment, …) or through an effect
// that travels outside the imports. The batch checker (tsc, the pyright
// command line) says which files gain an error; every one of them must be
// a changed file or a dependant. Each case also asserts that the change
// really breaks another file, so a case cannot pass by breaking nothing.

const oracleTSConfig = `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
	"moduleResolution": "bundler", "lib": ["es2022"], "allowJs": true, "checkJs": true, "skipLibCheck": true}, "include": ["src"]}`

const oraclePyright = `{"typeCheckingMode": "standard", "include": ["pkg"]}`

type oracleCase struct {
	name string
	// files is the project before the change (a tsconfig.json or
	// pyrightconfig.json is added by kind); change maps each changed file
	// to its new content.
	files, change map[string]string
}

var tsOracleCases = []oracleCase{
	{"a field's type inferred from the constructor",
		map[string]string{
			"src/a.ts": "export class A {\n  x;\n  constructor() {\n    this.x = 1;\n  }\n}\n",
			"src/b.ts": "import { A } from \"./a\";\nnew A().x.toFixed();\n",
		},
		map[string]string{"src/a.ts": "export class A {\n  x;\n  constructor() {\n    this.x = \"s\";\n  }\n}\n"}},
	{"a static field's type inferred from a static block",
		map[string]string{
			"src/a.ts": "export class A {\n  static y;\n  static {\n    this.y = 1;\n  }\n}\n",
			"src/b.ts": "import { A } from \"./a\";\nA.y.toFixed();\n",
		},
		map[string]string{"src/a.ts": "export class A {\n  static y;\n  static {\n    this.y = \"s\";\n  }\n}\n"}},
	{"JSDoc is the type in JavaScript",
		map[string]string{
			"src/a.js": "/**\n * @param {number} n\n * @returns {number}\n */\nexport function f(n) {\n  return n;\n}\n",
			"src/b.ts": "import { f } from \"./a.js\";\nconst r: number = f(1);\nconsole.log(r);\n",
		},
		map[string]string{"src/a.js": "/**\n * @param {number} n\n * @returns {string}\n */\nexport function f(n) {\n  return n;\n}\n"}},
	{"a JSDoc @type on a JavaScript export",
		map[string]string{
			"src/a.js": "/** @type {number} */\nexport let n = 1;\n",
			"src/b.ts": "import { n } from \"./a.js\";\nn.toFixed();\n",
		},
		map[string]string{"src/a.js": "/** @type {string} */\nexport let n = 1;\n"}},
	{"a JSDoc @typedef in JavaScript is an export",
		map[string]string{
			"src/a.js": "/** @typedef {{ v: number }} T */\nexport const k = 1;\n",
			"src/b.ts": "import type { T } from \"./a.js\";\ndeclare const t: T;\nt.v.toFixed();\n",
		},
		map[string]string{"src/a.js": "/** @typedef {{ v: string }} T */\nexport const k = 1;\n"}},
	{"a type imported inside JSDoc",
		map[string]string{
			"src/a.ts": "export interface T { v: number }\n",
			"src/b.js": "/** @param {import(\"./a\").T} t */\nexport function g(t) {\n  return t.v.toFixed();\n}\n",
		},
		map[string]string{"src/a.ts": "export interface T { v: string }\n"}},
	{"a type imported in a type position",
		map[string]string{
			"src/a.ts": "export interface T { v: number }\n",
			"src/b.ts": "export function g(t: import(\"./a\").T): string {\n  return t.v.toFixed();\n}\n",
		},
		map[string]string{"src/a.ts": "export interface T { v: string }\n"}},
	{"an augmentation of a relative module",
		map[string]string{
			"src/a.ts": "export interface Opts { base: number }\n",
			"src/c.ts": "export {};\ndeclare module \"./a\" {\n  interface Opts { extra: number }\n}\n",
			"src/b.ts": "import type { Opts } from \"./a\";\ndeclare const o: Opts;\no.extra.toFixed();\n",
		},
		map[string]string{"src/c.ts": "export {};\ndeclare module \"./a\" {\n  interface Opts { extra: string }\n}\n"}},
	{"declare global in a module",
		map[string]string{
			"src/g.ts": "export {};\ndeclare global {\n  var anvilG: number;\n}\n",
			"src/b.ts": "anvilG.toFixed();\nexport {};\n",
		},
		map[string]string{"src/g.ts": "export {};\ndeclare global {\n  var anvilG: string;\n}\n"}},
	{"a triple-slash lib reference removed",
		map[string]string{
			"src/a.ts": "/// <reference lib=\"dom\" />\nexport const k = 1;\n",
			"src/b.ts": "export const t: string = document.title;\n",
		},
		map[string]string{"src/a.ts": "export const k = 1;\n"}},
	{"an expando property of a JavaScript function",
		map[string]string{
			"src/a.js": "export function f() {}\nf.x = 1;\n",
			"src/b.ts": "import { f } from \"./a.js\";\nf.x.toFixed();\n",
		},
		map[string]string{"src/a.js": "export function f() {}\nf.x = \"s\";\n"}},
	{"a JavaScript method that declares a property",
		map[string]string{
			"src/a.js": "export class A {\n  init() {\n    this.y = 1;\n  }\n}\n",
			"src/b.ts": "import { A } from \"./a.js\";\nnew A().y.toFixed();\n",
		},
		map[string]string{"src/a.js": "export class A {\n  init() {\n    this.y = \"s\";\n  }\n}\n"}},
	{"an expando property set by an annotated function's body",
		map[string]string{
			"src/a.ts": "export function f(): void {}\nexport function setup(): void {}\nf.x = 1;\n",
			"src/b.ts": "import { f } from \"./a\";\nf.x.toFixed();\n",
		},
		map[string]string{"src/a.ts": "export function f(): void {}\nexport function setup(): void {}\nf.x = \"s\";\n"}},
	{"moduleSuffixes: ./a is a.ios.ts first",
		map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
	"moduleResolution": "bundler", "lib": ["es2022"], "skipLibCheck": true, "moduleSuffixes": [".ios", ""]}, "include": ["src"]}`,
			"src/a.ios.ts": "export const n: number = 1;\n",
			"src/a.ts":     "export const n: number = 2;\n",
			"src/b.ts":     "import { n } from \"./a\";\nexport const m: number = n;\n",
		},
		map[string]string{"src/a.ios.ts": "export const n: string = \"1\";\n"}},
	{"a declaration file beside its JavaScript",
		map[string]string{
			"src/a.js":   "export const n = 1;\n",
			"src/a.d.ts": "export declare const n: number;\n",
			"src/b.ts":   "import { n } from \"./a.js\";\nexport const m: number = n;\n",
		},
		map[string]string{"src/a.d.ts": "export declare const n: string;\n"}},
	{"an export made type-only",
		map[string]string{
			"src/a.ts": "export class Store {\n  n: number = 1;\n}\n",
			"src/b.ts": "import { Store } from \"./a\";\nexport const s = new Store();\n",
		},
		map[string]string{"src/a.ts": "class Store {\n  n: number = 1;\n}\nexport type { Store };\n"}},
	{"a re-export made type-only by its import",
		map[string]string{
			"src/a.ts": "export class Store {\n  n: number = 1;\n}\n",
			"src/r.ts": "import { Store } from \"./a\";\nexport { Store };\n",
			"src/b.ts": "import { Store } from \"./r\";\nexport const s = new Store();\n",
		},
		map[string]string{"src/r.ts": "import type { Store } from \"./a\";\nexport { Store };\n"}},
	{"a private member's type, read by an element access",
		map[string]string{
			"src/a.ts": "export class A {\n  private x: number = 1;\n}\n",
			"src/b.ts": "import { A } from \"./a\";\nexport const v: number = new A()[\"x\"];\n",
		},
		map[string]string{"src/a.ts": "export class A {\n  private x: string = \"1\";\n}\n"}},
}

var pyOracleCases = []oracleCase{
	{"a module variable assigned through global",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "X = 0\n\n\ndef init() -> None:\n    global X\n    X = 5\n",
			"pkg/b.py":        "from pkg.a import X\n\nprint(X + 1)\n",
		},
		map[string]string{"pkg/a.py": "X = 0\n\n\ndef init() -> None:\n    global X\n    X = \"s\"\n"}},
	{"global inside a nested function",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "X = 0\n\n\ndef outer() -> None:\n    def inner():\n        global X\n        X = 5\n\n    inner()\n",
			"pkg/b.py":        "from pkg.a import X\n\nprint(X + 1)\n",
		},
		map[string]string{"pkg/a.py": "X = 0\n\n\ndef outer() -> None:\n    def inner():\n        global X\n        X = \"s\"\n\n    inner()\n"}},
	{"a function's type comment",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "def f(a):  # type: (int) -> int\n    return a\n",
			"pkg/b.py":        "from pkg.a import f\n\nprint(f(1) + 1)\n",
		},
		map[string]string{"pkg/a.py": "def f(a):  # type: (int) -> str\n    return str(a)\n"}},
	{"a variable's type comment",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "X = []  # type: list[int]\n",
			"pkg/b.py":        "from pkg.a import X\n\nprint(X[0] + 1)\n",
		},
		map[string]string{"pkg/a.py": "X = []  # type: list[str]\n"}},
	{"an attribute declared by a method under if in the class body",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "import sys\n\n\nclass A:\n    if sys.version_info >= (3, 0):\n\n        def setup(self) -> None:\n            self.x = 1\n",
			"pkg/b.py":        "from pkg.a import A\n\nprint(A().x + 1)\n",
		},
		map[string]string{"pkg/a.py": "import sys\n\n\nclass A:\n    if sys.version_info >= (3, 0):\n\n        def setup(self) -> None:\n            self.x = \"s\"\n"}},
	{"__all__ extended by append, read by a star import",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "def f() -> int:\n    return 1\n\n\ndef _g() -> int:\n    return 2\n\n\n__all__ = [\"f\"]\n__all__.append(\"_g\")\n",
			"pkg/b.py":        "from pkg.a import *\n\nprint(_g())\n",
		},
		map[string]string{"pkg/a.py": "def f() -> int:\n    return 1\n\n\ndef _g() -> int:\n    return 2\n\n\n__all__ = [\"f\"]\n"}},
	{"a module-level walrus binding",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "print(Y := 1)\n",
			"pkg/b.py":        "from pkg.a import Y\n\nprint(Y + 1)\n",
		},
		map[string]string{"pkg/a.py": "print(Y := \"s\")\n"}},
	{"a stub beside its source",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "def f():\n    return 1\n",
			"pkg/a.pyi":       "def f() -> int: ...\n",
			"pkg/b.py":        "from pkg.a import f\n\nprint(f() + 1)\n",
		},
		map[string]string{"pkg/a.pyi": "def f() -> str: ...\n"}},
	{"an attribute set through setattr-free augmented assignment in a method",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "class A:\n    def __init__(self) -> None:\n        self.n = 0\n\n    def bump(self) -> None:\n        self.n += 1\n",
			"pkg/b.py":        "from pkg.a import A\n\nprint(A().n.bit_length())\n",
		},
		map[string]string{"pkg/a.py": "class A:\n    def __init__(self) -> None:\n        self.n = 0\n\n    def bump(self) -> None:\n        self.n = \"s\"\n"}},
	{"a module from the importing script's own folder",
		map[string]string{
			"pyrightconfig.json": `{"typeCheckingMode": "standard", "include": ["tools"]}`,
			"tools/helper.py":    "def make() -> int:\n    return 1\n",
			"tools/main.py":      "from helper import make\n\nprint(make() + 1)\n",
		},
		map[string]string{"tools/helper.py": "def make() -> str:\n    return \"1\"\n"}},
	{"a string annotation is a reference",
		map[string]string{
			"pkg/__init__.py": "",
			"pkg/a.py":        "class Widget:\n    def __add__(self, other: int) -> int:\n        return other\n\n\ndef make() -> \"Widget\":\n    return Widget()\n",
			"pkg/b.py":        "from pkg.a import make\n\nprint(make() + 1)\n",
		},
		map[string]string{"pkg/a.py": "class Widget:\n    pass\n\n\ndef make() -> \"Widget\":\n    return Widget()\n"}},
}

func TestCutoffHeldToBatchChecker(t *testing.T) {
	tsc := tscErrors(toolsBinary(t, "tsc"), false)
	pyright := pyrightErrors(toolsBinary(t, "pyright"))
	decl := declarationEmitter(t)
	run := func(t *testing.T, c oracleCase, config map[string]string, batch func(context.Context, string) ([]string, error)) {
		files := map[string]string{}
		for k, v := range config {
			files[k] = v
		}
		for k, v := range c.files {
			files[k] = v
		}
		gateDir, batchDir := t.TempDir(), t.TempDir()
		testfs.Write(t, gateDir, files)
		testfs.Write(t, batchDir, files)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		introduced := batchIntroduced(t, ctx, batchDir, c.change, batch)
		broken := map[string]bool{}
		for _, e := range introduced {
			file, _, _ := strings.Cut(e, ": ")
			broken[filepath.ToSlash(file)] = true
		}
		breaksOther := false
		for f := range broken {
			if _, changed := c.change[f]; !changed {
				breaksOther = true
			}
		}
		if !breaksOther {
			t.Fatalf("the case breaks no other file by the batch checker (new errors: %v)", introduced)
		}
		checked := cutoffChecked(t, ctx, gateDir, c.change, decl)
		for f := range broken {
			if !checked[f] {
				t.Errorf("the batch checker finds new errors in %s, which the cut-off leaves unchecked (checked: %v; errors: %v)", f, slices.Sorted(maps.Keys(checked)), introduced)
			}
		}
	}
	for _, c := range tsOracleCases {
		t.Run("ts/"+c.name, func(t *testing.T) {
			run(t, c, map[string]string{"tsconfig.json": oracleTSConfig, "package.json": `{"type": "module"}`}, tsc)
		})
	}
	for _, c := range pyOracleCases {
		t.Run("py/"+c.name, func(t *testing.T) {
			run(t, c, map[string]string{"pyrightconfig.json": oraclePyright}, pyright)
		})
	}
}

// declarationEmitter is TypeScript's declaration emitter from Anvil's
// tools directory, which the cut-off asks as the gate does.
func declarationEmitter(t *testing.T) *tsdecl.Emitter {
	t.Helper()
	e := tsdecl.Find(tsdecl.FindOptions{ToolsDir: servers.DefaultToolsDir(os.Getenv), Path: os.Getenv("PATH")})
	if e == nil {
		t.Fatal("no TypeScript 6 in Anvil's tools directory, or no node: run scripts/install-servers.sh")
	}
	t.Cleanup(e.Close)
	return e
}

// batchIntroduced runs the batch checker on dir before and after the
// change and returns the errors the change introduces.
func batchIntroduced(t *testing.T, ctx context.Context, dir string, change map[string]string, errorsOf func(context.Context, string) ([]string, error)) []string {
	t.Helper()
	before, err := errorsOf(ctx, dir)
	if err != nil {
		t.Fatalf("batch checker before the change: %v", err)
	}
	applyChanges(t, dir, change)
	after, err := errorsOf(ctx, dir)
	if err != nil {
		t.Fatalf("batch checker after the change: %v", err)
	}
	return batch.NewErrors(before, after)
}

// cutoffChecked returns the files a validation of change would check: the
// changed files and the dependants the import graph's cut-off finds.
func cutoffChecked(t *testing.T, ctx context.Context, dir string, change map[string]string, decl *tsdecl.Emitter) map[string]bool {
	t.Helper()
	root, parser, snap := scanned(t, dir)
	var changes []*changeset.Change
	checked := map[string]bool{}
	for rel, content := range change {
		ch := &changeset.Change{Path: rel}
		if err := ch.ReadBase(root); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		ch.Content = []byte(content)
		changes = append(changes, ch)
		checked[rel] = true
	}
	d, err := reach.New(root, parser).WithTypeScript(decl).WithImportRecords(decl).Dependants(ctx, snap.Files, changes, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Files {
		checked[f] = true
	}
	return checked
}

// Where TypeScript's declaration emit is complete, it decides: a change
// the shape sees (a local helper's type) but the compiler's interface
// does not reaches no importer, and the batch checker agrees; where the
// emit needs inference, the shape decides. A private member's type is
// the importer's business (`new A()["n"]`) though the emit drops it.
func TestCutoffAsksTheCompiler(t *testing.T) {
	tsc := tscErrors(toolsBinary(t, "tsc"), false)
	decl := declarationEmitter(t)
	cases := []struct {
		name          string
		files, change map[string]string
		checked       bool // whether the importer src/b.ts must be checked
	}{
		{"a private field's type: the emit drops it, an importer can read it",
			map[string]string{
				"src/a.ts": "export class A {\n  private n: number = 1;\n  get(): number {\n    return 1;\n  }\n}\n",
				"src/b.ts": "import { A } from \"./a\";\nexport const v: number = new A().get();\n",
			},
			map[string]string{"src/a.ts": "export class A {\n  private n: string = \"1\";\n  get(): number {\n    return 1;\n  }\n}\n"}, true},
		{"a private method's body",
			map[string]string{
				"src/a.ts": "export class A {\n  private m(): number {\n    return 1;\n  }\n}\n",
				"src/b.ts": "import { A } from \"./a\";\nexport const v = new A();\n",
			},
			map[string]string{"src/a.ts": "export class A {\n  private m(): number {\n    return 2;\n  }\n}\n"}, false},
		{"a local helper only bodies use",
			map[string]string{
				"src/a.ts": "function helper(): number {\n  return 1;\n}\nexport function f(): number {\n  return helper();\n}\nexport const k: (x: number) => number = (x) => x + helper();\n",
				"src/b.ts": "import { f } from \"./a\";\nexport const v: number = f();\n",
			},
			map[string]string{"src/a.ts": "function helper(): string {\n  return \"1\";\n}\nexport function f(): number {\n  return helper().length;\n}\nexport const k: (x: number) => number = (x) => x + helper().length;\n"}, false},
		{"an inferred type: the emit is incomplete, the shape decides",
			map[string]string{
				"src/a.ts": "export function f() {\n  return 1;\n}\n",
				"src/b.ts": "import { f } from \"./a\";\nexport const v: number = f();\n",
			},
			map[string]string{"src/a.ts": "export function f() {\n  return \"1\";\n}\n"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"tsconfig.json": oracleTSConfig, "package.json": `{"type": "module"}`}
			for k, v := range c.files {
				files[k] = v
			}
			gateDir, batchDir := t.TempDir(), t.TempDir()
			testfs.Write(t, gateDir, files)
			testfs.Write(t, batchDir, files)
			ctx := context.Background()
			checked := cutoffChecked(t, ctx, gateDir, c.change, decl)
			if checked["src/b.ts"] != c.checked {
				t.Errorf("the importer checked: %v, want %v", checked["src/b.ts"], c.checked)
			}
			for _, e := range batchIntroduced(t, ctx, batchDir, c.change, tsc) {
				if file, _, _ := strings.Cut(e, ": "); !checked[filepath.ToSlash(file)] {
					t.Errorf("the batch checker finds a new error in %s, unchecked: %s", file, e)
				}
			}
		})
	}
}

// scanned opens dir as a workspace, with a parser (closed with the test)
// and the scan of its files.
func scanned(t *testing.T, dir string) (*workspace.Root, *syntax.Parser, *Snapshot) {
	t.Helper()
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	parser := syntax.New(syntax.Options{})
	t.Cleanup(parser.Close)
	snap, err := Scan(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return root, parser, snap
}
