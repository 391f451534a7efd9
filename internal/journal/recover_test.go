package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// crashFiles and crashChanges make a commit touching every kind of file;
// crashOrder lists its paths in the order they are written.
func crashOrder() []string { return []string{"a.txt", "c.txt", "new/dir/n.txt", "run.sh"} }

func crashFiles() map[string]string {
	return map[string]string{
		"a.txt":  "a\r\nb\r\n",
		"c.txt":  "c",
		"run.sh": "#!/bin/sh\n",
	}
}

func crashChanges(f *fixture) *changeset.Set {
	return f.load(crashSpecs()...)
}

func crashSpecs() []changeset.Spec {
	return []changeset.Spec{put("a.txt", "A\r\nB\r\n"), put("c.txt", "C\n"), put("new/dir/n.txt", "n\n"), del("run.sh")}
}

// changesetFor loads the crash change set in root, outside a test.
func changesetFor(root *workspace.Root) (*changeset.Set, error) {
	return changeset.Load(root, crashSpecs())
}

func TestRecover(t *testing.T) {
	t.Parallel()
	order := crashOrder()
	for n := 0; n <= len(order); n++ {
		t.Run(fmt.Sprintf("%d of %d written", n, len(order)), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "", nil, crashFiles())
			f.chmod("run.sh", 0o755)
			want := snapshot(t, f.dir)
			set := crashChanges(f)
			if n < len(order) {
				f.crash(set, n)
			} else {
				// Every file written, the crash came before the manifest
				// said committed.
				e, err := f.commitSet(f.j, set, "crashing")
				if err != nil {
					t.Fatal(err)
				}
				if err := e.setState(Prepared); err != nil {
					t.Fatal(err)
				}
			}
			// A temporary file the crash left behind.
			f.write(".a.txt"+tempMarker+"0badf00d", "half")

			// Until recovered, commit and undo refuse to run.
			if _, err := f.commitSet(f.j, f.load(put("c.txt", "x")), "later"); !errors.Is(err, ErrRecoveryNeeded) {
				t.Errorf("commit before recovery: err = %v, want ErrRecoveryNeeded", err)
			}
			if _, err := f.j.Undo(context.Background()); !errors.Is(err, ErrRecoveryNeeded) {
				t.Errorf("undo before recovery: err = %v, want ErrRecoveryNeeded", err)
			}

			recs, err := f.j.Recover(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 {
				t.Fatalf("recovered %d entries, want 1", len(recs))
			}
			if got, want := recs[0].Restored, order[:n]; !slices.Equal(got, want) {
				t.Errorf("restored %v, want %v", got, want)
			}
			if len(recs[0].Kept) > 0 {
				t.Errorf("kept %v, want none", recs[0].Kept)
			}
			f.sameTree(want)
			if es := f.entries(); len(es) != 1 || es[0].State != RolledBack {
				t.Errorf("entries = %+v, want one rolled back", es)
			}

			// Idempotent: nothing left to do, and nothing changes.
			recs, err = f.j.Recover(context.Background())
			if err != nil || len(recs) != 0 {
				t.Errorf("second recovery = %v, %v; want nothing", recs, err)
			}
			f.sameTree(want)
			// And the workspace is usable again.
			f.commit("after recovery", put("c.txt", "x"))
		})
	}
}

func TestRecoverKeepsLaterEdits(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, crashFiles())
	f.crash(crashChanges(f), 3) // a.txt, c.txt and new/dir/n.txt written
	f.write("c.txt", "edited after the crash\n")

	recs, err := f.j.Recover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("recovered %d entries, want 1", len(recs))
	}
	if got, want := recs[0].Restored, []string{"a.txt", "new/dir/n.txt"}; !slices.Equal(got, want) {
		t.Errorf("restored %v, want %v", got, want)
	}
	if got, want := recs[0].Kept, []string{"c.txt"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	if got := f.read("c.txt"); got != "edited after the crash\n" {
		t.Errorf("c.txt = %q, want the user's edit", got)
	}
	if got := f.read("a.txt"); got != "a\r\nb\r\n" {
		t.Errorf("a.txt = %q, want the original", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "new")); !os.IsNotExist(err) {
		t.Errorf("created directory still there (stat: %v)", err)
	}
	// The old content of the kept file is still in the journal.
	e := f.entries()[0]
	if !slices.Equal(e.Kept, []string{"c.txt"}) {
		t.Errorf("entry kept = %v, want [c.txt]", e.Kept)
	}
	for _, file := range e.Files {
		if file.Path == "c.txt" {
			if data, err := e.readSaved(file); err != nil || string(data) != "c" {
				t.Errorf("saved c.txt = %q, %v; want %q", data, err, "c")
			}
		}
	}
}

func TestRecoverOtherWorkspace(t *testing.T) {
	t.Parallel()
	a := newFixture(t, "", nil, crashFiles())
	b := newFixture(t, a.state, a.j.opts.Now, map[string]string{"b.txt": "b\n"})
	a.crash(crashChanges(a), 2)
	crashed := snapshot(t, a.dir)

	recs, err := b.j.Recover(context.Background())
	if err != nil || len(recs) != 0 {
		t.Fatalf("recovery of b = %v, %v; want nothing", recs, err)
	}
	a.sameTree(crashed)
	if es := a.entries(); len(es) != 1 || es[0].State != Prepared {
		t.Errorf("a's entries = %+v, want one still prepared", es)
	}
	// b is not held up by a's interrupted commit.
	b.commit("b goes on", put("b.txt", "B\n"))

	recs, err = a.j.Recover(context.Background())
	if err != nil || len(recs) != 1 {
		t.Fatalf("recovery of a = %v, %v; want one", recs, err)
	}
	if got := b.read("b.txt"); got != "B\n" {
		t.Errorf("b.txt = %q after a's recovery, want b's commit kept", got)
	}
}

func TestRecoverNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
	f.commit("fine", put("a.txt", "b\n"))
	recs, err := f.j.Recover(context.Background())
	if err != nil || len(recs) != 0 {
		t.Errorf("recovery = %v, %v; want nothing", recs, err)
	}
	if got := f.read("a.txt"); got != "b\n" {
		t.Errorf("a.txt = %q, want the commit kept", got)
	}
}
