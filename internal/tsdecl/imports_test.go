package tsdecl

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

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
	rec, err := e.Imports(ctx, abs("tsconfig.json"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"./a→src/a.ios.ts", "./b→src/b.ts", "./c→src/c.ios.ts", "lib→shared/index.ts"}
	if got := targets(rec); !slices.Equal(got, want) {
		t.Errorf("on disk: %v, want %v", got, want)
	}
	created, gone := "export const b = 2;\n", (*string)(nil)
	rec, err = e.Imports(ctx, abs("tsconfig.json"), dir, map[string]*string{abs("src/b.ios.ts"): &created, abs("src/c.ios.ts"): gone})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"./a→src/a.ios.ts", "./b→src/b.ios.ts", "./c→src/c.ts", "lib→shared/index.ts"}
	if got := targets(rec); !slices.Equal(got, want) {
		t.Errorf("on the changed tree: %v, want %v", got, want)
	}
	// A configuration TypeScript cannot read is an error, never an empty record.
	if _, err := e.Imports(ctx, abs("missing/tsconfig.json"), dir, nil); err == nil {
		t.Error("a missing configuration gave a record")
	}
}
