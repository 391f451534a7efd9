package gitscope

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// What git itself prints is read back: a value holding a newline, the
// user's setting and the repository's apart, and a driver named with a
// dot in its name.
func TestParseReadsWhatGitPrints(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	git("init", "-q")
	list := exec.Command("git", Args(FilterPattern)...)
	list.Dir, list.Env = dir, []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
	if entries, err := Read(list.Output()); err != nil || len(entries) != 0 {
		t.Fatalf("nothing set (git's exit 1): %v, %v", entries, err)
	}
	if _, err := Read(nil, &exec.ExitError{}); err == nil {
		t.Errorf("a failure other than exit 1 read as none")
	}
	git("config", "--global", "filter.lfs.smudge", "git-lfs smudge -- %f")
	if entries, err := Parse(git(Args(FilterPattern)...)); err != nil || len(entries) != 1 || FilterDriver(entries) != "" {
		t.Fatalf("the user's filter: %v, %v", entries, err)
	}
	git("config", "--file", filepath.Join(".git", "config"), "filter.my.peek.clean", "sh -c 'cat'\n--")
	entries, err := Parse(git(Args(FilterPattern)...))
	if err != nil || len(entries) != 2 || entries[1].Value != "sh -c 'cat'\n--" {
		t.Fatalf("entries %q, %v", entries, err)
	}
	if got := FilterDriver(entries); got != "my.peek" {
		t.Errorf("FilterDriver = %q, want my.peek", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("local\x00filter.a.smudge\ncat\x00"))
	f.Add([]byte("global\x00k\nv\nw\x00local\x00filter.x\n\x00"))
	f.Fuzz(func(t *testing.T, out []byte) {
		entries, err := Parse(out)
		if err == nil {
			_ = FilterDriver(entries)
		}
	})
}
