package shadow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A first check of a large project waits for the project to load instead
// of timing out while it does: the validation timeout starts when the
// server is ready. Here loading the 2,000 files takes longer than the
// whole timeout, and the check itself (a dozen files) far less.
func TestFirstCheckDuringProjectLoad(t *testing.T) {
	var progress []string
	h := newHarness(t, "ts-esm", harnessOptions{opts: Options{
		Timeout:  500 * time.Millisecond,
		Progress: func(p Progress) { progress = append(progress, p.String()) },
	}})
	srv := h.requireServer("typescript")
	if srv.Spec().Name != "tsserver" {
		t.Fatalf("got %s", srv.Spec().Name)
	}
	const n = 2000
	for i := range n {
		var b strings.Builder
		// A short chain m0 … m19; every other file imports m0 only.
		if i == 0 {
			b.WriteString("export const v0: number = 0;\n")
		} else {
			prev := i - 1
			if i >= 20 {
				prev = 0
			}
			fmt.Fprintf(&b, "import { v%d } from \"./m%d.js\";\n", prev, prev)
			fmt.Fprintf(&b, "export const v%d: number = v%d + 1;\n", i, prev)
		}
		fmt.Fprintf(&b, "export function f%d(x: number): string {\n  return String(x * %d);\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(h.dir, "src", fmt.Sprintf("m%d.ts", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	res := h.validate(map[string]string{"src/m10.ts": strings.Replace(h.read("src/m10.ts"), "export const v10: number = v9 + 1;", "export const v10: string = String(v9 + 1);", 1)})
	t.Logf("first check of %d files: %s; progress %q", n+4, time.Since(start).Round(time.Millisecond), progress)
	expect(t, res, Rejected, "src/m11.ts")
	if len(progress) < 2 || !strings.HasPrefix(progress[0], "starting tsserver") || !strings.Contains(progress[len(progress)-1], "checking") {
		t.Errorf("progress = %q, want starting … checking", progress)
	}
}
