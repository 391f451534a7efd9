package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCommit(t *testing.T) {
	t.Parallel()
	original := map[string]string{
		"win.txt":     "one\r\ntwo\r\n",
		"script.sh":   "#!/bin/sh\necho hi\n",
		"old.txt":     "bye\n",
		"same.txt":    "same\n",
		"src/keep.go": "package src\n",
	}
	f := newFixture(t, "", nil, original)
	f.chmod("script.sh", 0o755)
	before := snapshot(t, f.dir)

	e := f.commit("several kinds of change",
		put("win.txt", "one\r\nTWO\r\nthree"), // CRLF kept, no final newline
		put("script.sh", "#!/bin/sh\necho bye\n"),
		put("src/new/deep/x.go", "package deep\r\n\n"),
		del("old.txt"),
		put("same.txt", "same\n"), // unchanged: skipped
	)

	f.sameTree(map[string]string{
		"win.txt":           `-rw-r--r-- "one\r\nTWO\r\nthree"`,
		"script.sh":         `-rwxr-xr-x "#!/bin/sh\necho bye\n"`,
		"same.txt":          before["same.txt"],
		"src":               "dir",
		"src/keep.go":       before["src/keep.go"],
		"src/new":           "dir",
		"src/new/deep":      "dir",
		"src/new/deep/x.go": `-rw-r--r-- "package deep\r\n\n"`,
	})

	if e.State != Committed {
		t.Errorf("state = %s, want committed", e.State)
	}
	if got, want := e.Paths(), []string{"old.txt", "script.sh", "src/new/deep/x.go", "win.txt"}; !slices.Equal(got, want) {
		t.Errorf("paths = %v, want %v", got, want)
	}
	if want := []string{"src/new", "src/new/deep"}; !slices.Equal(e.Dirs, want) {
		t.Errorf("created dirs = %v, want %v", e.Dirs, want)
	}
	// The manifest on disk says the same, and the old contents are saved.
	es := f.entries()
	if len(es) != 1 || es[0].ID != e.ID || es[0].State != Committed || es[0].Message != "several kinds of change" {
		t.Fatalf("entries on disk = %+v, want the one committed entry", es)
	}
	for _, file := range es[0].Files {
		switch file.Path {
		case "old.txt":
			if !file.Existed || !file.Deleted || file.AfterHash != "" {
				t.Errorf("old.txt recorded as %+v, want existed and deleted", file)
			}
		case "src/new/deep/x.go":
			if file.Existed || file.Saved != "" || file.AfterMode != 0o644 {
				t.Errorf("x.go recorded as %+v, want new with mode 0644", file)
			}
		case "script.sh":
			if file.Mode != 0o755 || file.AfterMode != 0o755 {
				t.Errorf("script.sh modes %v -> %v, want 0755 kept", file.Mode, file.AfterMode)
			}
		}
		if file.Existed {
			data, err := es[0].readSaved(file)
			if err != nil {
				t.Fatal(err)
			}
			if want := original[file.Path]; string(data) != want {
				t.Errorf("saved %s = %q, want %q", file.Path, data, want)
			}
		}
	}
}

func TestCommitKeepsMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mode fs.FileMode
	}{
		{"script", 0o755},
		{"private", 0o600},
		{"group readable", 0o640},
		{"group writable", 0o664},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "", nil, map[string]string{"f": "old\n"})
			f.chmod("f", tt.mode)
			f.commit("edit", put("f", "new\n"))
			info, err := os.Stat(filepath.Join(f.dir, "f"))
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != tt.mode {
				t.Errorf("mode = %v, want %v", info.Mode().Perm(), tt.mode)
			}
		})
	}
}

