package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestResolve(t *testing.T) {
	outside := t.TempDir()
	testfs.Write(t, outside, map[string]string{"secret.txt": "s"})
	dir := testfs.Tree(t, map[string]string{
		"src/a.ts":         "a",
		"link-in":          "->src",
		"link-out":         "->" + outside,
		"src/link-secret":  "->" + filepath.Join(outside, "secret.txt"),
		"dangling-out":     "->" + filepath.Join(outside, "new.txt"),
		"dangling-in":      "->src/new.ts",
		"nested/deep/x.go": "x",
	})
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		wantRel string
		outside bool
	}{
		{name: "relative file", in: "src/a.ts", wantRel: "src/a.ts"},
		{name: "root", in: "", wantRel: "."},
		{name: "dot", in: ".", wantRel: "."},
		{name: "cleaned", in: "src/../src/./a.ts", wantRel: "src/a.ts"},
		{name: "absolute inside", in: filepath.Join(dir, "src", "a.ts"), wantRel: "src/a.ts"},
		{name: "missing file inside", in: "src/new.ts", wantRel: "src/new.ts"},
		{name: "missing dirs inside", in: "a/b/c.ts", wantRel: "a/b/c.ts"},
		{name: "symlink inside", in: "link-in/a.ts", wantRel: "src/a.ts"},
		{name: "dangling symlink inside", in: "dangling-in", wantRel: "src/new.ts"},
		{name: "dotdot", in: "../x", outside: true},
		{name: "dotdot deep", in: "src/../../x", outside: true},
		{name: "absolute outside", in: "/etc/passwd", outside: true},
		{name: "symlink dir out", in: "link-out/secret.txt", outside: true},
		{name: "symlink dir out, missing file", in: "link-out/new.txt", outside: true},
		{name: "symlink file out", in: "src/link-secret", outside: true},
		{name: "dangling symlink out", in: "dangling-out", outside: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := root.Resolve(tt.in)
			if tt.outside {
				if !errors.Is(err, ErrOutside) {
					t.Fatalf("Resolve(%q) = %+v, %v; want ErrOutside", tt.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.in, err)
			}
			if got.Rel != tt.wantRel {
				t.Errorf("Resolve(%q).Rel = %q, want %q", tt.in, got.Rel, tt.wantRel)
			}
			if want := filepath.Join(root.Dir(), filepath.FromSlash(tt.wantRel)); got.Abs != want {
				t.Errorf("Resolve(%q).Abs = %q, want %q", tt.in, got.Abs, want)
			}
		})
	}
}

func TestResolveRootThroughSymlink(t *testing.T) {
	real := testfs.Tree(t, map[string]string{"a.txt": "a"})
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	root, err := New(link)
	if err != nil {
		t.Fatal(err)
	}
	// The user may spell paths through the symlinked root.
	got, err := root.Resolve(filepath.Join(link, "a.txt"))
	if err != nil || got.Rel != "a.txt" {
		t.Fatalf("Resolve through symlinked root = %+v, %v", got, err)
	}
}

func TestNewRejectsFile(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"f": "x"})
	if _, err := New(filepath.Join(dir, "f")); err == nil {
		t.Fatal("New(file) succeeded")
	}
	if _, err := New(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("New(missing) succeeded")
	}
}

func TestAbs(t *testing.T) {
	root, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := root.Abs("src/a.ts"), filepath.Join(root.Dir(), "src", "a.ts"); got != want {
		t.Errorf("Abs = %q, want %q", got, want)
	}
	if root.Abs(".") != root.Dir() {
		t.Errorf("Abs(.) = %q", root.Abs("."))
	}
}
