package shadow

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// A deleted file the import graph finds no importer of: the graph is
// Anvil's reading, no evidence that nothing reads the file, and the server
// has nothing left to report on (it was "reported on no file":
// unverified, the end of every agent turn that created a file nobody
// imports). The project's batch checker decides: a deletion nothing reads
// is clean, and one the graph missed a reader of (a tsconfig's "files")
// is never clean (tsc's "File not found" is an error of no file, which
// the batch layer takes as a run that did not check the project: the
// change is unverified).
func TestDeletionNothingImportsGoesToTheBatchChecker(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"tsconfig.json":        `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
		"src/a.ts":             "export const a: number = 1;\n",
		"src/lonely.ts":        "export const lonely = 1;\n",
		"listed/tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["b.ts", "listed.ts"]}`,
		"listed/b.ts":          "export const b: number = 1;\n",
		"listed/listed.ts":     "export const listed = 1;\n",
	})
	h := newHarnessAt(t, dir, harnessOptions{opts: Options{BatchStateDir: t.TempDir()}})
	h.requireServer("typescript")

	res := h.validate(map[string]string{"-src/lonely.ts": ""})
	expect(t, res, Clean)
	if via := res.Servers[0].Via; !strings.HasPrefix(via, "batch: ") {
		t.Errorf("checked via %q, not the batch checker", via)
	}
	res = h.validate(map[string]string{"-listed/listed.ts": ""})
	if res.Verdict == Clean {
		t.Fatalf("a file its project's tsconfig lists, deleted:\n%s%+v", describe(res), res.Notes)
	}
}
