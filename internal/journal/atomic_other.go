//go:build unix && !linux

package journal

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to, both in the directory d, failing
// with fs.ErrExist if to exists, as a hard link (which fails if to exists)
// and an unlink: other systems have no portable RENAME_NOREPLACE.
func renameNoReplace(d *os.File, from, to string) error {
	fd := int(d.Fd())
	err := unix.Linkat(fd, from, fd, to, 0)
	if err == nil {
		err = unix.Unlinkat(fd, from, 0)
	}
	switch {
	case errors.Is(err, unix.EEXIST):
		return fs.ErrExist
	case errors.Is(err, unix.ENOENT):
		return fs.ErrNotExist
	case err != nil:
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
