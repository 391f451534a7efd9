package shadow

import (
	"strings"
	"testing"
)

// Importers are found the way the compiler resolves imports; each case
// here was a dependant the relative-path graph never found, so its
// breakage came back clean.
func TestDependantsAsTheCompilerResolves(t *testing.T) {
	const format = "import { User } from \"../types\";\n\nexport function formatName(u: User): string {\n  return u.name;\n}\n"
	const formatBroken = "import { User } from \"../types\";\n\nexport function formatName(u: User): number {\n  return u.name.length;\n}\n"

	t.Run("a path alias", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{files: map[string]string{
			"tsconfig.json":       `{"compilerOptions": {"strict": true, "noEmit": true, "module": "preserve", "moduleResolution": "bundler", "paths": {"@/*": ["./src/*"]}}, "include": ["src"]}`,
			"src/util/format.ts":  format,
			"src/views/header.ts": "import { formatName } from \"@/util/format\";\nimport { User } from \"@/types\";\n\nexport function title(u: User): string {\n  return formatName(u);\n}\n",
		}})
		h.requireServer("typescript")
		res := h.validate(map[string]string{"src/util/format.ts": formatBroken})
		expect(t, res, Rejected, "src/views/header.ts")
	})

	t.Run("a workspace package", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{files: map[string]string{
			"package.json":                  `{"name": "mono", "private": true, "workspaces": ["packages/*"]}`,
			"tsconfig.json":                 `{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext"}, "include": ["packages/*/src"]}`,
			"packages/core/package.json":    `{"name": "@acme/core", "type": "module", "exports": {".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"}}}`,
			"packages/core/tsconfig.json":   `{"compilerOptions": {"outDir": "dist", "rootDir": "src", "strict": true, "module": "nodenext"}}`,
			"packages/core/src/index.ts":    "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n",
			"packages/app/package.json":     `{"name": "@acme/app", "type": "module", "dependencies": {"@acme/core": "*"}}`,
			"packages/app/src/main.ts":      "import { total } from \"@acme/core\";\n\nexport const sum: number = total([1, 2]);\n",
			"node_modules/@acme/core":       "->../../packages/core",
			"packages/core/dist/index.d.ts": "export declare function total(xs: number[]): number;\n",
		}})
		h.requireServer("typescript")
		// The importer compiles against the package's built declarations;
		// what matters is that it is checked at all.
		deps := h.dependants(t, "packages/core/src/index.ts")
		if !contains(deps, "packages/app/src/main.ts") {
			t.Fatalf("the workspace package's importer is not a dependant: %v", deps)
		}
	})

	t.Run("a Python package outside the root and src", func(t *testing.T) {
		h := newHarness(t, "py", harnessOptions{files: map[string]string{
			"pyrightconfig.json":               `{"typeCheckingMode": "standard", "include": ["app", "libs"], "extraPaths": ["libs/textkit"]}`,
			"libs/textkit/textkit/__init__.py": "",
			"libs/textkit/textkit/slug.py":     "def slug(s: str) -> str:\n    return s.lower().replace(\" \", \"-\")\n",
			"app/urls.py":                      "from textkit.slug import slug\n\n\ndef path_for(title: str) -> str:\n    return \"/\" + slug(title)\n",
		}})
		h.requireServer("python")
		res := h.validate(map[string]string{"libs/textkit/textkit/slug.py": "def slug(s: str) -> int:\n    return len(s)\n"})
		expect(t, res, Rejected, "app/urls.py")
	})

	t.Run("more dependants than the cap is unverified", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{opts: Options{MaxDependants: 2}})
		h.requireServer("typescript")
		res := h.validate(map[string]string{"src/types.ts": strings.Replace(h.read("src/types.ts"), "email: string;", "email: string;\n  age?: number;", 1)})
		expect(t, res, Unverified)
		if !strings.Contains(res.Unverified[0].Reason, "more than 2 dependants") {
			t.Errorf("reason = %q", res.Unverified[0].Reason)
		}
	})

	t.Run("a global declaration reaches every file", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{files: map[string]string{
			"src/globals.d.ts": "declare const APP_VERSION: string;\n",
			"src/version.ts":   "export const version: string = APP_VERSION;\n",
		}})
		h.requireServer("typescript")
		res := h.validate(map[string]string{"src/globals.d.ts": "declare const APP_VERSION: number;\n"})
		expect(t, res, Rejected, "src/version.ts")
	})

	t.Run("an import nothing resolves counts as a dependant", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{files: map[string]string{
			"src/odd.ts": "import { thing } from \"virtual:generated\";\nexport const x = thing;\n",
		}})
		deps := h.dependants(t, "src/types.ts")
		if !contains(deps, "src/odd.ts") {
			t.Fatalf("a file with an unresolvable import is not a dependant: %v", deps)
		}
	})

	t.Run("imported JSON is not passed as data", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{files: map[string]string{
			"src/limits.json": `{"max": 3}`,
			"src/limits.ts":   "import limits from \"./limits.json\";\nexport const max: number = limits.max;\n",
			"src/other.json":  `{"unrelated": true}`,
		}})
		h.requireServer("typescript")
		expect(t, h.validate(map[string]string{"src/limits.json": `{"max": "three"}`}), Unverified)
		expect(t, h.validate(map[string]string{"src/other.json": `{"unrelated": false}`}), Clean)
	})
}
