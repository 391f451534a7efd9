package journal

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to, both in the directory d, failing
// with fs.ErrExist if to exists: the rename cannot go over a file someone
// created meanwhile. File systems without RENAME_NOREPLACE get a hard link
// and an unlink, which fail the same way.
func renameNoReplace(d *os.File, from, to string) error {
	fd := int(d.Fd())
	err := unix.Renameat2(fd, from, fd, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		err = linkUnlink(fd, from, to)
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

// linkUnlink is rename-without-replace as a hard link (which fails if to
// exists) and an unlink.
func linkUnlink(fd int, from, to string) error {
	if err := unix.Linkat(fd, from, fd, to, 0); err != nil {
		return err
	}
	return unix.Unlinkat(fd, from, 0)
}
