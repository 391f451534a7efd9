package tsdecl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The record is TypeScript's resolution, where Anvil's own would differ:
// a local package linked under node_modules by another name, a module
// suffix, and, on the tree an overlay makes, a created file that takes
// over a name and a deleted one that leaves it.
func TestImportsAsTheCompilerResolves(t *testing.T) {
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{
		"tsconfig.json":       `{"compilerOptions": {"strict": true, "noEmit": true, "module": "preserve", "moduleResolution": "bundler", "moduleSuffixes": [".ios", ""]}, "include": ["src", "shared"]}`,
		"shared/package.json": `{"name": "shared-lib", "types": "./index.ts"}`,
		"shared/index.ts":     "export const total = 1;\n",
		"src/app.ts":          "import { total } from \"lib\";\nimport { a } from \"./a\";\nimport { b } from \"./b\";\nimport { c } from \"./c\";\nexport const n = total + a + b + c;\n",
		"src/a.ios.ts":        "export const a = 1;\n",
		"src/b.ts":            "export const b = 1;\n",
		"src/c.ts":            "export const c = 1;\n",
		"src/c.ios.ts":        "export const c = 2;\n",
		"node_modules/lib":    "->../shared",
	}))
	if err != nil {
		t.Fatal(err)
	}
	e := emitter(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	abs := func(rel string) string { return filepath.Join(dir, rel) }
	app := abs("src/app.ts")
	targets := func(rec Imports) []string {
		var out []string
		for _, pair := range rec[app] {
			rel, _ := filepath.Rel(dir, pair[1])
			out = append(out, pair[0]+"→"+rel)
		}
		slices.Sort(out)
		return out
	}
	rec, err := e.Imports(ctx, abs("tsconfig.json"), dir, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"./a→src/a.ios.ts", "./b→src/b.ts", "./c→src/c.ios.ts", "lib→shared/index.ts"}
	if got := targets(rec); !slices.Equal(got, want) {
		t.Errorf("on disk: %v, want %v", got, want)
	}
	created, gone := "export const b = 2;\n", (*string)(nil)
	rec, err = e.Imports(ctx, abs("tsconfig.json"), dir, map[string]*string{abs("src/b.ios.ts"): &created, abs("src/c.ios.ts"): gone}, false)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"./a→src/a.ios.ts", "./b→src/b.ios.ts", "./c→src/c.ts", "lib→shared/index.ts"}
	if got := targets(rec); !slices.Equal(got, want) {
		t.Errorf("on the changed tree: %v, want %v", got, want)
	}
	// A file created, on the changed tree, behind the link the compiler
	// follows: the package's file, deleted on disk, comes back (the way
	// back of a session that deleted it).
	if err := os.Remove(abs("shared/index.ts")); err != nil {
		t.Fatal(err)
	}
	back := "export const total = 1;\n"
	rec, err = e.Imports(ctx, abs("tsconfig.json"), dir, map[string]*string{abs("shared/index.ts"): &back}, false)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"./a→src/a.ios.ts", "./b→src/b.ts", "./c→src/c.ios.ts", "lib→shared/index.ts"}
	if got := targets(rec); !slices.Equal(got, want) {
		t.Errorf("created behind a link: %v, want %v", got, want)
	}
	// A content change on disk, recorded with reuse: the changed file's
	// new import is resolved.
	testfs.Write(t, dir, map[string]string{"src/app.ts": "import { d } from \"./d\";\nexport const m = d;\n", "src/d.ios.ts": "export const d = 1;\n"})
	if _, err := e.Imports(ctx, abs("tsconfig.json"), dir, nil, false); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{"src/app.ts": "import { d } from \"./d\";\nimport { b } from \"./b\";\nexport const m = d + b;\n"})
	rec, err = e.Imports(ctx, abs("tsconfig.json"), dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"./b→src/b.ts", "./d→src/d.ios.ts"}
	if got := targets(rec); !slices.Equal(got, want) {
		t.Errorf("reused after a content change: %v, want %v", got, want)
	}
	// A configuration TypeScript cannot read is an error, never an empty record.
	if _, err := e.Imports(ctx, abs("missing/tsconfig.json"), dir, nil, false); err == nil {
		t.Error("a missing configuration gave a record")
	}
}

