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
	"github.com/anvil-dev/anvil/internal/session"
)

// run carries ops through prepare, apply and commit in a new entry of the
// session in sessDir, rolling back if applying fails. undoes is the ID of the
// entry the ops revert, if any. The caller holds the lock.
func (j *Journal) run(r *os.Root, sessDir string, ops []*op, message, undoes string) (*Entry, error) {
	e, err := j.prepare(r, sessDir, ops, message, undoes)
	if err != nil {
		if e != nil {
			// No user file was touched; settle the entry so that it does
			// not wait for a recovery with nothing to do.
			_ = e.setState(RolledBack)
		}
		return nil, err
	}
	if err := mkdirs(r, osPaths(e.Dirs)); err != nil {
		return nil, j.rollback(r, e, 0, fmt.Errorf("create directories: %w", err))
	}
	for i, o := range ops {
		if j.beforeApply != nil {
			if err := j.beforeApply(i, o.path); err != nil {
				return nil, j.rollback(r, e, i, err)
			}
		}
		if err := apply(r, o); err != nil {
			// The failed op may have reached the disk (a rename whose
			// directory sync failed), so it is rolled back too.
			return nil, j.rollback(r, e, i+1, fmt.Errorf("write %s: %w", o.path, err))
		}
	}
	if err := e.setState(Committed); err != nil {
		return nil, j.rollback(r, e, len(ops), err)
	}
	return e, nil
}

// apply writes or removes one file.
func apply(r *os.Root, o *op) error {
	name := filepath.FromSlash(o.path)
	if o.delete {
		return removeFile(r, name)
	}
	return writeFile(r, name, o.content, o.newMode)
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
	if len(errs) == 0 {
		pruneDirs(r, osPaths(e.Dirs))
		errs = append(errs, e.setState(RolledBack))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("entry %s: %w; rolling back failed, recovery will retry: %w", e.ID, cause, err)
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
func (j *Journal) prepare(r *os.Root, sessDir string, ops []*op, message, undoes string) (*Entry, error) {
	jdir := filepath.Join(sessDir, session.JournalDir)
	if err := os.MkdirAll(jdir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	dir, err := newEntryDir(jdir)
	if err != nil {
		return nil, err
	}
	e := &Entry{
		Version: formatVersion,
		ID:      filepath.Base(sessDir) + "/" + filepath.Base(dir),
		Root:    j.root.Dir(),
		Time:    j.now().UTC(),
		Message: message,
		State:   Prepared,
		Undoes:  undoes,
		dir:     dir,
	}
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
	// The entry, journal and session directories may all be new: sync each
	// parent so that the chain from the sessions base down to the manifest
	// survives a crash, and Recover can find the entry.
	for _, d := range []string{jdir, sessDir, filepath.Dir(sessDir)} {
		if err := syncPath(d); err != nil {
			return e, fmt.Errorf("journal %s: %w", e.ID, err)
		}
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
