package tsconfig

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestStripJSONC(t *testing.T) {
	in := `{
  // a comment with "quotes" and a, comma
  "a": "http://x/*y*/", /* block
  comment */ "b": [1, 2,],
  "c": {"d": "\"//",},
}`
	var v map[string]any
	if err := json.Unmarshal(StripJSONC([]byte(in)), &v); err != nil {
		t.Fatalf("%v\n%s", err, StripJSONC([]byte(in)))
	}
	if v["a"] != "http://x/*y*/" || len(v["b"].([]any)) != 2 || v["c"].(map[string]any)["d"] != `"//` {
		t.Fatalf("got %v", v)
	}
}

func TestLoadAndIncludes(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"node_modules/@tsconfig/strictest/tsconfig.json": `{"compilerOptions": {"strict": true, "allowJs": true}}`,
		"base.json": `{
			"extends": "@tsconfig/strictest/tsconfig.json",
			"compilerOptions": {"baseUrl": "./src", "paths": {"@app/*": ["app/*"], "cfg": ["../config/index.ts"]}},
			"include": ["src/**/*", "types"],
			"exclude": ["src/**/*.test.ts", "dist"],
		}`,
		"tsconfig.json":              `{"extends": "./base", "compilerOptions": {"outDir": "out", "rootDirs": ["src", "generated"]}}`,
		"packages/web/tsconfig.json": `{"compilerOptions": {}, "files": ["main.ts"], "references": [{"path": "../lib"}]}`,
		"packages/lib/tsconfig.json": `{"include": ["src"]}`,
	})
	c, err := Load(filepath.Join(root, "tsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	if c.BaseURL != abs("src") || c.Paths["@app/*"][0] != abs("src/app/*") || c.Paths["cfg"][0] != abs("config/index.ts") {
		t.Errorf("baseUrl %s, paths %v", c.BaseURL, c.Paths)
	}
	if !c.AllowJS || c.OutDir != abs("out") || len(c.RootDirs) != 2 || c.RootDirs[1] != abs("generated") {
		t.Errorf("options: %+v", c)
	}
	for p, want := range map[string]bool{
		"src/a.ts": true, "src/deep/b.tsx": true, "src/c.js": true, "types/g.d.ts": true,
		"src/a.test.ts": false, "src/.hidden/x.ts": false, "src/node_modules/m/i.ts": false,
		"src/readme.md": false, "other/a.ts": false, "dist/a.ts": false,
	} {
		if got := c.Includes(abs(p)); got != want {
			t.Errorf("Includes(%s) = %v, want %v", p, got, want)
		}
	}

	ps := NewProjects(root)
	if o := ps.Owner(abs("packages/web/main.ts")); o == nil || o.Path != abs("packages/web/tsconfig.json") {
		t.Errorf("owner of web/main.ts: %+v", o)
	}
	// web's tsconfig.json names only main.ts; lib/src/x.ts is owned by
	// lib's project, found nearest.
	if o := ps.Owner(abs("packages/lib/src/x.ts")); o == nil || o.Path != abs("packages/lib/tsconfig.json") {
		t.Errorf("owner of lib/src/x.ts: %+v", o)
	}
	// Neither web's files, lib's include nor the root's include covers it.
	if o := ps.Owner(abs("packages/web/other.ts")); o != nil {
		t.Errorf("owner of web/other.ts: %s, want none", o.Path)
	}
}

// A solution-style tsconfig.json (no files of its own, only references)
// owns nothing; the referenced project that includes a file does.
func TestSolutionStyle(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"tsconfig.json":      `{"files": [], "references": [{"path": "./tsconfig.app.json"}, {"path": "./tsconfig.test.json"}]}`,
		"tsconfig.app.json":  `{"include": ["src"], "exclude": ["src/**/*.spec.ts"]}`,
		"tsconfig.test.json": `{"include": ["src/**/*.spec.ts"]}`,
	})
	ps := NewProjects(root)
	for file, want := range map[string]string{"src/a.ts": "tsconfig.app.json", "src/a.spec.ts": "tsconfig.test.json"} {
		o := ps.Owner(filepath.Join(root, file))
		if o == nil || filepath.Base(o.Path) != want {
			t.Errorf("owner of %s: %v, want %s", file, o, want)
		}
	}
}
