package reach

import (
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestEmbeddedBy(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"go.mod":            "module x\n",
		"main.go":           "package main\n\nimport _ \"embed\"\n\n//go:embed version.txt\nvar version string\n",
		"web/web.go":        "package web\n\nimport \"embed\"\n\n//go:embed all:static \"tmpl/*.html\"\nvar files embed.FS\n",
		"version.txt":       "1\n",
		"web/static/a.css":  "a{}\n",
		"web/tmpl/x.html":   "<p>\n",
		"web/tmpl/x.txt":    "x\n",
		"README.md":         "x\n",
		"other/version.txt": "2\n",
	})
	_, _, files := scanned(t, dir)
	for rel, want := range map[string]string{
		"version.txt": "main.go", "web/static/a.css": "web/web.go", "web/tmpl/x.html": "web/web.go",
		"web/tmpl/x.txt": "", "README.md": "", "other/version.txt": "",
	} {
		if got := EmbeddedBy(files, rel); got != want {
			t.Errorf("EmbeddedBy(%s) = %q, want %q", rel, got, want)
		}
	}
}

func FuzzEmbedPatterns(f *testing.F) {
	for _, s := range []string{`a.txt b/*.html`, `"with space.txt" all:static`, "`raw`", `"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range embedPatterns(s) {
			_ = embedMatches(p, "a/b.txt")
		}
	})
}

func TestGoCommandReads(t *testing.T) {
	files := Files{"pkg/a.go": {}, "pkg/a_amd64.s": {}, "asm/x.s": {}, "vendor/modules.txt": {}}
	for rel, reads := range map[string]bool{
		"pkg/a_amd64.s":           true,
		"pkg/new_arm64.s":         true, // created beside the package
		"pkg/blob.syso":           true,
		"pkg/notes.txt":           false,
		"asm/x.s":                 false, // no Go package there
		"vendor/modules.txt":      true,
		"docs/vendor/modules.txt": true,
		"modules.txt":             false,
	} {
		if got := GoCommandReads(files, rel) != ""; got != reads {
			t.Errorf("GoCommandReads(%s) = %v, want %v", rel, got, reads)
		}
	}
}
