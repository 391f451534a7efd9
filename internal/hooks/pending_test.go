package hooks

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// The contents kept before an edit the post-edit hook checks: the oldest
// one of a file wins until it is taken, each post-edit takes its own
// file's alone, hook processes of one session keep and take at once
// without losing any, the end of the turn drops what is left, a file of
// Anvil's own that does not read holds nothing (never a failure), and a
// pruning of the store by another session keeps the blobs they name.
func TestContentBeforeAnEditCheckedAfter(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "src/a.ts": "a\n"})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
	if _, ok, err := s.TakeBefore(root, "one", "src/a.ts"); err != nil || ok {
		t.Fatalf("nothing kept: %v %v", ok, err)
	}
	if err := s.KeepBefore(root, "one", "src/a.ts", []byte("first\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := s.KeepBefore(root, "one", "src/a.ts", []byte("second\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := s.KeepBefore(root, "one", "src/new.ts", nil, false); err != nil {
		t.Fatal(err)
	}

	// Another session's start prunes, long after: the blob stays.
	s.clock = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if _, err := s.Ensure(context.Background(), root, "two", ""); err != nil {
		t.Fatal(err)
	}
	hash, ok, err := s.TakeBefore(root, "one", "src/a.ts")
	if err != nil || !ok || hash != changeset.Hash([]byte("first\n")) {
		t.Fatalf("src/a.ts: %q %v %v, want the first content kept", hash, ok, err)
	}
	if data, err := s.Content(hash); err != nil || string(data) != "first\n" {
		t.Errorf("the content before was pruned: %q %v", data, err)
	}
	if _, ok, _ := s.TakeBefore(root, "one", "src/a.ts"); ok {
		t.Errorf("taken twice")
	}
	if hash, ok, _ := s.TakeBefore(root, "one", "src/new.ts"); !ok || hash != "" {
		t.Errorf("src/new.ts: %q %v, want kept as absent", hash, ok)
	}

	// Parallel tool calls: none lost, each taken once.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := s.KeepBefore(root, "par", "f"+string(rune('a'+i))+".ts", []byte{byte(i)}, true); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	taken := make(chan bool, 16)
	for i := range 16 {
		wg.Go(func() {
			_, ok, err := s.TakeBefore(root, "par", "f"+string(rune('a'+i%8))+".ts")
			if err != nil {
				t.Error(err)
			}
			taken <- ok
		})
	}
	wg.Wait()
	close(taken)
	n := 0
	for ok := range taken {
		if ok {
			n++
		}
	}
	if n != 8 {
		t.Errorf("%d of 8 contents taken by 16 parallel takes", n)
	}

	// The end of the turn drops what no post-edit took.
	if err := s.KeepBefore(root, "one", "src/a.ts", []byte("x\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := s.DropBefore(root, "one"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.TakeBefore(root, "one", "src/a.ts"); ok {
		t.Errorf("kept past the end of the turn")
	}

	// A pending file that does not read holds nothing.
	if err := os.WriteFile(s.pendingPath(root, "three"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.TakeBefore(root, "three", "src/a.ts"); err != nil || ok {
		t.Errorf("a corrupted pending file: %v %v", ok, err)
	}
}
