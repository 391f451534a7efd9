package shadow

import (
	"strings"
	"testing"
)

// The file a //go:embed names is deleted: go build says "pattern
// version.txt: no matching files found". It was "not code" and passed;
// the go command reads it, so it is never clean unchecked.
func TestEmbeddedFileIsRead(t *testing.T) {
	h := newHarness(t, "go", harnessOptions{files: map[string]string{
		"version.go":  "package main\n\nimport _ \"embed\"\n\n//go:embed version.txt\nvar version string\n",
		"version.txt": "1.0\n",
		"NOTES.txt":   "x\n",
	}})
	res := h.validate(map[string]string{"-version.txt": ""})
	if res.Verdict == Clean || len(res.Unverified) == 0 || !strings.Contains(res.Unverified[0].Reason, "go:embed") {
		t.Fatalf("deleting an embedded file:\n%s", describe(res))
	}
	res = h.validate(map[string]string{"NOTES.txt": "y\n"})
	if res.Verdict != Clean || len(res.NotCode) != 1 {
		t.Fatalf("a file nothing reads:\n%s", describe(res))
	}
}
