package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/anvil-dev/anvil/internal/changeset"
)

// run carries ops through prepare, apply and commit in a new entry,
// rolling back if applying fails. undoes is the ID of the entry the ops
// revert, if any. The caller holds the lock.
func (j *Journal) run(r *os.Root, ops []*op, message, undoes string) (*Entry, error) {
	e, err := j.prepare(ops, message, undoes)
	if err != nil {
		if e != nil {
			// No user file was touched; settle the entry so that it does
			// not wait for a recovery with nothing to do.
			_ = e.setState(RolledBack)
		}
		return nil, err
	}
	j.step("prepared")
	if err := mkdirs(r, osPaths(e.Dirs)); err != nil {
		return nil, j.rollback(r, e, 0, fmt.Errorf("create directories: %w", err))
	}
	var asides []aside
	for i, o := range ops {
		if j.beforeApply != nil {
			if err := j.beforeApply(i, o.path); err != nil {
				return nil, j.rollback(r, e, i, err)
			}
		}
		a, err := j.swap(r, o)
		if err != nil {
			var conflict *ConflictError
			if errors.As(err, &conflict) {
				// Nothing of this file was replaced: roll back the others.
				if rerr := j.rollback(r, e, i, conflict); !errors.Is(rerr, conflict) {
					return nil, rerr
				}
				return nil, conflict
			}
			// The failed op may have reached the disk (a rename whose
			// directory sync failed), so it is rolled back too.
			return nil, j.rollback(r, e, i+1, fmt.Errorf("write %s: %w", o.path, err))
		}
		if a.name != "" {
			a.index = i
			asides = append(asides, a)
		}
	}
	j.keepLateWrites(r, e, asides)
	j.step("committing")
	if err := e.setState(Committed); err != nil {
		return nil, j.rollback(r, e, len(ops), err)
	}
	j.step("committed")
	for _, a := range asides {
		_ = removeFile(r, a.name)
	}
	return e, nil
}

// aside is a file moved out of the way by a commit: the inode the user's
// file was, kept until the commit ends.
type aside struct {
	name  string // OS path relative to the root
	index int    // the op it belongs to
	size  int64
	mtime int64
}

// swap replaces or removes the file of o, closing the window between the
// conflict check and the write: the file is first moved aside (a rename,
// atomic), and what was moved is compared with what the journal saved; a
// difference (a save that landed since the check) puts it back and is a
// conflict. The new content then goes in with a rename that fails if the
// name was taken meanwhile (a save creating the file again), which is a
// conflict too. So a concurrent save is never overwritten: either it is
// the refused conflict, or it lands after the swap and is simply the
// newest version.
func (j *Journal) swap(r *os.Root, o *op) (aside, error) {
	name := filepath.FromSlash(o.path)
	dir, base := filepath.Split(name)
	dir = filepath.Clean(dir)
	d, err := r.Open(dir)
	if err != nil {
		return aside{}, err
	}
	defer d.Close()
	var a aside
	if o.exists {
		moved, err := moveAside(d, base)
		if errors.Is(err, fs.ErrNotExist) {
			return aside{}, &ConflictError{Op: "commit", Paths: []string{o.path}}
		}
		if err != nil {
			return aside{}, err
		}
		a.name = filepath.Join(dir, moved)
		st, same := sameFile(r, a.name, o)
		if !same {
			if err := renameNoReplace(d, moved, base); err != nil {
				return aside{}, fmt.Errorf("%s was changed during the commit; its content is kept in %s: %w", o.path, a.name, err)
			}
			return aside{}, &ConflictError{Op: "commit", Paths: []string{o.path}}
		}
		a.size, a.mtime = st.Size(), st.ModTime().UnixNano()
	}
	if j.beforeSwap != nil {
		j.beforeSwap(o.path)
	}
	if o.delete {
		return a, syncFile(d)
	}
	f, tmp, err := createTemp(r, dir, base)
	if err != nil {
		return a, j.putBack(d, a, base, err)
	}
	if err := writeSynced(f, o.content, o.newMode); err != nil {
		_ = r.Remove(tmp)
		return a, j.putBack(d, a, base, err)
	}
	if err := renameNoReplace(d, filepath.Base(tmp), base); err != nil {
		_ = r.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			// Someone wrote the file again after it was moved aside: theirs
			// stays, this commit does not go over it.
			return aside{}, &ConflictError{Op: "commit", Paths: []string{o.path}}
		}
		return a, j.putBack(d, a, base, err)
	}
	return a, syncFile(d)
}

// putBack moves an aside file back after a failed write, and returns err.
func (j *Journal) putBack(d *os.File, a aside, base string, err error) error {
	if a.name != "" {
		_ = renameNoReplace(d, filepath.Base(a.name), base)
	}
	return err
}

// sameFile reports whether the file at name (moved aside) is still the
// one o read: same content and mode, a regular file.
func sameFile(r *os.Root, name string, o *op) (fs.FileInfo, bool) {
	st, err := r.Lstat(name)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != o.mode {
		return nil, false
	}
	data, err := r.ReadFile(name)
	if err != nil || changeset.Hash(data) != changeset.Hash(o.cur) {
		return nil, false
	}
	return st, true
}

