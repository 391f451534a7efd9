package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// ErrNotRegular is returned (wrapped) for a path that is a FIFO, a
// device, a socket or a directory where a file's content is wanted:
// opening a FIFO for reading would block until someone writes to it.
var ErrNotRegular = errors.New("not a regular file")

// OpenFile opens the file at rel (slash-separated, relative to the root)
// for reading, confined to the root at the moment of the open: the path is
// resolved by the kernel beneath the root's directory, so a directory
// swapped for a symlink after [Root.Resolve] checked the path cannot lead
// outside. Where the kernel resolves without following symlinks
// (openat2), any symlink on the way is refused; elsewhere, symlinks inside
// the root are followed and escaping ones refused (os.Root). A non-regular
// file is refused without blocking.
func (r *Root) OpenFile(rel string) (*os.File, error) {
	f, err := r.openBeneath(rel)
	if err != nil {
		return nil, &PathError{Path: rel, Err: err}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &PathError{Path: rel, Err: err}
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &PathError{Path: rel, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kindOf(info.Mode()))}
	}
	return f, nil
}

// ReadFile reads the file at rel whole, as [Root.OpenFile] opens it.
func (r *Root) ReadFile(rel string) ([]byte, error) {
	f, err := r.OpenFile(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Stat returns the file at rel's information, resolved beneath the root
// like [Root.OpenFile] (following symlinks inside it).
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	osr, err := r.osRoot()
	if err != nil {
		return nil, err
	}
	info, err := osr.Stat(filepath.FromSlash(rel))
	if err != nil {
		return nil, &PathError{Path: rel, Err: err}
	}
	return info, nil
}

// osRoot returns the root's os.Root, opened once, with the directory it
// holds open.
func (r *Root) osRoot() (*os.Root, error) {
	r.once.Do(func() {
		if r.os, r.osErr = os.OpenRoot(r.dir); r.osErr == nil {
			r.dirFile, r.osErr = r.os.Open(".")
		}
	})
	return r.os, r.osErr
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

// rootHandles are the lazily opened handles of a Root.
type rootHandles struct {
	once    sync.Once
	os      *os.Root
	dirFile *os.File
	osErr   error
}
