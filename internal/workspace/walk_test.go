package workspace

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func walkAll(t *testing.T, root *Root, start string, opts WalkOptions) []string {
	t.Helper()
	p, err := root.Resolve(start)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = root.Walk(context.Background(), p, opts, func(e Entry) error {
		name := e.Rel
		if e.IsDir() {
			name += "/"
		}
		got = append(got, name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// ignoreTree exercises the ignore rules: each kind of ignore file, nested
// .gitignore files (one in an ignored directory), negations, anchored
// patterns and a symlink.
func ignoreTree() map[string]string {
	return map[string]string{
		".gitignore":        "*.log\nbuild/\n!keep.log\n/rooted.txt\n",
		".git/HEAD":         "ref: refs/heads/main\n",
		".git/info/exclude": "excluded.txt\n",
		".anvil/ignore":     "secrets/\n",
		".hidden.ts":        "h",
		"a.log":             "x",
		"keep.log":          "x",
		"rooted.txt":        "x",
		"excluded.txt":      "x",
		"main.go":           "x",
		"build/out.js":      "x",
		"build/.gitignore":  "*.tmp\n",
		"build/x.tmp":       "x",
		"secrets/key":       "x",
		"src/rooted.txt":    "kept: the pattern is anchored at the root",
		"src/.gitignore":    "gen/\n!important.log\n*.tmp\n",
		"src/gen/x.ts":      "x",
		"src/important.log": "x",
		"src/other.log":     "x",
		"src/b.tmp":         "x",
		"src/lib/a.ts":      "x",
		"src/lib/c.tmp":     "x",
		"other/b.tmp":       "not ignored: src/.gitignore does not reach here",
		"link":              "->src",
	}
}

func TestWalkIgnoreRules(t *testing.T) {
	dir := testfs.Tree(t, ignoreTree())
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		".anvil/", ".anvil/ignore", ".gitignore", ".hidden.ts", "keep.log", "link", "main.go",
		"other/", "other/b.tmp",
		"src/", "src/.gitignore", "src/important.log", "src/lib/", "src/lib/a.ts", "src/rooted.txt",
	}
	if got := walkAll(t, root, ".", WalkOptions{}); !reflect.DeepEqual(got, want) {
		t.Errorf("walk:\n got %q\nwant %q", got, want)
	}

	// Starting below the root applies the parents' rules too.
	wantSrc := []string{"src/.gitignore", "src/important.log", "src/lib/", "src/lib/a.ts", "src/rooted.txt"}
	if got := walkAll(t, root, "src", WalkOptions{}); !reflect.DeepEqual(got, wantSrc) {
		t.Errorf("walk src:\n got %q\nwant %q", got, wantSrc)
	}
}

func TestIgnored(t *testing.T) {
	dir := testfs.Tree(t, ignoreTree())
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{".", true, false},
		{"main.go", false, false},
		{"a.log", false, true},
		{"keep.log", false, false},
		{"rooted.txt", false, true},
		{"src/rooted.txt", false, false},
		{"excluded.txt", false, true},
		{"secrets", true, true},
		{".git", true, true},
		{"src/gen", true, true},
		{"src/other.log", false, true},
		{"src/important.log", false, false},
		{"src/lib/c.tmp", false, true},
		{"other/b.tmp", false, false},
		{"build", true, true},
		// Below an ignored directory only its own ignore files apply.
		{"build/out.js", false, false},
		{"build/x.tmp", false, true},
	}
	for _, tt := range tests {
		if got := root.Ignored(tt.rel, tt.isDir); got != tt.want {
			t.Errorf("Ignored(%q, %v) = %v, want %v", tt.rel, tt.isDir, got, tt.want)
		}
	}

	// In every directory, ignored ones included, Walk lists exactly the
	// entries Ignored leaves in.
	err = filepath.WalkDir(dir, func(abs string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := root.Rel(abs)
		if err != nil {
			return err
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return err
		}
		var want []string
		for _, e := range entries {
			child := path.Join(rel, e.Name())
			if !root.Ignored(child, e.IsDir()) {
				if e.IsDir() {
					child += "/"
				}
				want = append(want, child)
			}
		}
		if got := walkAll(t, root, rel, WalkOptions{MaxDepth: 1}); !reflect.DeepEqual(got, want) {
			t.Errorf("walk of %s:\n got %q\nwant %q", rel, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestIgnorePatterns(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"ignore": "a\r\n# comment\n\n  \n!b\n\\#c\nd/ \ntrailing\r",
	})
	want := []string{"a", "!b", `\#c`, "d/ ", "trailing"}
	if got := IgnorePatterns(filepath.Join(dir, "ignore")); !reflect.DeepEqual(got, want) {
		t.Errorf("IgnorePatterns = %q, want %q", got, want)
	}
	if got := IgnorePatterns(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("IgnorePatterns(missing) = %q, want none", got)
	}
}

func TestWalkMaxDepthAndSkip(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"a/b/c/d.txt": "x", "a/e.txt": "x", "z.txt": "x"})
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := walkAll(t, root, ".", WalkOptions{MaxDepth: 1}), []string{"a/", "z.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("depth 1: got %q want %q", got, want)
	}
	if got, want := walkAll(t, root, ".", WalkOptions{MaxDepth: 2}), []string{"a/", "a/b/", "a/e.txt", "z.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("depth 2: got %q want %q", got, want)
	}
	start, _ := root.Resolve(".")
	var seen []string
	err = root.Walk(context.Background(), start, WalkOptions{}, func(e Entry) error {
		seen = append(seen, e.Rel)
		if e.Rel == "a/b" {
			return fs.SkipDir
		}
		if e.Rel == "a/e.txt" {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "a/b", "a/e.txt"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("skip: got %q want %q", seen, want)
	}
}

func TestWalkCancelled(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"a/b.txt": "x"})
	root, _ := New(dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start, _ := root.Resolve(".")
	if err := root.Walk(ctx, start, WalkOptions{}, func(Entry) error { return nil }); err != context.Canceled {
		t.Fatalf("Walk with cancelled ctx = %v, want context.Canceled", err)
	}
}

// A walk with Ignored meets what the ignore rules leave out too, marked,
// inside ignored directories as well; never .git.
func TestWalkIgnored(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		".gitignore":    "gen/\n*.log\n",
		"src/a.ts":      "x",
		"gen/api.ts":    "x",
		"gen/deep/b.ts": "x",
		"run.log":       "x",
		".git/HEAD":     "x",
	})
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		got := map[string]bool{}
		err := root.Walk(context.Background(), Path{Abs: dir, Rel: "."}, WalkOptions{Ignored: all}, func(e Entry) error {
			if !e.IsDir() {
				got[e.Rel] = e.Ignored
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{".gitignore": false, "src/a.ts": false}
		if all {
			want["gen/api.ts"], want["gen/deep/b.ts"], want["run.log"] = true, true, true
		}
		if len(got) != len(want) {
			t.Fatalf("Ignored: %v: met %v, want %v", all, got, want)
		}
		for p, ign := range want {
			if g, ok := got[p]; !ok || g != ign {
				t.Errorf("Ignored: %v: %s met %v (ignored %v), want ignored %v", all, p, ok, g, ign)
			}
		}
	}
}
