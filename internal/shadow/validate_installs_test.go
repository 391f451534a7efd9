package shadow

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// After an install changes node_modules (no ignore file hides it, nor need
// one: dependencies are never the project's files), the servers answer
// against what is installed now, not what they read before: a package
// that lost an export is no false clean, one that gained an export no
// false reject.
func TestFreshAfterInstalls(t *testing.T) {
	h := newHarnessAt(t, t.TempDir(), harnessOptions{files: map[string]string{
		"tsconfig.json":                     `{"compilerOptions": {"strict": true, "noEmit": true, "module": "preserve", "moduleResolution": "bundler"}, "include": ["src"]}`,
		"src/a.ts":                          "import { helper } from \"fakelib\";\nexport const x: number = helper();\n",
		"node_modules/fakelib/package.json": `{"name": "fakelib", "version": "1.0.0", "types": "index.d.ts"}`,
		"node_modules/fakelib/index.d.ts":   "export declare function helper(): number;\n",
		"node_modules/.package-lock.json":   `{"name": "p", "lockfileVersion": 3, "packages": {"node_modules/fakelib": {"version": "1.0.0"}}}`,
		"package-lock.json":                 `{"name": "p", "lockfileVersion": 3, "packages": {"node_modules/fakelib": {"version": "1.0.0"}}}`,
	}})
	h.requireServer("typescript")
	useHelper := map[string]string{"src/b.ts": "import { helper } from \"fakelib\";\nexport const y: number = helper();\n"}
	useShiny := map[string]string{"src/c.ts": "import { shiny } from \"fakelib\";\nexport const z: number = shiny();\n"}
	expect(t, h.validate(useHelper), Clean)
	expect(t, h.validate(useShiny), Rejected, "src/c.ts")

	// npm install fakelib@2: helper is gone, shiny is new.
	time.Sleep(20 * time.Millisecond)
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(h.dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("node_modules/fakelib/index.d.ts", "export declare function shiny(): number;\n")
	write("node_modules/fakelib/package.json", `{"name": "fakelib", "version": "2.0.0", "types": "index.d.ts"}`)
	write("node_modules/.package-lock.json", `{"name": "p", "lockfileVersion": 3, "packages": {"node_modules/fakelib": {"version": "2.0.0"}}}`)

	expect(t, h.validate(useHelper), Rejected, "src/b.ts")
	expect(t, h.validate(useShiny), Clean)
}
