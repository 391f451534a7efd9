package shadow

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Warming a plan's files while its user reads it: the first check of a
// change to them then takes their "before" from what the server said, and
// asks about the change alone; the verdict is the same as without it,
// pre-existing errors included, and a disk changed since is asked again.
func TestWarmBaselines(t *testing.T) {
	for _, tc := range []struct {
		project, language, file, server string
		flaw, addition, breaking        string
		withTS                          string
		// lazy: the server applies opens lazily (pyright), so a changed
		// file is always pulled once more at its disk content before the
		// change goes in (check_pull.go); its warm-up is the server
		// started, the project loaded and the file analysed.
		lazy bool
	}{
		{"ts-esm", "typescript", "src/flaw.ts", "tsserver",
			"export const bad: number = \"one\";\n", "export const two = 2;\n", "export const three: string = 3;\n", "5.9.3", false},
		{"ts", "typescript", "src/flaw.ts", "tsgo",
			"export const bad: number = \"one\";\n", "export const two = 2;\n", "export const three: string = 3;\n", "", false},
		{"py", "python", "app/flaw.py", "pyright",
			"bad: int = \"one\"\n", "two = 2\n", "three: str = 3\n", "", true},
	} {
		t.Run(tc.server, func(t *testing.T) {
			h := newHarness(t, tc.project, harnessOptions{files: map[string]string{tc.file: tc.flaw}})
			if tc.withTS != "" {
				withTypeScript(t, h, tc.withTS)
			}
			if name := h.requireServer(tc.language).Spec().Name; name != tc.server {
				t.Fatalf("%s checked by %s, want %s", tc.project, name, tc.server)
			}
			ctx := context.Background()
			if err := h.v.Warm(ctx, []string{tc.file, "no/such/file.ts"}); err != nil {
				t.Fatalf("Warm: %v", err)
			}
			res := h.validate(map[string]string{tc.file: tc.flaw + tc.addition})
			expect(t, res, Clean)
			if got := res.Servers[0].BaselinesReused; got < 1 && !tc.lazy {
				t.Errorf("the warmed file's baseline was asked again (%d reused)", got)
			}
			res = h.validate(map[string]string{tc.file: tc.flaw + tc.breaking})
			expect(t, res, Rejected, tc.file)
			if len(res.New) != 1 {
				t.Errorf("new errors %v, want only the added one (the pre-existing one is in the baseline)", res.New)
			}

			// The disk changes after the warm-up: the baseline is asked
			// again, and the flaw is now the change's own.
			if err := os.WriteFile(filepath.Join(h.dir, tc.file), []byte(tc.addition), 0o644); err != nil {
				t.Fatal(err)
			}
			res = h.validate(map[string]string{tc.file: tc.flaw + tc.addition})
			expect(t, res, Rejected, tc.file)
			if got := res.Servers[0].BaselinesReused; got != 0 {
				t.Errorf("a baseline of the disk before it changed was reused (%d)", got)
			}
		})
	}
}
