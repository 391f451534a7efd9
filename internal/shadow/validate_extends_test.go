package shadow

import (
	"strings"
	"testing"
)

// A file a tsconfig.json extends configures the project: with strict
// turned on there, tsc reports TS7006 in a.ts. It was "not code" ("no
// language server applies to this kind of file") and passed; it is a
// TypeScript configuration file now, never clean unchecked.
func TestExtendedTSConfigIsConfiguration(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{files: map[string]string{
		"tsconfig.json":       `{"extends": "./configs/strict.json", "compilerOptions": {"noEmit": true}, "include": ["src"]}`,
		"configs/strict.json": `{"compilerOptions": {"strict": false}}`,
		"src/a.ts":            "export function f(x) {\n  return x;\n}\n",
		"configs/unused.json": `{"compilerOptions": {"strict": false}}`,
	}})
	h.requireServer("typescript")
	res := h.validate(map[string]string{"configs/strict.json": `{"compilerOptions": {"strict": true}}`})
	if res.Verdict == Clean {
		t.Fatalf("a change to an extended tsconfig passed unchecked:\n%s", describe(res))
	}
	if len(res.NotCode) != 0 {
		t.Fatalf("an extended tsconfig is not code:\n%s", describe(res))
	}
	if res.Verdict == Unverified && !strings.Contains(res.Unverified[0].Reason, "extends") {
		t.Fatalf("unverified without saying why:\n%s", describe(res))
	}
	// A JSON file no project extends stays what it was.
	res = h.validate(map[string]string{"configs/unused.json": `{"compilerOptions": {"strict": true}}`})
	if res.Verdict != Clean || len(res.NotCode) != 1 {
		t.Fatalf("a JSON file nothing reads:\n%s", describe(res))
	}
}

// The same for pyright: a file pyrightconfig.json extends configures the
// project (strict mode turned on there makes new errors).
func TestExtendedPyrightConfigIsConfiguration(t *testing.T) {
	h := newHarness(t, "py", harnessOptions{files: map[string]string{
		"pyrightconfig.json":  `{"extends": "./configs/base.json"}`,
		"configs/base.json":   `{"typeCheckingMode": "basic"}`,
		"configs/unused.json": `{"typeCheckingMode": "basic"}`,
	}})
	h.requireServer("python")
	res := h.validate(map[string]string{"configs/base.json": `{"typeCheckingMode": "strict"}`})
	if res.Verdict == Clean || len(res.NotCode) != 0 {
		t.Fatalf("a change to an extended pyright configuration passed unchecked:\n%s", describe(res))
	}
	res = h.validate(map[string]string{"configs/unused.json": `{"typeCheckingMode": "strict"}`})
	if res.Verdict != Clean || len(res.NotCode) != 1 {
		t.Fatalf("a JSON file nothing reads:\n%s", describe(res))
	}
}
