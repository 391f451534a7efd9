package shadow

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
)

// A server killed in the middle of a validation makes it unverified, is
// restarted, and the next validation gets a real verdict.
func TestValidateServerCrash(t *testing.T) {
	for _, tc := range []struct{ project, language, file, old, new string }{
		{"ts", "typescript", "src/types.ts", "interface User", "interface Account"},
		{"go", "go", "types/types.go", "type User struct", "type Account struct"},
		{"c", "c", "include/shapes.h", "int x;", "int xx;"},
	} {
		t.Run(tc.language, func(t *testing.T) {
			var once sync.Once
			var oldPID int
			h := newHarness(t, tc.project, harnessOptions{opts: Options{AfterOverlay: func(s *servers.Server) {
				once.Do(func() { oldPID = s.PID(); s.Kill() })
			}}})
			srv := h.requireServer(tc.language)
			broken := strings.Replace(h.read(tc.file), tc.old, tc.new, 1)

			res := h.validate(map[string]string{tc.file: broken})
			expect(t, res, Unverified)
			if !strings.Contains(res.Unverified[0].Reason, "crashed") {
				t.Fatalf("reason = %q, want a crash", res.Unverified[0].Reason)
			}

			deadline := time.Now().Add(30 * time.Second)
			for srv.PID() == 0 || srv.PID() == oldPID {
				if time.Now().After(deadline) {
					t.Fatal("server was not restarted")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if srv.Restarts() != 1 {
				t.Errorf("restarts = %d, want 1", srv.Restarts())
			}
			res = h.validate(map[string]string{tc.file: broken})
			if res.Verdict != Rejected {
				t.Fatalf("after the restart: %s", describe(res))
			}
		})
	}
}

// A server that never answers makes the validation unverified once the
// timeout passes, never clean.
func TestValidateServerHangs(t *testing.T) {
	h := newHarness(t, "py", harnessOptions{
		overrides: []servers.Spec{{Name: "pyright", Command: "sleep", Args: []string{"3600"}}},
		// A server that never answers initialize is bounded by the load
		// timeout, one that hangs later by the validation timeout.
		opts: Options{Timeout: 1500 * time.Millisecond, LoadTimeout: 2 * time.Second},
	})
	h.requireServer("python")
	start := time.Now()
	res := h.validate(map[string]string{"app/db.py": h.read("app/db.py") + "\nx: int = 1\n"})
	expect(t, res, Unverified)
	if !strings.Contains(res.Unverified[0].Reason, "not ready within the load timeout") || !strings.Contains(res.Unverified[0].Reason, "raise load_timeout") {
		t.Fatalf("reason = %q", res.Unverified[0].Reason)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("took %v; the timeout is 1.5 s", elapsed)
	}
}

// A language with no server available is unverified, and says what to do.
func TestValidateNoServer(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{overrides: []servers.Spec{{Name: "tsgo", Command: "no-such-tsc"}}})
	res := h.validate(map[string]string{"src/db.ts": h.read("src/db.ts") + "\n"})
	expect(t, res, Unverified)
	if !strings.Contains(res.Unverified[0].Reason, "no language server found for typescript") {
		t.Fatalf("reason = %q", res.Unverified[0].Reason)
	}
	res = h.validate(map[string]string{"lib/util.rs": "fn main() {}\n"})
	expect(t, res, Unverified)
}
