package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// clock returns a fake clock that moves one minute forward on every call, so
// that entries are ordered by the order of the commits.
func clock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Minute)
		return t
	}
}

// fixture is a workspace with its journal, under a state directory of its
// own.
type fixture struct {
	t     *testing.T
	dir   string
	root  *workspace.Root
	state string
	j     *Journal
}

// newFixture builds a workspace holding files (see [testfs.Write]) whose
// journal lives under the state directory stateDir ("" for a new
// temporary one).
func newFixture(t *testing.T, stateDir string, now func() time.Time, files map[string]string) *fixture {
	t.Helper()
	if stateDir == "" {
		stateDir = filepath.Join(t.TempDir(), "state")
	}
	if now == nil {
		now = clock()
	}
	dir := testfs.Tree(t, files)
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, dir: root.Dir(), root: root, state: stateDir, j: New(root, Options{StateDir: stateDir, Now: now})}
}

// commitSet commits set under the workspace lock, as the gate does.
func (f *fixture) commitSet(j *Journal, set *changeset.Set, msg string) (*Entry, error) {
	lock, err := j.Lock(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	return j.Commit(context.Background(), lock, set, msg)
}

func put(path, content string) changeset.Spec {
	return changeset.Spec{Path: path, Content: &content}
}

func del(path string) changeset.Spec {
	return changeset.Spec{Path: path, Delete: true}
}

// load reads a change set against the workspace as it is now.
func (f *fixture) load(specs ...changeset.Spec) *changeset.Set {
	f.t.Helper()
	set, err := changeset.Load(f.root, specs)
	if err != nil {
		f.t.Fatal(err)
	}
	return set
}

// commit loads specs and commits them, failing the test on error.
func (f *fixture) commit(msg string, specs ...changeset.Spec) *Entry {
	f.t.Helper()
	e, err := f.commitSet(f.j, f.load(specs...), msg)
	if err != nil {
		f.t.Fatalf("commit %q: %v", msg, err)
	}
	return e
}

// errCrash is what a test's beforeApply hook panics with to stop a commit
// dead, the way a killed process would: no rollback, no state change.
var errCrash = errors.New("simulated crash")

// crash commits set but stops before writing its n-th file, leaving the
// entry Prepared and the first n files written.
func (f *fixture) crash(set *changeset.Set, n int) {
	f.t.Helper()
	f.j.beforeApply = func(i int, _ string) error {
		if i == n {
			panic(errCrash)
		}
		return nil
	}
	defer func() {
		f.j.beforeApply = nil
		// r is nil when t.Fatal below ends the test: let it end.
		if r := recover(); r != nil && r != errCrash {
			panic(r)
		}
	}()
	lock, err := f.j.Lock(context.Background(), nil)
	if err != nil {
		f.t.Fatal(err)
	}
	defer lock.Unlock() // the kernel's part when a process dies
	f.j.Commit(context.Background(), lock, set, "crashing")
	f.t.Fatal("commit did not crash")
}

// chmod sets the permission bits of a workspace file.
func (f *fixture) chmod(rel string, mode fs.FileMode) {
	f.t.Helper()
	if err := os.Chmod(filepath.Join(f.dir, rel), mode); err != nil {
		f.t.Fatal(err)
	}
}

// write replaces a workspace file's content, keeping its mode.
func (f *fixture) write(rel, content string) {
	f.t.Helper()
	testfs.Write(f.t, f.dir, map[string]string{rel: content})
}

// read returns a workspace file's content, or "<absent>".
func (f *fixture) read(rel string) string {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.dir, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// entries returns the workspace's journal entries.
func (f *fixture) entries() []*Entry {
	f.t.Helper()
	es, problems, err := f.j.scan()
	if err := errors.Join(append(problems, err)...); err != nil {
		f.t.Fatal(err)
	}
	return es
}

// snapshot describes every file and directory under dir: a file as its mode
// and exact content, a directory as "dir".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%v %q", info.Mode().Perm(), data)
		default:
			out[rel] = info.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails the test unless the workspace matches want exactly.
func (f *fixture) sameTree(want map[string]string) {
	f.t.Helper()
	got := snapshot(f.t, f.dir)
	var diffs []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing %s (want %s)", k, w))
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%s: got %s, want %s", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("unexpected %s (%s)", k, g))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		f.t.Errorf("workspace differs:\n\t%s", strings.Join(diffs, "\n\t"))
	}
}
