package journal

import (
	"context"
	"os"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// replace removes the fixture's workspace and creates another directory at
// its path holding files, and returns the journal of the new one.
func (f *fixture) replace(files map[string]string) *Journal {
	f.t.Helper()
	if err := os.RemoveAll(f.dir); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Mkdir(f.dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	testfs.Write(f.t, f.dir, files)
	root, err := workspace.New(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	if root.ID() == f.root.ID() {
		f.t.Fatal("the new directory has the old one's identity")
	}
	return New(root, Options{StateDir: f.state, Now: f.j.opts.Now})
}

// The journal follows the workspace's directory, not its path: a commit
// made in a directory since replaced by another at the same path is never
// undone, or rolled back, into the new one.
func TestJournalFollowsTheDirectory(t *testing.T) {
	t.Run("undo", func(t *testing.T) {
		f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
		f.commit("change a", put("a.txt", "a1\n"))
		j := f.replace(map[string]string{"a.txt": "a fresh clone's a\n"})
		_, err := j.Undo(context.Background())
		if !workspace.IsReplaced(err) {
			t.Fatalf("undo after the workspace was replaced: %v", err)
		}
		if got := f.read("a.txt"); got != "a fresh clone's a\n" {
			t.Errorf("a.txt = %q: the new directory was written", got)
		}
	})
	t.Run("an old journal on a replaced directory", func(t *testing.T) {
		f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
		f.commit("change a", put("a.txt", "a1\n"))
		f.replace(map[string]string{"a.txt": "new\n"})
		// The journal opened on the old directory refuses to act.
		if _, err := f.j.Undo(context.Background()); !workspace.IsReplaced(err) {
			t.Fatalf("undo through a journal of the old directory: %v", err)
		}
		if got := f.read("a.txt"); got != "new\n" {
			t.Errorf("a.txt = %q", got)
		}
	})
	t.Run("recovery", func(t *testing.T) {
		f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
		f.crash(f.load(put("a.txt", "a1\n"), put("b.txt", "b1\n")), 1)
		j := f.replace(map[string]string{"a.txt": "clone a\n", "b.txt": "clone b\n"})
		recs, err := j.Recover(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].Abandoned == "" || len(recs[0].Restored) != 0 {
			t.Fatalf("recoveries %+v", recs)
		}
		if f.read("a.txt") != "clone a\n" || f.read("b.txt") != "clone b\n" {
			t.Errorf("the new directory was written: %q %q", f.read("a.txt"), f.read("b.txt"))
		}
		// Once recorded, it is not reported again.
		if recs, err := j.Recover(context.Background()); err != nil || len(recs) != 0 {
			t.Errorf("second recovery: %+v %v", recs, err)
		}
	})
}
