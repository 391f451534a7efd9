package journal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/state"
)

// plant writes an entry into f's journal directory the way another local
// user (or a damaged disk) could: a prepared commit whose "before" would
// replace src/auth.ts with content of the planter's choosing.
func plant(t *testing.T, f *fixture, mutate func(m map[string]any)) string {
	t.Helper()
	if err := f.j.open(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(f.j.dir, "000099")
	if err := os.MkdirAll(filepath.Join(dir, savedDir), 0o700); err != nil {
		t.Fatal(err)
	}
	evil := []byte("export const stolen = true;\n")
	if err := os.WriteFile(filepath.Join(dir, savedDir, "0"), evil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := map[string]any{
		"version": formatVersion, "root": f.dir, "state": "prepared", "time": "2026-01-01T00:00:00Z",
		"files": []map[string]any{{
			"path": "src/auth.ts", "existed": true, "mode": 0o644, "saved": "files/0",
			"before_hash": changeset.Hash(evil), "after_hash": changeset.Hash([]byte(f.read("src/auth.ts"))), "after_mode": 0o644,
		}},
	}
	if mutate != nil {
		mutate(m)
	}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, manifestFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Entries are checked before anything acts on them: one another user owns
// or can write, one naming a path outside the workspace, or one of a
// newer format is never applied, and says what to do.
func TestPlantedEntriesAreNeverApplied(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, dir string)
		mutate func(m map[string]any)
		want   string
	}{
		{"owned by another user", func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file away") // the mode case below covers everyone
			}
			for _, p := range []string{dir, filepath.Join(dir, manifestFile)} {
				if err := os.Chown(p, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
		}, nil, "owned by another user"},
		{"writable by others", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, manifestFile), 0o666)
		}, nil, "can be written by others"},
		{"a path outside the workspace", nil, func(m map[string]any) {
			m["files"].([]map[string]any)[0]["path"] = "../outside.ts"
		}, "not a clean path inside the workspace"},
		{"a path into .git", nil, func(m map[string]any) {
			m["files"].([]map[string]any)[0]["path"] = ".git/hooks/pre-commit"
		}, "Anvil never writes there"},
		{"another workspace's root", nil, func(m map[string]any) { m["root"] = "/elsewhere" }, "is for /elsewhere"},
		{"a newer format", nil, func(m map[string]any) { m["version"] = formatVersion + 1 }, "newer than this Anvil reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", nil, map[string]string{"src/auth.ts": "export const real = 1;\n", "src/db.ts": "x\n"})
			want := snapshot(t, f.dir)
			dir := plant(t, f, tc.mutate)
			if tc.tamper != nil {
				tc.tamper(t, dir)
			}
			recs, err := f.j.Recover(context.Background())
			if len(recs) != 0 || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("recover = %v, %v; want nothing applied and an error saying %q", recs, err, tc.want)
			}
			f.sameTree(want)
			// Commit and undo refuse as well, rather than go on past an
			// entry they cannot judge.
			if _, err := f.commitSet(f.j, f.load(put("src/db.ts", "y\n")), "after"); err == nil {
				t.Error("commit went on past an unusable entry")
			}
			f.sameTree(want)
		})
	}
}

// A bad entry in one workspace's journal affects no other workspace.
func TestBadEntryStaysInItsWorkspace(t *testing.T) {
	a := newFixture(t, "", nil, map[string]string{"src/auth.ts": "a\n"})
	b := newFixture(t, a.state, nil, map[string]string{"b.txt": "b\n"})
	plant(t, a, func(m map[string]any) { m["version"] = formatVersion + 1 })
	if _, err := b.j.Recover(context.Background()); err != nil {
		t.Fatalf("b's recovery: %v", err)
	}
	b.commit("b goes on", put("b.txt", "B\n"))
	if _, err := b.j.Undo(context.Background()); err != nil {
		t.Fatalf("b's undo: %v", err)
	}
}

