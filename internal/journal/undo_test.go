package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestUndo(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{
		"a.txt":  "a\r\n",
		"b.txt":  "b\n",
		"run.sh": "#!/bin/sh\n",
	})
	f.chmod("run.sh", 0o755)
	original := snapshot(t, f.dir)
	first := f.commit("first", put("a.txt", "a1\r\n"), put("new/deep/n.txt", "n\n"), del("run.sh"))
	afterFirst := snapshot(t, f.dir)
	second := f.commit("second", put("a.txt", "a2\r\n"), put("b.txt", "b2\n"), put("new/other.txt", "o\n"))

	u, err := f.j.Undo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != second.ID || u.State != Undone || u.UndoneBy == "" {
		t.Errorf("first undo reverted %s (%s, by %q), want %s undone", u.ID, u.State, u.UndoneBy, second.ID)
	}
	f.sameTree(afterFirst)

	u, err = f.j.Undo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != first.ID {
		t.Errorf("second undo reverted %s, want %s", u.ID, first.ID)
	}
	// run.sh is back with its mode, new/ is gone again.
	f.sameTree(original)

	if _, err := f.j.Undo(context.Background()); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("third undo: err = %v, want ErrNothingToUndo", err)
	}

	var states []string
	for _, e := range f.entries() {
		states = append(states, e.State.String()+":"+e.Undoes)
	}
	want := []string{"undone:", "undone:", "committed:" + second.ID, "committed:" + first.ID}
	if !slices.Equal(states, want) {
		t.Errorf("entries = %v, want %v", states, want)
	}
}

func TestUndoAcrossSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	other := newFixture(t, f.state, f.j.opts.Now, map[string]string{"x.txt": "x\n"})

	f.commit("in the first session", put("a.txt", "a1\n"))
	later := New(f.root, Options{StateDir: f.state, Now: f.j.opts.Now})
	second, err := f.commitSet(later, f.load(put("b.txt", "b1\n")), "in the second session")
	if err != nil {
		t.Fatal(err)
	}
	// The latest commit under the base is another workspace's.
	other.commit("elsewhere", put("x.txt", "x1\n"))

	u, err := f.j.Undo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != second.ID {
		t.Errorf("undid %s, want the second session's %s", u.ID, second.ID)
	}
	if got := f.read("b.txt"); got != "b\n" {
		t.Errorf("b.txt = %q, want it restored", got)
	}
	if got := f.read("a.txt"); got != "a1\n" {
		t.Errorf("a.txt = %q, want the first session's commit kept", got)
	}
	if got := other.read("x.txt"); got != "x1\n" {
		t.Errorf("other workspace's x.txt = %q, want it untouched", got)
	}
}

func TestUndoConflict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		meddle func(f *fixture)
		want   []string
	}{
		{"edited", func(f *fixture) { f.write("a.txt", "user\n") }, []string{"a.txt"}},
		{"created file edited", func(f *fixture) { f.write("new/n.txt", "user\n") }, []string{"new/n.txt"}},
		{"created file removed", func(f *fixture) { removeAll(f, "new") }, []string{"new/n.txt"}},
		{"deleted file recreated", func(f *fixture) { f.write("gone.txt", "back\n") }, []string{"gone.txt"}},
		{"several", func(f *fixture) {
			f.write("gone.txt", "back\n")
			f.write("a.txt", "user\n")
		}, []string{"a.txt", "gone.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n", "gone.txt": "g\n"})
			e := f.commit("to undo", put("a.txt", "A\n"), put("new/n.txt", "n\n"), del("gone.txt"))
			tt.meddle(f)
			want := snapshot(t, f.dir)

			_, err := f.j.Undo(context.Background())
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *ConflictError", err)
			}
			if ce.Op != "undo" || !slices.Equal(ce.Paths, tt.want) {
				t.Errorf("conflict = %+v, want paths %v", ce, tt.want)
			}
			f.sameTree(want)
			if es := f.entries(); len(es) != 1 || es[0].ID != e.ID || es[0].State != Committed {
				t.Errorf("entries = %+v, want only the commit, still committed", es)
			}
		})
	}
}

func TestUndoNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup returns the journal to undo with.
		setup func(t *testing.T, f *fixture) *Journal
	}{
		{"no state directory yet", func(t *testing.T, f *fixture) *Journal {
			return New(f.root, Options{StateDir: filepath.Join(t.TempDir(), "none")})
		}},
		{"no journal", func(t *testing.T, f *fixture) *Journal { return f.j }},
		{"only a rolled-back commit", func(t *testing.T, f *fixture) *Journal {
			f.j.beforeApply = func(int, string) error { return errors.New("fail") }
			defer func() { f.j.beforeApply = nil }()
			if _, err := f.commitSet(f.j, f.load(put("a.txt", "b\n")), "failing"); err == nil {
				t.Fatal("commit did not fail")
			}
			return f.j
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
			j := tt.setup(t, f)
			if _, err := j.Undo(context.Background()); !errors.Is(err, ErrNothingToUndo) {
				t.Errorf("err = %v, want ErrNothingToUndo", err)
			}
			if got := f.read("a.txt"); got != "a\n" {
				t.Errorf("a.txt = %q, want it untouched", got)
			}
		})
	}
}

func removeAll(f *fixture, rel string) {
	f.t.Helper()
	if err := os.RemoveAll(filepath.Join(f.dir, rel)); err != nil {
		f.t.Fatal(err)
	}
}

// A session undoes its own commit only: when another run committed after
// it, undoing "the last" would revert the other run's work instead.
func TestUndoEntryOnlyWhenLast(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	mine := f.commit("this session's", put("a.txt", "a1\n"))
	theirs := f.commit("another run's", put("b.txt", "b1\n"))
	before := snapshot(t, f.dir)

	_, err := f.j.UndoEntry(context.Background(), mine.ID)
	var notLast *NotLastError
	if !errors.As(err, &notLast) || notLast.Last != theirs.ID || notLast.Want != mine.ID {
		t.Fatalf("UndoEntry(%s) with %s after it: err = %v, want a NotLastError naming %s", mine.ID, theirs.ID, err, theirs.ID)
	}
	f.sameTree(before)

	// Once the later commit is undone, the session's is the last again.
	if u, err := f.j.UndoEntry(context.Background(), theirs.ID); err != nil || u.ID != theirs.ID {
		t.Fatalf("UndoEntry(%s): %v", theirs.ID, err)
	}
	if u, err := f.j.UndoEntry(context.Background(), mine.ID); err != nil || u.ID != mine.ID {
		t.Fatalf("UndoEntry(%s) once it is last: %v", mine.ID, err)
	}
	if got := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q, want it restored", got)
	}
}
