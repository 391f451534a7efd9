package execpolicy

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
)

// A cache one workspace's program writes is one every workspace's builds
// read: a trusted project's TypeScript plugin, contained like every
// server, that planted an entry in the go command's build or module
// cache would reach the workspaces the user never trusted. So a
// contained program writes only the caches its policy names: gopls the
// go command's, clangd its own, the others none.
func TestAContainedProgramWritesOnlyItsOwnCaches(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "src", "proj")
	modcache := filepath.Join(home, "go", "pkg", "mod")
	for _, d := range []string{ws, modcache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	gocache := filepath.Join(home, "gocache")
	environ := []string{"PATH=" + filepath.Dir(goCmd) + ":/usr/bin:/bin", "HOME=" + home, "TMPDIR=/tmp", "GOCACHE=" + gocache}
	places := map[string]string{
		"the go command's build cache":  filepath.Join(gocache, "planted"),
		"the go command's module cache": filepath.Join(modcache, "planted"),
		"gopls' cache":                  filepath.Join(home, ".cache", "gopls", "planted"),
		"clangd's cache":                filepath.Join(home, ".cache", "clangd", "planted"),
		"the home":                      filepath.Join(home, "planted"),
	}
	tests := []struct {
		program string
		writes  []Cache
		may     []string
	}{
		{"tsserver, pyright, the declaration emitter", nil, nil},
		{"gopls", []Cache{GoCaches}, []string{"the go command's build cache", "the go command's module cache", "gopls' cache"}},
		{"clangd", []Cache{ClangdCache}, []string{"clangd's cache"}},
	}
	p := New(Options{Root: ws, Environ: environ, Helper: exe})
	for _, tt := range tests {
		t.Run(tt.program, func(t *testing.T) {
			var script strings.Builder
			for _, path := range places {
				os.Remove(path)
				script.WriteString("mkdir -p " + filepath.Dir(path) + " 2>/dev/null; echo x > " + path + " 2>/dev/null\n")
			}
			runContained(t, p.Containment(tt.writes...), script.String(), ws, environ)
			for what, path := range places {
				_, err := os.Stat(path)
				if wrote, may := err == nil, slices.Contains(tt.may, what); wrote != may {
					t.Errorf("%s wrote %s: %v, want %v", tt.program, what, wrote, may)
				}
			}
		})
	}
}

// runContained runs script under contain and fails the test unless the
// kernel contained it.
func runContained(t *testing.T, contain *proc.Containment, script, dir string, env []string) {
	t.Helper()
	var stderr strings.Builder
	p, err := proc.Start(proc.Spec{Path: "/bin/sh", Args: []string{"-c", script}, Dir: dir, Env: env, Stderr: &stderr, Contain: contain})
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin().Close()
	io.Copy(io.Discard, p.Stdout())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		p.Kill()
		t.Fatalf("the script did not end: %v", err)
	}
	if !p.Contained() {
		t.Fatalf("not contained: %s", stderr.String())
	}
}
