package shadow

import (
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
)

// Configuration is code: a change to it is checked under the new
// configuration, with the whole project it governs as dependants, or it is
// unverified with the reason; it never passes as "not code".
func TestValidateConfiguration(t *testing.T) {
	t.Run("go.mod requiring a module that does not exist", func(t *testing.T) {
		h := newHarness(t, "go", harnessOptions{})
		h.requireServer("go")
		res := h.validate(map[string]string{"go.mod": h.read("go.mod") + "\nrequire example.com/does-not-exist v1.2.3\n"})
		expect(t, res, Rejected, "go.mod")
		if !strings.Contains(res.New[0].Message, "example.com/does-not-exist") || res.New[0].Line != 5 {
			t.Errorf("want the go command's error on the require line, got %s", res.New[0])
		}
		res = h.validate(map[string]string{"go.mod": h.read("go.mod") + "\n// a comment\n"})
		expect(t, res, Clean)
		if !contains(res.CheckedFiles, "go.mod") {
			t.Errorf("go.mod not among the checked files: %v", res.CheckedFiles)
		}
	})

	t.Run("tsconfig.json through the native server", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{files: map[string]string{
			"src/sign.ts": "export function sign(n: number) {\n  if (n > 0) return 1;\n}\n",
		}})
		h.requireServer("typescript")
		stricter := strings.Replace(h.read("tsconfig.json"), `"strict": true`, `"strict": true, "noImplicitReturns": true`, 1)
		if stricter == h.read("tsconfig.json") {
			t.Fatalf("fixture tsconfig.json changed: %s", h.read("tsconfig.json"))
		}
		res := h.validate(map[string]string{"tsconfig.json": stricter})
		expect(t, res, Rejected, "src/sign.ts")
		// A file and the configuration it needs, together, are clean.
		res = h.validate(map[string]string{
			"tsconfig.json": stricter,
			"src/sign.ts":   "export function sign(n: number): number {\n  return n > 0 ? 1 : 0;\n}\n",
		})
		expect(t, res, Clean)
		if len(res.CheckedFiles) < 5 {
			t.Errorf("a configuration change must check the whole project, checked %v", res.CheckedFiles)
		}
	})

	t.Run("tsconfig.json through tsserver is unverified", func(t *testing.T) {
		h := newHarness(t, "ts-esm", harnessOptions{})
		h.requireServer("typescript")
		res := h.validate(map[string]string{"tsconfig.json": strings.Replace(h.read("tsconfig.json"), `"strict": true`, `"strict": false`, 1)})
		expect(t, res, Unverified)
		if r := res.Unverified[0].Reason; !strings.Contains(r, "reads tsconfig.json only from disk") || !strings.Contains(r, "typescript_engine = native") {
			t.Errorf("reason = %q", r)
		}
	})

	t.Run("pyright configuration is unverified", func(t *testing.T) {
		h := newHarness(t, "py", harnessOptions{})
		h.requireServer("python")
		res := h.validate(map[string]string{"pyrightconfig.json": `{"typeCheckingMode": "strict", "include": ["app"]}`})
		expect(t, res, Unverified)
		if !strings.Contains(res.Unverified[0].Reason, "pyright reads pyrightconfig.json only from disk") {
			t.Errorf("reason = %q", res.Unverified[0].Reason)
		}
	})

	t.Run("documentation alone says nothing was checked", func(t *testing.T) {
		h := newHarness(t, "ts", harnessOptions{})
		res := h.validate(map[string]string{"NOTES.md": "# notes\n"})
		expect(t, res, Clean)
		if s := res.Summary(); !strings.Contains(s, "no code or configuration changed") {
			t.Errorf("summary = %q", s)
		}
	})

	t.Run("a server that reports on nothing is not clean", func(t *testing.T) {
		// A push server announced for Rust that never publishes anything.
		h := newHarness(t, "ts", harnessOptions{
			overrides: []servers.Spec{{Name: "silent", Command: "sleep", Args: []string{"3600"}, Languages: []string{"rust"}}},
			opts:      Options{Timeout: 500 * time.Millisecond, LoadTimeout: time.Second},
		})
		res := h.validate(map[string]string{"src/lib.rs": "fn broken( {\n"})
		expect(t, res, Unverified)
	})
}
