package shadow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// On a large project, a check the server answered starts the batch
// checker's run over the unchanged tree in the background; the next check
// that goes to the batch checker finds it ready and runs the checker once,
// not twice.
func TestBatchBaselineWarmsAhead(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{opts: Options{BatchStateDir: t.TempDir(), WarmBatch: true}})
	srv := h.requireServer("typescript")
	for i := range warmBatchFiles {
		body := fmt.Sprintf("import { User } from \"./types\";\nexport function f%d(u: User): string {\n  return u.name + %d;\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(h.dir, "src", fmt.Sprintf("gen%d.ts", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A body-only edit: one file, the server answers.
	res := h.validate(map[string]string{"src/orders.ts": h.read("src/orders.ts") + "\n// a note\n"})
	expect(t, res, Clean)
	c := h.v.batchFor(srv)
	if c == nil {
		t.Fatal("no batch checker for the project")
	}
	config := filepath.Join(h.dir, "tsconfig.json")
	snap, err := h.v.syncDisk(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !c.Ready(config, snap.Fingerprint) {
		if time.Now().After(deadline) {
			t.Fatal("the unchanged tree's batch answer was never computed ahead")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// An interface change every generated file depends on goes to the
	// batch checker, whose answer for the unchanged tree is ready.
	h.v.opts.Strategy = StrategyBatch
	res = h.validate(map[string]string{"src/types.ts": strings.Replace(h.read("src/types.ts"), "export interface User {", "export interface User {\n  nickname?: string;", 1)})
	expect(t, res, Clean)
	if via := res.Servers[0].Via; !strings.Contains(via, "batch: ") || !strings.Contains(via, "was ready") {
		t.Fatalf("via %q", via)
	}
}

// A validator that serves one request (a one-shot 'anvil check', a hook
// without the daemon) starts no work ahead of need: its process's exit
// would cancel it, and wait for it.
func TestOneRequestStartsNoBackgroundWork(t *testing.T) {
	for _, one := range []bool{false, true} {
		t.Run(fmt.Sprintf("one request %v", one), func(t *testing.T) {
			h := newHarness(t, "ts", harnessOptions{opts: Options{BatchStateDir: t.TempDir(), WarmBatch: true, WarmBatchFiles: 1, OneRequest: one}})
			h.requireServer("typescript")
			res := h.validate(map[string]string{"src/orders.ts": h.read("src/orders.ts") + "\n// a note\n"})
			expect(t, res, Clean)
			if jobs := h.v.Background(); (len(jobs) == 0) != one {
				t.Fatalf("background jobs after the check: %+v (one request: %v)", jobs, one)
			}
		})
	}
}
