package shadow

import (
	"context"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A deleted file the import graph finds no importer of: the graph is
// Anvil's reading, no evidence that nothing reads the file, and the server
// has nothing left to report on (it was "reported on no file":
// unverified, the end of every agent turn that created a file nobody
// imports). The project's batch checker decides: a deletion nothing reads
// is clean, and one the graph missed a reader of (a tsconfig's "files")
// is rejected (tsc's "File not found" is an error of no file, one the
// unchanged tree's run did not have: the change's own, and it blocks).
func TestDeletionNothingImportsGoesToTheBatchChecker(t *testing.T) {
	harness := func(files map[string]string) *harness {
		dir := t.TempDir()
		testfs.Write(t, dir, files)
		h := newHarnessAt(t, dir, harnessOptions{opts: Options{BatchStateDir: t.TempDir()}})
		h.requireServer("typescript")
		return h
	}
	h := harness(map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
		"src/a.ts":      "export const a: number = 1;\n",
		"src/lonely.ts": "export const lonely = 1;\n",
	})
	res := h.validate(map[string]string{"-src/lonely.ts": ""})
	expect(t, res, Clean)
	if via := res.Servers[0].Via; !strings.HasPrefix(via, "batch: ") {
		t.Errorf("checked via %q, not the batch checker", via)
	}

	h = harness(map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["b.ts", "listed.ts"]}`,
		"b.ts":          "export const b: number = 1;\n",
		"listed.ts":     "export const listed = 1;\n",
	})
	res = h.validate(map[string]string{"-listed.ts": ""})
	expect(t, res, Rejected, ".")
	if len(res.New) == 0 || !strings.Contains(res.New[0].Message, "listed.ts") {
		t.Errorf("the new error does not name the deleted file:\n%s", describe(res))
	}

	// Beside another project, the batch run of the file's own would not
	// see an importer there; TypeScript's record of both projects'
	// imports, before and after, is the evidence that nothing reads it.
	h = harness(map[string]string{
		"tsconfig.json":       `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
		"src/lonely.ts":       "export const lonely = 1;\n",
		"other/tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`,
		"other/o.ts":          "export const o: number = 1;\n",
	})
	res = h.validate(map[string]string{"-src/lonely.ts": ""})
	expect(t, res, Clean)
	if !strings.Contains(strings.Join(res.Notes, "\n"), "TypeScript's record") {
		t.Errorf("the verdict does not say what made it:\n%s", describe(res))
	}
	// Without the compiler's record (Anvil's reading alone), the same
	// deletion has no evidence.
	h = newHarnessAt(t, h.dir, harnessOptions{opts: Options{BatchStateDir: t.TempDir()}, noRecords: true})
	res = h.validate(map[string]string{"-src/lonely.ts": ""})
	if res.Verdict == Clean {
		t.Fatalf("a deletion beside another project, without the compiler's record:\n%s", describe(res))
	}
	// Nor when the batch checker is asked for by name: it has no file
	// to run a project for, and a run of nothing is no evidence.
	h = newHarnessAt(t, h.dir, harnessOptions{opts: Options{BatchStateDir: t.TempDir(), Strategy: StrategyBatch}, noRecords: true})
	res = h.validate(map[string]string{"-src/lonely.ts": ""})
	if res.Verdict == Clean {
		t.Fatalf("a deletion beside another project, the batch strategy, without the compiler's record:\n%s", describe(res))
	}
	// Nor when the batch run is for another file of the change: it runs
	// that file's project, and an importer in the other project the
	// graph missed would go unchecked (before: clean, the run's "whole"
	// taken for every project's).
	testfs.Write(t, h.dir, map[string]string{"src/a.ts": "export const a: number = 1;\n"})
	h = newHarnessAt(t, h.dir, harnessOptions{opts: Options{BatchStateDir: t.TempDir(), Strategy: StrategyBatch}, noRecords: true})
	res = h.validate(map[string]string{"-src/lonely.ts": "", "src/a.ts": "export const a: number = 2;\n"})
	if res.Verdict == Clean || !strings.HasPrefix(res.Servers[0].Via, "batch: ") {
		t.Fatalf("a deletion beside another project, the batch run for another file, without the compiler's record:\n%s", describe(res))
	}
	// A check that leaves the dependants out (the hooks' narrowed check,
	// ChangedOnly) leaves a deleted file's importers out too: the
	// record says they exist, so the deletion is never judged on it.
	h = harness(map[string]string{
		"tsconfig.json":       `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
		"src/used.ts":         "export const used = 1;\n",
		"src/user.ts":         "import { used } from \"./used\";\nexport const u: number = used;\n",
		"other/tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`,
		"other/o.ts":          "export const o: number = 1;\n",
	})
	set, err := changeset.Load(h.root, []changeset.Spec{{Path: "src/used.ts", Delete: true}})
	if err != nil {
		t.Fatal(err)
	}
	res, err = h.v.Validate(context.Background(), set, 1, Scope{ChangedOnly: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == Clean || !res.DependantsLeft {
		t.Fatalf("a deletion whose importer the scope left out:\n%s", describe(res))
	}
	// With a file the server does check in the same change set, the
	// deletion still has no evidence: its own file stays unverified
	// (before, the other file's answer made the change clean).
	h = harness(map[string]string{
		"tsconfig.json":       `{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["b.ts", "listed.ts"]}`,
		"b.ts":                "export const b: number = 1;\n",
		"listed.ts":           "export const listed = 1;\n",
		"other/tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`,
		"other/o.ts":          "export const o: number = 1;\n",
	})
	res = h.validate(map[string]string{"-listed.ts": "", "b.ts": "export const b: number = 2;\n"})
	expect(t, res, Unverified)
	if len(res.Unverified) != 1 || res.Unverified[0].Path != "listed.ts" {
		t.Errorf("unverified %v, want listed.ts alone", res.Unverified)
	}
}