// A state directory someone else controls is refused.
func TestStateDirectoryMustBePrivate(t *testing.T) {
	f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
	if err := os.MkdirAll(f.state, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(f.state, 0o777)
	_, err := f.commitSet(f.j, f.load(put("a.txt", "b\n")), "x")
	if !state.IsUnsafe(err) {
		t.Fatalf("err = %v, want the state directory refused", err)
	}
	if got := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// A save that lands between the conflict check and the write is never
// lost: before the file is moved aside it is a conflict; after, the save
// creates the file again and the commit does not go over it.
func TestCommitWindow(t *testing.T) {
	t.Run("save just before the swap", func(t *testing.T) {
		f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
		set := f.load(put("a.txt", "A\n"), put("b.txt", "B\n"))
		f.j.beforeApply = func(i int, p string) error {
			if p == "b.txt" {
				f.write("b.txt", "the user's save\n")
			}
			return nil
		}
		_, err := f.commitSet(f.j, set, "racing")
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Paths[0] != "b.txt" {
			t.Fatalf("err = %v, want a conflict on b.txt", err)
		}
		if f.read("b.txt") != "the user's save\n" || f.read("a.txt") != "a\n" {
			t.Errorf("a.txt %q, b.txt %q: want a rolled back and the save kept", f.read("a.txt"), f.read("b.txt"))
		}
		assertNoLeftovers(t, f)
	})
	t.Run("save after the file was moved aside", func(t *testing.T) {
		f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
		set := f.load(put("a.txt", "A\n"))
		f.j.beforeSwap = func(p string) { f.write(p, "the user's save\n") }
		_, err := f.commitSet(f.j, set, "racing")
		var ce *ConflictError
		if !errors.As(err, &ce) {
			t.Fatalf("err = %v, want a conflict", err)
		}
		if got := f.read("a.txt"); got != "the user's save\n" {
			t.Errorf("a.txt = %q, want the save kept", got)
		}
		assertNoLeftovers(t, f)
	})
	t.Run("a write into the old file while it is replaced", func(t *testing.T) {
		f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
		set := f.load(put("a.txt", "A\n"))
		// An editor that had the file open writes to it in place.
		fd, err := os.OpenFile(filepath.Join(f.dir, "a.txt"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer fd.Close()
		f.j.beforeSwap = func(string) { fd.WriteString("the user's late line\n") }
		e, err := f.commitSet(f.j, set, "racing")
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Late) != 1 || f.read("a.txt") != "A\n" {
			t.Fatalf("late %v, a.txt %q", e.Late, f.read("a.txt"))
		}
		f.j.beforeSwap = nil
		if _, err := f.j.Undo(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := f.read("a.txt"); got != "a\nthe user's late line\n" {
			t.Errorf("after undo a.txt = %q, want the late write restored", got)
		}
		assertNoLeftovers(t, f)
	})
}

func assertNoLeftovers(t *testing.T, f *fixture) {
	t.Helper()
	for p := range snapshot(t, f.dir) {
		if strings.Contains(p, asideMarker) || strings.Contains(p, tempMarker) {
			t.Errorf("left behind: %s", p)
		}
	}
}

// Runs that commit to the same files at once never lose an update: each
// commit is made against the base it read, under the workspace's lock, so
// of the runs that read the same base one wins and the others conflict.
func TestConcurrentCommitsLoseNothing(t *testing.T) {
	f := newFixture(t, "", nil, map[string]string{"a.txt": "0\n", "b.txt": "0\n"})
	const runs = 12
	// Every run's change set is read against the same base before any
	// commits (reading it inside the goroutines would let a slow one read
	// the winner's result as its base, and commit legitimately); then all
	// commit at once.
	sets := make([]*changeset.Set, runs)
	for i := range runs {
		set := f.load(put("a.txt", "run\n"), put("b.txt", "run\n"))
		c, _ := set.Get("a.txt")
		c.Content = []byte(strings.Repeat("x", i+1) + "\n")
		c2, _ := set.Get("b.txt")
		c2.Content = c.Content
		sets[i] = set
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]error, runs)
	for i := range runs {
		wg.Go(func() {
			j := New(f.root, Options{StateDir: f.state})
			<-start
			_, results[i] = f.commitSet(j, sets[i], "concurrent")
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range results {
		var ce *ConflictError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &ce):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d runs committed over the same base, want exactly 1", won)
	}
	if f.read("a.txt") != f.read("b.txt") {
		t.Errorf("mixed result: a.txt %q, b.txt %q", f.read("a.txt"), f.read("b.txt"))
	}
	// The losers found the conflict before writing anything.
	if es := f.entries(); len(es) != 1 || countState(es, Committed) != 1 {
		t.Errorf("entries: %d, committed %d; want only the winner's", len(es), countState(es, Committed))
	}
}

func countState(es []*Entry, s State) int {
	n := 0
	for _, e := range es {
		if e.State == s {
			n++
		}
	}
	return n
}

// Undo reverts the commit, not what the user did since: a chmod after the
// commit stays.
func TestUndoKeepsTheUsersMode(t *testing.T) {
	f := newFixture(t, "", nil, map[string]string{"run.sh": "echo a\n"})
	f.commit("edit", put("run.sh", "echo b\n"))
	f.chmod("run.sh", 0o700)
	if _, err := f.j.Undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(f.dir, "run.sh"))
	if f.read("run.sh") != "echo a\n" || info.Mode().Perm() != 0o700 {
		t.Errorf("after undo: %q, mode %v; want the old content and the user's 0700", f.read("run.sh"), info.Mode().Perm())
	}
}
