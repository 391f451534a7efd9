package shadow

import (
	"slices"
	"testing"
)

// TypeScript 7's incremental state does not follow a change of a
// script's global on disk: the unchanged tree's run for the new disk
// state, started from the last one's state, reported none of the errors
// it brings. The end of a hooked turn, which asks what the way back to
// the turn's start resolves, then ended clean (the gate fuzzer's hooks
// sample, an installed declaration of the global). Each disk state's
// run now starts from no state.
func TestTheUnchangedTreeFollowsAGlobalChangeOnDisk(t *testing.T) {
	h := newHarnessAt(t, t.TempDir(), harnessOptions{opts: Options{Strategy: StrategyBatch, BatchStateDir: t.TempDir()}, files: map[string]string{
		"tsconfig.json": "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2022\", \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"lib\": [\"es2022\"]}, \"include\": [\"src\"]}\n",
		"src/g.ts":      "var G: number = 1;\n",
		"src/c.ts":      "export const c: number = G;\n",
		"src/a.ts":      "export const a = 1;\n",
	}})
	h.requireServer("typescript")
	// The disk as it is: its run over the unchanged tree leaves a state.
	expect(t, h.validate(map[string]string{"src/a.ts": "export const a = 2;\n"}), Clean)
	// A turn retypes the global on disk, breaking c.ts.
	h.write(map[string]string{"src/g.ts": "var G: string = \"s\";\n"})
	res := h.validateScope(map[string]string{"src/g.ts": "var G: number = 1;\n"}, Scope{Complete: true})
	var resolved []string
	for _, d := range res.Resolved {
		resolved = append(resolved, d.Path)
	}
	if !slices.Contains(resolved, "src/c.ts") {
		t.Errorf("the way back resolves nothing in src/c.ts (resolved %v): the unchanged tree's run missed the error on disk\n%s", resolved, describe(res))
	}
}
