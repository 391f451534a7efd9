package shadow

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
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

// Where the go command's vet runs (a module at the root), it reads the
// changed tree: a deleted embedded file is refused for the pattern it
// leaves empty, a changed one is clean (nothing compiles its content).
func TestEmbeddedFileGoesToTheGoCommand(t *testing.T) {
	h := newHarness(t, "go", harnessOptions{opts: Options{BatchStateDir: t.TempDir()}, files: map[string]string{
		"version.go":  "package main\n\nimport _ \"embed\"\n\n//go:embed version.txt\nvar version string\n",
		"version.txt": "1.0\n",
	}})
	res := h.validate(map[string]string{"-version.txt": ""})
	expect(t, res, Rejected, "version.go")
	if !strings.Contains(res.New[0].Message, "no matching files") || !strings.Contains(res.Servers[0].Via, "go vet") {
		t.Fatalf("deleting an embedded file:\n%s", describe(res))
	}
	res = h.validate(map[string]string{"version.txt": "2.0\n"})
	expect(t, res, Clean)
	// An embed in a file this platform's build leaves out: vet does not
	// build it, so its silence is no answer.
	testfs.Write(t, h.dir, map[string]string{
		"win.go":  "//go:build windows\n\npackage main\n\nimport _ \"embed\"\n\n//go:embed win.txt\nvar win string\n",
		"win.txt": "w\n",
	})
	res = h.validate(map[string]string{"-win.txt": ""})
	if res.Verdict != Unverified || !strings.Contains(describe(res), "build constraint") {
		t.Fatalf("deleting a file a windows-only file embeds:\n%s", describe(res))
	}
	// A module nested in the workspace's: the go command's vet in that
	// module's folder (at the root, ./... leaves it out).
	testfs.Write(t, h.dir, map[string]string{
		"tool/go.mod":   "module example.com/tool\n\ngo 1.22\n",
		"tool/tool.go":  "package tool\n\nimport _ \"embed\"\n\n//go:embed tool.txt\nvar Tool string\n",
		"tool/tool.txt": "t\n",
	})
	res = h.validate(map[string]string{"-tool/tool.txt": ""})
	expect(t, res, Rejected, "tool/tool.go")
	if !strings.Contains(res.New[0].Message, "no matching files") {
		t.Fatalf("deleting a file a nested module embeds:\n%s", describe(res))
	}
	res = h.validate(map[string]string{"tool/tool.txt": "u\n"})
	expect(t, res, Clean)
}

// A Go package's assembly is built by the go command and checked by
// go vet's asmdecl, and gopls reads it from disk only: a change to it was
// "not code" and passed. The vendor manifest likewise.
func TestGoCommandInputsAreRead(t *testing.T) {
	h := newHarness(t, "go", harnessOptions{files: map[string]string{
		"add.go":        "package main\n\nfunc add(a, b int) int\n\nvar _ = add(1, 2)\n",
		"add_amd64.s":   "#include \"textflag.h\"\n\nTEXT ·add(SB),NOSPLIT,$0-24\n\tMOVQ a+0(FP), AX\n\tADDQ b+8(FP), AX\n\tMOVQ AX, ret+16(FP)\n\tRET\n",
		"docs/notes.s":  "not in a package\n",
		"docs/guide.md": "x\n",
	}})
	for _, rel := range []string{"add_amd64.s", "add_arm64.s", "vendor/modules.txt"} {
		res := h.validate(map[string]string{rel: "garbage\n"})
		if res.Verdict != Unverified || len(res.Unverified) != 1 || !strings.Contains(res.Unverified[0].Reason, "the go command") {
			t.Errorf("%s:\n%s", rel, describe(res))
		}
	}
	res := h.validate(map[string]string{"docs/notes.s": "y\n"})
	if res.Verdict != Clean || len(res.NotCode) != 1 {
		t.Fatalf("assembly beside no Go package:\n%s", describe(res))
	}
}

// Found by the gate fuzzer (go/edit-build-tag): a file retagged
// //go:build windows opens gopls's windows view after the change only,
// and the whole module's errors under that build came back as new errors
// of the change (a false reject: go build, the default build, is clean).
// They have no baseline: not new, and their files unverified.
func TestBuildViewOpenedByTheChange(t *testing.T) {
	h := newHarness(t, "go", harnessOptions{files: map[string]string{
		"plat/plat.go":    "package plat\n",
		"plat/tagged.go":  "//go:build linux\n\npackage plat\n\nvar L = 1\n",
		"uses/uses.go":    "package uses\n\nimport \"example.com/shop/plat\"\n\nvar U = plat.L\n",
		"other/other.go":  "package other\n",
		"other/tagged.go": "//go:build linux\n\npackage other\n\nvar X = 1\n",
	}})
	// gopls makes the view as the retagged file opens, and keeps it a
	// while: the later checks meet it after the change only.
	for i := range 4 {
		res := h.validate(map[string]string{"other/tagged.go": "//go:build windows\n\npackage other\n\nvar X = 1\n"})
		t.Logf("check %d: %s", i+1, describe(res))
		if res.Verdict == Rejected {
			t.Fatalf("errors of the windows build, there before the change, taken as new:\n%s", describe(res))
		}
	}
	// A retag that breaks the default build is never clean.
	res := h.validate(map[string]string{"plat/tagged.go": "//go:build windows\n\npackage plat\n\nvar L = 1\n"})
	if res.Verdict == Clean {
		t.Fatalf("a retag that breaks the default build:\n%s", describe(res))
	}
}
