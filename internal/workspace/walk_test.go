package workspace

import (
	"context"
	"io/fs"
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

func TestWalkIgnoreRules(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
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
	})
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