// keepLateWrites looks at the files moved aside once more before the
// commit is marked done: a program that had one open and wrote to it after
// it was moved (an editor writing in place) changed the old inode. That
// content becomes the entry's saved content, so undo restores it.
func (j *Journal) keepLateWrites(r *os.Root, e *Entry, asides []aside) {
	for _, a := range asides {
		st, err := r.Lstat(a.name)
		if err != nil || (st.Size() == a.size && st.ModTime().UnixNano() == a.mtime) {
			continue
		}
		data, err := r.ReadFile(a.name)
		if err != nil {
			continue
		}
		f := &e.Files[a.index]
		saved := savedDir + "/" + strconv.Itoa(a.index) + "-late"
		if writeNew(filepath.Join(e.dir, filepath.FromSlash(saved)), data) != nil {
			continue
		}
		f.Saved, f.BeforeHash = saved, changeset.Hash(data)
		e.Late = append(e.Late, f.Path)
	}
}

// rollback restores the first n files of e after cause stopped the commit,
// marks e RolledBack and returns cause. If a file cannot be restored, e stays
// Prepared for Recover to try again, and the error says so.
func (j *Journal) rollback(r *os.Root, e *Entry, n int, cause error) error {
	var errs []error
	for i := n - 1; i >= 0; i-- {
		if err := restore(r, e, e.Files[i]); err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", e.Files[i].Path, err))
		}
	}
	for _, f := range e.Files {
		_ = removeAsides(r, filepath.FromSlash(f.Path), f.BeforeHash)
	}
	if len(errs) == 0 {
		pruneDirs(r, osPaths(e.Dirs))
		errs = append(errs, e.setState(RolledBack))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("entry %s: %w; rolling back failed, recovery will retry: %w", e.ID, cause, err)
	}
	var conflict *ConflictError
	if errors.As(cause, &conflict) {
		return cause
	}
	return fmt.Errorf("entry %s: %w; rolled back", e.ID, cause)
}

// restore puts the file f of entry e back to its state before e.
func restore(r *os.Root, e *Entry, f File) error {
	name := filepath.FromSlash(f.Path)
	if !f.Existed {
		return removeFile(r, name)
	}
	data, err := e.readSaved(f)
	if err != nil {
		return err
	}
	// The directory may be gone if the user removed it since.
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return writeFile(r, name, data, f.Mode)
}

// prepare records ops in a new entry, state Prepared, and makes it durable.
// It returns the entry, if its manifest was written, even on error.
func (j *Journal) prepare(ops []*op, message, undoes string) (*Entry, error) {
	dir, err := newEntryDir(j.dir)
	if err != nil {
		return nil, err
	}
	e := &Entry{
		Version: formatVersion,
		ID:      filepath.Base(dir),
		Root:    j.root.Dir(),
		RootID:  j.root.ID().String(),
		Time:    j.opts.Now().UTC(),
		Message: message,
		State:   Prepared,
		Undoes:  undoes,
		dir:     dir,
	}
	r, err := j.openRoot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if e.Dirs, err = missingDirs(r, ops); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	saved := filepath.Join(dir, savedDir)
	if err := os.Mkdir(saved, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	for i, o := range ops {
		f := File{Path: o.path, Existed: o.exists, Deleted: o.delete}
		if o.exists {
			f.Mode, f.BeforeHash = o.mode, changeset.Hash(o.cur)
			f.Saved = savedDir + "/" + strconv.Itoa(i)
			if err := writeNew(filepath.Join(saved, strconv.Itoa(i)), o.cur); err != nil {
				return nil, fmt.Errorf("journal %s: save %s: %w", e.ID, o.path, err)
			}
		}
		if !o.delete {
			f.AfterHash, f.AfterMode = changeset.Hash(o.content), o.newMode
		}
		e.Files = append(e.Files, f)
	}
	// The saved contents must be durable before the manifest that points
	// at them is.
	if err := syncPath(saved); err != nil {
		return nil, fmt.Errorf("journal %s: %w", e.ID, err)
	}
	if err := e.save(); err != nil {
		return nil, err
	}
	// The entry directory is new: sync its parent so that Recover finds
	// the entry after a crash.
	if err := syncPath(j.dir); err != nil {
		return e, fmt.Errorf("journal %s: %w", e.ID, err)
	}
	return e, nil
}

// newEntryDir creates the next numbered entry directory in jdir. Mkdir fails
// on an existing name, so two writers never share a number.
func newEntryDir(jdir string) (string, error) {
	ents, err := os.ReadDir(jdir)
	if err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	seq := 0
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > seq {
			seq = n
		}
	}
	for {
		seq++
		dir := filepath.Join(jdir, fmt.Sprintf("%06d", seq))
		err := os.Mkdir(dir, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("journal: %w", err)
		}
		return dir, nil
	}
}

// writeNew creates the file at p with data and fsyncs it. The file is only
// referenced once the manifest is written, so it need not be atomic.
func writeNew(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// missingDirs returns the directories, slash-separated and parents first,
// that must be created for the new files of ops.
func missingDirs(r *os.Root, ops []*op) ([]string, error) {
	var dirs []string
	for _, o := range ops {
		if !o.created() {
			continue
		}
		var missing []string
		for d := path.Dir(o.path); d != "."; d = path.Dir(d) {
			_, err := r.Stat(filepath.FromSlash(d))
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			missing = append(missing, d)
		}
		slices.Reverse(missing)
		for _, d := range missing {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs, nil
}

// osPaths converts slash-separated paths to the OS form.
func osPaths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = filepath.FromSlash(p)
	}
	return out
}
