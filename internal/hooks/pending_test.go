package hooks

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// The contents kept before an edit the post-edit hook checks: the oldest
// one wins until it is taken, taking forgets it, a file of Anvil's own
// that does not read holds nothing (never a failure), and a pruning of
// the store by another session keeps the blobs they name.
func TestContentBeforeAnEditCheckedAfter(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "src/a.ts": "a\n"})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
	if got, err := s.TakeBefore(root, "one"); err != nil || got != nil {
		t.Fatalf("nothing kept: %v %v", got, err)
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
	if _, err := s.Ensure(context.Background(), root, "two"); err != nil {
		t.Fatal(err)
	}
	got, err := s.TakeBefore(root, "one")
	if err != nil {
		t.Fatal(err)
	}
	if want := changeset.Hash([]byte("first\n")); got["src/a.ts"] != want || len(got) != 2 || got["src/new.ts"] != "" {
		t.Fatalf("kept %v, want src/a.ts as first seen and src/new.ts as absent", got)
	}
	if data, err := s.Content(got["src/a.ts"]); err != nil || string(data) != "first\n" {
		t.Errorf("the content before was pruned: %q %v", data, err)
	}
	if again, _ := s.TakeBefore(root, "one"); again != nil {
		t.Errorf("taken twice: %v", again)
	}

	// A pending file that does not read holds nothing.
	if err := os.WriteFile(s.pendingPath(root, "three"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := s.TakeBefore(root, "three"); err != nil || len(got) != 0 {
		t.Errorf("a corrupted pending file: %v %v", got, err)
	}
}
