package resolve

import (
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

func workspace(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	root := testfs.Tree(t, files)
	var rels []string
	for f := range files {
		rels = append(rels, f)
	}
	return New(root, rels, tsconfig.NewProjects(root))
}

func TestECMA(t *testing.T) {
	w := workspace(t, map[string]string{
		"package.json":        `{"name": "mono", "private": true, "workspaces": ["packages/*"], "devDependencies": {"vitest": "^3"}}`,
		"tsconfig.json":       `{"compilerOptions": {"baseUrl": ".", "paths": {"@app/*": ["src/app/*"], "#cfg": ["src/config.ts"]}, "rootDirs": ["src", "generated"]}, "include": ["src", "generated"]}`,
		"src/app/user.ts":     "",
		"src/app/index.ts":    "",
		"src/config.ts":       "",
		"src/main.ts":         "",
		"src/view.tsx":        "",
		"src/data.json":       "",
		"src/lib/util.ts":     "",
		"generated/schema.ts": "",
		// A workspace package built to dist/ from src/, with an exports map.
		"packages/core/package.json":     `{"name": "@mono/core", "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"}, "./feature/*": "./dist/feature/*.js"}}`,
		"packages/core/tsconfig.json":    `{"compilerOptions": {"outDir": "dist", "rootDir": "src"}}`,
		"packages/core/src/index.ts":     "",
		"packages/core/src/feature/a.ts": "",
		// One with only a main field, pointing at its source.
		"packages/small/package.json": `{"name": "small", "main": "lib/index.js"}`,
		"packages/small/src/index.ts": "",
		// Subpath imports.
		"packages/app/package.json":      `{"name": "app", "imports": {"#internal/*": "./src/internal/*.ts"}}`,
		"packages/app/src/internal/x.ts": "",
		"packages/app/src/main.ts":       "",
	})
	for _, tc := range []struct {
		from, spec string
		want       string // comma-separated targets
		known      bool
	}{
		{"src/main.ts", "./app/user.js", "src/app/user.ts", true},
		{"src/main.ts", "./app", "src/app/index.ts", true},
		{"src/main.ts", "./view", "src/view.tsx", true},
		{"src/main.ts", "./data.json", "src/data.json", true},
		{"src/main.ts", "@app/user", "src/app/user.ts", true},
		{"src/main.ts", "#cfg", "src/config.ts", true},
		{"src/main.ts", "src/lib/util", "src/lib/util.ts", true}, // baseUrl
		{"src/main.ts", "./schema", "generated/schema.ts", true}, // rootDirs
		{"src/main.ts", "@mono/core", "packages/core/src/index.ts", true},
		{"src/main.ts", "@mono/core/feature/a", "packages/core/src/feature/a.ts", true},
		{"src/main.ts", "small", "packages/small/src/index.ts", true},
		{"packages/app/src/main.ts", "#internal/x", "packages/app/src/internal/x.ts", true},
		{"src/main.ts", "node:fs", "", true},
		{"src/main.ts", "path", "", true},
		{"src/main.ts", "vitest", "", true},       // declared, not installed
		{"src/main.ts", "./missing", "", true},    // broken already
		{"src/main.ts", "mystery-lib", "", false}, // nothing knows it
	} {
		got, known := w.ECMA(tc.from, tc.spec)
		if strings.Join(got, ",") != tc.want || known != tc.known {
			t.Errorf("ECMA(%s, %q) = %v, %v; want %q, %v", tc.from, tc.spec, got, known, tc.want, tc.known)
		}
	}
}

func TestPython(t *testing.T) {
	w := workspace(t, map[string]string{
		"pyrightconfig.json":             `{"extraPaths": ["vendor"], "executionEnvironments": [{"root": "services/api"}]}`,
		"src/shop/__init__.py":           "",
		"src/shop/models.py":             "",
		"src/shop/db/__init__.py":        "",
		"libs/tools/tools/__init__.py":   "",
		"libs/tools/tools/text.py":       "",
		"vendor/extra.py":                "",
		"services/api/handlers.py":       "",
		"services/api/main.py":           "",
		"tools/main.py":                  "",
		"tools/helper.py":                "",
		"typings/vendorlib/__init__.pyi": "",
		"scripts/geometry.py":            "",
		"scripts/report/run.py":          "",
		"scripts/report.py":              "",
	})
	for _, tc := range []struct{ from, spec, ident, want string }{
		{"src/shop/db/__init__.py", "shop.models", "User", "src/shop/models.py"},
		{"src/shop/db/__init__.py", "..models", "User", "src/shop/models.py"},
		{"src/shop/models.py", "shop", "db", "src/shop/__init__.py,src/shop/db/__init__.py"},
		{"src/shop/models.py", "tools.text", "f", "libs/tools/tools/text.py"},      // a top-level package elsewhere
		{"src/shop/models.py", "extra", "x", "vendor/extra.py"},                    // extraPaths
		{"services/api/main.py", "handlers", "h", "services/api/handlers.py"},      // execution root
		{"tools/main.py", "helper", "make", "tools/helper.py"},                     // the script's own folder
		{"src/shop/models.py", "vendorlib", "x", "typings/vendorlib/__init__.pyi"}, // the stub path
		// No root has it: pyright looks beside the importing file, then
		// in its parents.
		{"scripts/report.py", "geometry", "area", "scripts/geometry.py"},
		{"scripts/report/run.py", "geometry", "area", "scripts/geometry.py"},
		{"src/shop/models.py", "geometry", "area", ""},
	} {
		got := w.Python(tc.from, tc.spec, tc.ident)
		if strings.Join(got, ",") != tc.want {
			t.Errorf("Python(%s, %q, %q) = %v, want %q", tc.from, tc.spec, tc.ident, got, tc.want)
		}
	}
}

// Where the compiler's choice among several files depends on the project
// (moduleSuffixes, a declaration file beside its JavaScript, a package's
// types or typesVersions, the order of paths' substitutions), every file
// it may load is a target: a target too many costs a check, one too few
// passes a break as clean.
func TestECMAEveryCandidate(t *testing.T) {
	w := workspace(t, map[string]string{
		"tsconfig.json":                 `{"compilerOptions": {"moduleSuffixes": [".ios", ""], "baseUrl": ".", "paths": {"@x/*": ["gen/*", "src/*"]}}}`,
		"src/a.ios.ts":                  "",
		"src/a.ts":                      "",
		"src/b.ts":                      "",
		"src/c.js":                      "",
		"src/c.d.ts":                    "",
		"src/d.ts":                      "",
		"gen/d.ts":                      "",
		"src/dir/package.json":          `{"types": "types/main.d.ts"}`,
		"src/dir/types/main.d.ts":       "",
		"src/dir/index.ts":              "",
		"packages/p/package.json":       `{"name": "p", "exports": {".": "./src/index.ts"}, "types": "./src/legacy.d.ts", "typesVersions": {"*": {"sub": ["./src/sub-types.d.ts"]}}}`,
		"packages/p/src/index.ts":       "",
		"packages/p/src/legacy.d.ts":    "",
		"packages/p/src/sub-types.d.ts": "",
	})
	for _, tc := range []struct{ spec, want string }{
		{"./a", "src/a.ios.ts,src/a.ts"},
		{"./c.js", "src/c.js,src/c.d.ts"},
		{"@x/d", "gen/d.ts,src/d.ts"},
		{"./dir", "src/dir/index.ts,src/dir/types/main.d.ts"},
		{"p", "packages/p/src/index.ts,packages/p/src/legacy.d.ts"},
		{"p/sub", "packages/p/src/sub-types.d.ts"},
	} {
		got, known := w.ECMA("src/b.ts", tc.spec)
		slices.Sort(got)
		want := strings.Split(tc.want, ",")
		slices.Sort(want)
		if !known || !slices.Equal(got, want) {
			t.Errorf("ECMA(src/b.ts, %q) = %v, %v; want %v", tc.spec, got, known, want)
		}
	}
}