func TestCommitConflict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// meddle changes the workspace after the change set was loaded.
		meddle func(f *fixture)
		want   []string
	}{
		{"edited", func(f *fixture) { f.write("a.txt", "user's edit\n") }, []string{"a.txt"}},
		{"removed", func(f *fixture) { os.Remove(filepath.Join(f.dir, "a.txt")) }, []string{"a.txt"}},
		{"chmodded", func(f *fixture) { f.chmod("a.txt", 0o600) }, []string{"a.txt"}},
		{"new file created meanwhile", func(f *fixture) { f.write("dir/new.txt", "mine\n") }, []string{"dir/new.txt"}},
		{"deleted file edited", func(f *fixture) { f.write("gone.txt", "still here, edited\n") }, []string{"gone.txt"}},
		{"replaced by a directory", func(f *fixture) {
			os.Remove(filepath.Join(f.dir, "a.txt"))
			os.Mkdir(filepath.Join(f.dir, "a.txt"), 0o755)
		}, []string{"a.txt"}},
		{"several", func(f *fixture) {
			f.write("a.txt", "x")
			f.write("b.txt", "y")
		}, []string{"a.txt", "b.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "", nil, map[string]string{
				"a.txt":    "a\n",
				"b.txt":    "b\n",
				"gone.txt": "g\n",
			})
			set := f.load(put("a.txt", "A\n"), put("b.txt", "B\n"), put("dir/new.txt", "n\n"), del("gone.txt"))
			tt.meddle(f)
			want := snapshot(t, f.dir)

			_, err := f.commitSet(f.j, set, "conflicting")
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *ConflictError", err)
			}
			if ce.Op != "commit" || !slices.Equal(ce.Paths, tt.want) {
				t.Errorf("conflict = %+v, want paths %v", ce, tt.want)
			}
			f.sameTree(want)
			if es := f.entries(); len(es) != 0 {
				t.Errorf("journal written despite the conflict: %+v", es)
			}
		})
	}
}

func TestCommitFailureRollsBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{
		"a.txt": "a\r\n",
		"c.txt": "c\n",
		"d.txt": "d\n",
	})
	f.chmod("c.txt", 0o755)
	want := snapshot(t, f.dir)
	set := f.load(put("a.txt", "A\r\n"), put("b/c/new.txt", "new\n"), del("c.txt"), put("d.txt", "D\n"))
	errDisk := errors.New("disk full")
	f.j.beforeApply = func(i int, _ string) error {
		if i == 3 { // after a.txt, b/c/new.txt and c.txt
			return errDisk
		}
		return nil
	}

	_, err := f.commitSet(f.j, set, "failing")
	if !errors.Is(err, errDisk) {
		t.Fatalf("err = %v, want %v", err, errDisk)
	}
	f.sameTree(want)
	es := f.entries()
	if len(es) != 1 || es[0].State != RolledBack {
		t.Fatalf("entries = %+v, want one rolled back", es)
	}
	// A rolled-back commit blocks nothing.
	f.j.beforeApply = nil
	f.commit("retry", put("a.txt", "A\r\n"))
}

func TestCommitNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
	_, err := f.commitSet(f.j, f.load(put("a.txt", "a\n")), "no-op")
	if !errors.Is(err, ErrNothingToCommit) {
		t.Errorf("err = %v, want ErrNothingToCommit", err)
	}
}

// Commit needs the lock held: it is taken before the last validation.
func TestCommitNeedsTheLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
	if _, err := f.j.Commit(context.Background(), nil, f.load(put("a.txt", "b\n")), "unlocked"); err == nil {
		t.Fatal("a commit without the lock succeeded")
	}
	if got := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q, want it untouched", got)
	}
}

func TestCommitWaitsForLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "", nil, map[string]string{"a.txt": "a\n"})
	// Another process holding the lock looks the same: flock locks belong
	// to open files, not processes. Another run has another session.
	other, err := New(f.root, Options{StateDir: f.state}).Lock(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var holder string
	_, err = f.j.Lock(ctx, func(h string) { holder = h })
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(holder, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("err = %v, holder %q; want the wait to time out, naming the holder", err, holder)
	}
	if got := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q, want it untouched", got)
	}
	other.Unlock()
	f.commit("unblocked", put("a.txt", "b\n"))
}
