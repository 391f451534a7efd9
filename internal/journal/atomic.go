package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
)

// The file operations below go through an [os.Root], so that a symlink
// planted inside the workspace cannot redirect a write outside it, even
// after [workspace.Root.Resolve] has checked the path. Paths are relative to
// the os.Root and use the OS separator.

// tempMarker is part of every temporary file's name, so that recovery can
// recognise and delete the ones a crash left behind; asideMarker of the
// names of files a commit moves out of the way (see Journal.swap).
const (
	tempMarker  = ".anvil-tmp-"
	asideMarker = ".anvil-old-"
)

// writeFile replaces name with data and permission bits perm atomically:
// readers see either the old file or the whole new one, and after a crash the
// file is one or the other.
func writeFile(r *os.Root, name string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(name)
	dir = filepath.Clean(dir)
	f, tmp, err := createTemp(r, dir, base)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			r.Remove(tmp)
		}
	}()
	if err := writeSynced(f, data, perm); err != nil {
		return err
	}
	if err := r.Rename(tmp, name); err != nil {
		return err
	}
	return syncDir(r, dir)
}

// writeSynced writes data to the new file f, gives it mode perm, makes it
// durable and closes it.
func writeSynced(f *os.File, data []byte, perm fs.FileMode) error {
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	// Chmod on the open file, not at creation, so the umask cannot strip
	// bits the file had (a 0775 file stays 0775).
	if err := f.Chmod(perm.Perm()); err != nil {
		return err
	}
	// Without this fsync a crash after the rename can leave an empty file:
	// the rename may reach the disk before the data does.
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// createTemp creates a new, empty file next to base in dir. Being in the same
// directory keeps the later rename on one file system, hence atomic.
func createTemp(r *os.Root, dir, base string) (*os.File, string, error) {
	for range 10 {
		name := filepath.Join(dir, fmt.Sprintf(".%s%s%08x", base, tempMarker, rand.Uint32()))
		f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("create temporary file for %s: too many collisions", filepath.Join(dir, base))
}

// removeFile deletes name if it exists and makes the removal durable.
func removeFile(r *os.Root, name string) error {
	if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(r, filepath.Dir(name))
}

// removeTemps deletes temporary files a crash may have left beside name.
func removeTemps(r *os.Root, name string) error {
	paths, err := siblings(r, name, tempMarker)
	var errs []error
	for _, p := range paths {
		errs = append(errs, r.Remove(p))
	}
	return errors.Join(append(errs, err)...)
}

// siblings lists the regular files beside name that Anvil made from it
// with marker (".name" + marker + ...), as paths in r.
func siblings(r *os.Root, name, marker string) ([]string, error) {
	dir, base := filepath.Split(name)
	dir = filepath.Clean(dir)
	d, err := r.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	prefix := "." + base + marker
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// mkdirs creates each directory of dirs, parents before children, and makes
// each new entry durable by syncing its parent. Existing ones are fine.
func mkdirs(r *os.Root, dirs []string) error {
	for _, d := range dirs {
		if err := r.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := syncDir(r, filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// pruneDirs removes those of dirs that are empty, children before parents.
// It is best effort: a directory someone put files into is simply kept.
func pruneDirs(r *os.Root, dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		if r.Remove(dirs[i]) == nil {
			_ = syncDir(r, filepath.Dir(dirs[i]))
		}
	}
}

// syncDir fsyncs directory dir of the workspace, which makes the creation,
// rename or removal of its entries durable.
func syncDir(r *os.Root, dir string) error {
	return syncOpened(func() (*os.File, error) { return r.Open(dir) })
}

// syncPath fsyncs the directory at the absolute path dir (in the journal,
// outside the workspace).
func syncPath(dir string) error {
	return syncOpened(func() (*os.File, error) { return os.Open(dir) })
}

// syncOpened opens a directory and fsyncs it. Windows cannot fsync a
// directory, and there renames are journaled by NTFS itself.
func syncOpened(open func() (*os.File, error)) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := open()
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// moveAside renames base, in the directory d, to a new hidden name beside
// it and returns that name.
func moveAside(d *os.File, base string) (string, error) {
	for range 10 {
		name := fmt.Sprintf(".%s%s%08x", base, asideMarker, rand.Uint32())
		err := renameNoReplace(d, base, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, err
	}
	return "", fmt.Errorf("move %s aside: too many collisions", base)
}

// syncFile fsyncs the open directory d.
func syncFile(d *os.File) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	return d.Sync()
}

// removeAsides deletes the files moved aside from name whose content has
// the hash before: copies of what the journal saved. Others (a late write
// nobody kept) stay.
func removeAsides(r *os.Root, name, before string) error {
	paths, err := siblings(r, name, asideMarker)
	var errs []error
	for _, p := range paths {
		if data, err := r.ReadFile(p); err == nil && changeset.Hash(data) == before {
			errs = append(errs, removeFile(r, p))
		}
	}
	return errors.Join(append(errs, err)...)
}