// BenchmarkImports records a project of 1,500 modules, each importing
// three others, as the gate asks after a file's content changed: the
// parsed files are kept; resolution runs again (fresh) or only for the
// changed file (reuse).
func BenchmarkImports(b *testing.B) {
	b.Run("fresh", func(b *testing.B) { benchmarkImports(b, false) })
	b.Run("reuse", func(b *testing.B) { benchmarkImports(b, true) })
}

func benchmarkImports(b *testing.B, reuse bool) {
	files := map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "module": "preserve", "moduleResolution": "bundler"}, "include": ["src"]}`}
	const n = 1500
	for i := range n {
		// Each imports modules of lower numbers (a tree of modest depth:
		// TypeScript follows imports depth first).
		a, c, d := i/2, i/3, i/5
		files[fmt.Sprintf("src/m%d.ts", i)] = fmt.Sprintf("import { v%d } from \"./m%d\";\nimport { v%d } from \"./m%d\";\nimport { v%d } from \"./m%d\";\nexport const v%d: number = v%d + v%d + v%d;\n",
			a, a, c, c, d, d, i, a, c, d)
	}
	dir := testfs.Tree(b, files)
	e := Find(FindOptions{ToolsDir: servers.DefaultToolsDir(os.Getenv), Path: os.Getenv("PATH")})
	if e == nil {
		b.Fatal("no TypeScript 6 in Anvil's tools directory, or no node")
	}
	b.Cleanup(e.Close)
	ctx := context.Background()
	start := time.Now()
	if _, err := e.Imports(ctx, filepath.Join(dir, "tsconfig.json"), dir, nil, false); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "cold-ms")
	b.ResetTimer()
	for i := range b.N {
		// One file changed on disk, as between two edits.
		testfs.Write(b, dir, map[string]string{"src/m0.ts": files["src/m0.ts"] + fmt.Sprintf("// %d\n", i)})
		if _, err := e.Imports(ctx, filepath.Join(dir, "tsconfig.json"), dir, nil, reuse); err != nil {
			b.Fatal(err)
		}
	}
}

// A triple-slash directive is a read: a referenced file and a types
// package resolved into the workspace are in the record, under the
// directive's kind.
func TestImportsHoldTripleSlashReferences(t *testing.T) {
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{
		"tsconfig.json":            `{"compilerOptions": {"strict": true, "noEmit": true, "typeRoots": ["./types"]}, "include": ["src"]}`,
		"src/app.ts":               "/// <reference path=\"./globals.d.ts\" />\n/// <reference types=\"extra\" />\nexport const n: number = G + X;\n",
		"src/globals.d.ts":         "declare const G: number;\n",
		"types/extra/index.d.ts":   "declare const X: number;\n",
		"types/extra/package.json": `{"name": "extra", "types": "index.d.ts"}`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	e := emitter(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := e.Imports(ctx, filepath.Join(dir, "tsconfig.json"), dir, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pair := range rec[filepath.Join(dir, "src/app.ts")] {
		rel, _ := filepath.Rel(dir, pair[1])
		got = append(got, pair[0]+"→"+rel)
	}
	slices.Sort(got)
	want := []string{"reference:./globals.d.ts→src/globals.d.ts", "types:extra→types/extra/index.d.ts"}
	if !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

// Recording a repository's imports runs none of its code: a tsconfig's
// language service plugins (which tsserver loads) and the repository's own
// TypeScript under node_modules are not loaded by a program build over
// Anvil's TypeScript, and a module the project imports is read, never
// run.
func TestImportsRunNothingOfTheRepository(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	payload := fmt.Sprintf("require('fs').writeFileSync(%q, 'ran');\nmodule.exports = () => ({ create: (i) => i.languageService });\n", marker)
	dir := testfs.Tree(t, map[string]string{
		"tsconfig.json":                             `{"compilerOptions": {"strict": true, "noEmit": true, "allowJs": true, "plugins": [{"name": "evil-plugin"}]}, "include": ["src"]}`,
		"node_modules/evil-plugin/package.json":     `{"name": "evil-plugin", "main": "index.js"}`,
		"node_modules/evil-plugin/index.js":         payload,
		"node_modules/typescript/package.json":      `{"name": "typescript", "version": "5.4.5", "main": "lib/typescript.js"}`,
		"node_modules/typescript/lib/typescript.js": payload,
		"src/run.js": payload,
		"src/app.ts": "import \"./run.js\";\nimport * as p from \"evil-plugin\";\nexport const n = p;\n",
	})
	e := emitter(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.Imports(ctx, filepath.Join(dir, "tsconfig.json"), dir, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("recording the imports ran the repository's code")
	}
}
