package reach

import (
	"context"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A changed file the scan does not hold (a .gitignored generated file, an
// installed package's file) is a node of the graph like any other: its
// importers are found, or, where the graph cannot know them (installed
// packages are not read), every file of its language is a dependant.
// Either way the graph never fails on it.
func TestChangesOutsideTheScan(t *testing.T) {
	files := map[string]string{
		".gitignore":                     "src/gen/\n",
		"tsconfig.json":                  `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
		"src/gen/api.ts":                 "export interface Api { id: number }\n",
		"src/main.ts":                    "import { Api } from \"./gen/api\";\nexport const a: Api = { id: 1 };\n",
		"src/other.ts":                   "export const other = 1;\n",
		"src/uses_lib.ts":                "import { lib } from \"lib\";\nexport const l: number = lib;\n",
		"node_modules/lib/package.json":  `{"name": "lib", "types": "index.d.ts"}`,
		"node_modules/lib/index.d.ts":    "export declare const lib: number;\n",
		"pyrightconfig.json":             `{"include": ["app"]}`,
		"app/main.py":                    "print(1)\n",
		".venv/pyvenv.cfg":               "home = /usr/bin\n",
		".venv/lib/site-packages/dep.py": "X: int = 1\n",
	}
	dir := t.TempDir()
	testfs.Write(t, dir, files)
	root, parser, snap := scanned(t, dir)
	for _, rel := range []string{"src/gen/api.ts", "node_modules/lib/index.d.ts"} {
		if _, ok := snap[rel]; ok {
			t.Fatalf("the scan holds %s: the case tests nothing", rel)
		}
	}
	for _, tc := range []struct {
		name, file, content string
		want                []string
	}{
		{"an ignored generated file's importers", "src/gen/api.ts", "export interface Api { id: string }\n", []string{"src/main.ts"}},
		{"an installed package's file reaches its language", "node_modules/lib/index.d.ts", "export declare const lib: string;\n",
			// JSON files are of the language too (resolveJsonModule).
			[]string{"pyrightconfig.json", "src/main.ts", "src/other.ts", "src/uses_lib.ts", "tsconfig.json"}},
		{"a deleted ignored file", "src/gen/api.ts", "", []string{"src/main.ts"}},
		{"an installed Python module", ".venv/lib/site-packages/dep.py", "X: str = ''\n", []string{"app/main.py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &changeset.Change{Path: tc.file}
			if err := c.ReadBase(root); err != nil {
				t.Fatal(err)
			}
			c.Content, c.Delete = []byte(tc.content), tc.content == ""
			if c.Delete {
				c.Content = nil
			}
			d, err := New(root, parser).Dependants(context.Background(), snap, []*changeset.Change{c}, 100)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(slices.Values(d.Files)); !slices.Equal(got, tc.want) {
				t.Errorf("dependants %v, want %v", got, tc.want)
			}
		})
	}
}
