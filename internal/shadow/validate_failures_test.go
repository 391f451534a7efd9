package shadow

import (
	"maps"
	"slices"
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

// When the go command cannot load a workspace's packages (here: a module
// it builds from a folder needs a newer go than the workspace's go.mod
// says, so the go command stops before it lists any package), gopls
// type-checks a changed file alone or not at all and never reaches its
// importers. On the code before this test a change that breaks an
// importer came back clean. Each change is unverified, whatever it does,
// with the go command's reason. (A module missing from the cache fails
// only the packages that import it, which the go command reports too.)
func TestGoPackagesThatDoNotLoadLeaveTheCheckUnverified(t *testing.T) {
	files := map[string]string{
		"p/a.go": "package p\n\nfunc A() int { return b() }\n",
		"p/b.go": "package p\n\nfunc b() int { return 1 }\n",
		"q/q.go": "package q\n\nimport \"example.com/shop/p\"\n\nvar N int = p.A()\n",
	}
	changes := map[string]map[string]string{
		"a body":             {"p/a.go": "package p\n\nfunc A() int { return b() + 1 }\n"},
		"an importer breaks": {"p/a.go": "package p\n\nfunc A() string { return \"\" }\n"},
	}
	for _, tc := range []struct {
		name  string
		goMod string
		files map[string]string
		want  string
	}{
		{"a replaced module needs a newer go than the workspace's go.mod says", "module example.com/shop\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ./lib\n",
			map[string]string{"lib/go.mod": "module example.com/lib\n\ngo 1.25\n", "lib/lib.go": "package lib\n", "uses/use.go": "package uses\n\nimport _ \"example.com/lib\"\n"}, "updates to go.mod needed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOPROXY", "off")
			h := newHarness(t, "go", harnessOptions{files: withFiles(withFiles(files, tc.files), map[string]string{"go.mod": tc.goMod}), noDeps: true})
			h.requireServer("go")
			for _, name := range slices.Sorted(maps.Keys(changes)) {
				res := h.validate(changes[name])
				// The file that says so is named as the user sees it.
				if res.Verdict != Unverified || !strings.Contains(describe(res), "could not load the packages (go.mod: ") || !strings.Contains(describe(res), tc.want) {
					t.Errorf("%s: verdict %s, want unverified for the package load naming %q\n%s", name, res.Verdict, tc.want, describe(res))
				}
			}
		})
	}
}
