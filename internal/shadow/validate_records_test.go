package shadow

import "testing"

// Who reads a file is who the compiler says reads it. Anvil's own
// resolution takes a package under node_modules for an installed one
// when no workspace package of that name exists; npm links a local
// dependency ("file:./shared") there under the dependency's key, whatever
// its package.json calls it, and TypeScript follows the link to the
// workspace's own source.
func TestDependantsTheCompilerRecorded(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{files: map[string]string{
		"package.json":        `{"name": "app", "private": true, "dependencies": {"lib": "file:./shared"}}`,
		"tsconfig.json":       `{"compilerOptions": {"strict": true, "noEmit": true, "module": "preserve", "moduleResolution": "bundler"}, "include": ["src", "shared"]}`,
		"shared/package.json": `{"name": "shared-lib", "types": "./index.ts"}`,
		"shared/index.ts":     "export function total(xs: number[]): number {\n  return xs.length;\n}\n",
		"src/app.ts":          "import { total } from \"lib\";\n\nexport const n: number = total([1]);\n",
		"node_modules/lib":    "->../shared",
	}})
	h.requireServer("typescript")
	res := h.validate(map[string]string{"shared/index.ts": "export function total(xs: number[]): string {\n  return String(xs.length);\n}\n"})
	expect(t, res, Rejected, "src/app.ts")
}
