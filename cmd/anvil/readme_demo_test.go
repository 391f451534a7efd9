package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/servers"
)

// demoMarker starts the paragraph before the demo's output in the README
// (or, if the manual moves, in docs/).
const demoMarker = "This is the plain output of `anvil demo`"

// The README shows what the demo prints: every line of its block is the
// demo's next line of output (both streams, as a terminal shows them), but
// where the block marks a cut (a line that starts with "… ("), after
// which it goes on with a later line. Only the temporary directories'
// names are allowed to differ.
func TestREADMEShowsTheDemo(t *testing.T) {
	t.Parallel()
	want := demoBlock(t)
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "demo")
	cmd.Env = append(os.Environ(), "HOME="+home, "ANVIL_DAEMON=off",
		"ANVIL_TOOLS_DIR="+servers.DefaultToolsDir(os.Getenv), "ANVIL_SESSION_DIR="+filepath.Join(home, "sessions"),
		"ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("anvil demo: %v\n%s", err, out.String())
	}
	got := strings.Split(strings.TrimRight(normalizeDemo(out.String()), "\n"), "\n")
	j, cut := 0, false
	for _, line := range want {
		if strings.HasPrefix(strings.TrimSpace(line), "… (") {
			cut = true
			continue
		}
		k := j
		for cut && k < len(got) && got[k] != line {
			k++
		}
		if k >= len(got) || got[k] != line {
			next := "(the end of the output)"
			if j < len(got) {
				next = got[j]
			}
			t.Fatalf("the README's demo block says\n\t%s\nwhere the demo prints\n\t%s\n\nthe demo's output:\n%s", line, next, out.String())
		}
		j, cut = k+1, false
	}
	if j != len(got) {
		t.Errorf("the demo prints more than the README shows, from\n\t%s", got[j])
	}
}

var (
	demoDir     = regexp.MustCompile(`\S*anvil-demo-\d+`)
	demoSession = regexp.MustCompile(`session \S+`)
)

func normalizeDemo(s string) string {
	return demoSession.ReplaceAllString(demoDir.ReplaceAllString(s, "DEMO"), "session SESSION")
}

// demoBlock is the fenced block after demoMarker, normalized, in the README
// or in docs/.
func demoBlock(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "..", "README.md")}
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	for _, f := range append(files, docs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(string(data), demoMarker)
		if !ok {
			continue
		}
		_, block, ok := strings.Cut(after, "\n```\n")
		if !ok {
			t.Fatalf("%s: no block after %q", f, demoMarker)
		}
		block, _, _ = strings.Cut(block, "\n```")
		return strings.Split(normalizeDemo(block), "\n")
	}
	t.Fatalf("no %q in README.md or docs/", demoMarker)
	return nil
}
