package servers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/tsserver"
)

// A check its caller gives up on (a hook's bound, a client that hung
// up) leaves the server on the disk: whenever the cancel comes, the file
// the check had opened at its base is closed again, so the client's next
// write of it, told as a disk change, is what the next check sees. A
// cancel that lands while the opening request is on its way to the server
// (written, not yet answered) once left the file open in tsserver at the
// check's base, and every later check judged that older text.
//
// The cancels sweep the first milliseconds of the check, so one of them
// lands in each step: before the open, during it, during the diagnostics.
func TestCancelledCheckLeavesTheServerOnTheDisk(t *testing.T) {
	for _, tc := range []struct {
		name, pin string
	}{
		{"tsserver", `{"devDependencies": {"typescript": "^6.0.0"}}`},
		{"TypeScript 7's server", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := hubAndUser(t, tc.pin)
			srv, err := realManager(t, dir).ForLanguage("typescript")
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.Spec().Name; (got == "tsserver") != (tc.name == "tsserver") {
				t.Fatalf("%s: checked by %s", tc.name, got)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			hub, use := filepath.Join(dir, "hub.ts"), filepath.Join(dir, "use.ts")
			if _, err := srv.Diagnose(ctx, []string{use}); err != nil {
				t.Fatal(err)
			}
			for i := range 40 {
				old, err := os.ReadFile(hub)
				if err != nil {
					t.Fatal(err)
				}
				next := fmt.Sprintf("%sexport const n%d = %d;\n", old, i, i)
				cctx, ccancel := context.WithCancel(ctx)
				time.AfterFunc(time.Duration(i)*time.Millisecond/2, ccancel)
				_, _ = srv.Check(cctx, CheckRequest{
					Files:      []FileChange{{Path: hub, Language: "typescript", Old: old, OldExists: true, New: []byte(next)}},
					Dependants: []string{use},
				})
				ccancel()
				// The client writes the edit and says so, as the gate does
				// when its next scan finds the file changed.
				if err := os.WriteFile(hub, []byte(next), 0o644); err != nil {
					t.Fatal(err)
				}
				srv.NotifyDiskChanges(ctx, map[string]int{hub: FileChanged})
				user := fmt.Sprintf("import { n%d } from \"./hub.js\";\nexport const m: number = n%d;\n", i, i)
				check := func() (CheckResult, error) {
					return srv.Check(ctx, CheckRequest{
						Files: []FileChange{{Path: use, Language: "typescript", Old: mustRead(t, use), OldExists: true, New: []byte(user)}},
					})
				}
				res, err := check()
				if errors.Is(err, lsp.ErrExited) || errors.Is(err, tsserver.ErrExited) {
					// TypeScript 7.0.2's server once panicked here, in
					// its session's flushChanges, with the machine at a
					// load of 10 (an error of that check: unverified).
					// The next check starts the server again, which must
					// read the disk as the client left it.
					t.Logf("step %d: the server exited (%v); checking again", i, err)
					res, err = check()
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if n := errorsIn(res, use); n > 0 {
					t.Fatalf("step %d (cancel after %s): the check judged hub.ts as it was before the client's write: %+v", i, time.Duration(i)*time.Millisecond/2, res.After[use])
				}
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// hubAndUser is a TypeScript project of two files, use.ts importing
// hub.ts, with pkg as its package.json (a TypeScript it pins, or none).
func hubAndUser(t *testing.T, pkg string) string {
	return testfs.Tree(t, map[string]string{
		"package.json":  pkg,
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler"}}`,
		"hub.ts":        "export const zero = 0;\n",
		"use.ts":        "import { zero } from \"./hub.js\";\nexport const one: number = zero + 1;\n",
	})
}
