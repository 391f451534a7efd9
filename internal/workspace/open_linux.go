package workspace

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel with openat2 beneath the root's directory,
// refusing any symlink on the way (the walk never follows one either),
// with O_NONBLOCK so that a FIFO does not block the open. A kernel without
// openat2 gets os.Root's resolution instead.
func (r *Root) openBeneath(rel string) (*os.File, error) {
	fd, err := r.OpenFD(rel)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(r.dir, rel)), nil
}

// OpenFD is [Root.OpenFile] without the check that the file is a regular
// one, returning the bare descriptor, for the search engine's hot path: it
// opens with O_NONBLOCK, so a FIFO swapped in for a file reads as nothing
// instead of blocking.
func (r *Root) OpenFD(rel string) (int, error) {
	osr, err := r.osRoot()
	if err != nil {
		return -1, err
	}
	for {
		fd, err := unix.Openat2(int(r.dirFile.Fd()), filepath.FromSlash(rel), &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			// No openat2 here (an old kernel, a sandbox): os.Root, which
			// refuses escaping symlinks.
			f, err := osr.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|unix.O_NONBLOCK, 0)
			if err != nil {
				return -1, err
			}
			defer f.Close()
			return unix.Dup(int(f.Fd()))
		case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
			return -1, errors.New("reached through a symlink, which Anvil does not follow")
		}
		return -1, &os.PathError{Op: "open", Path: rel, Err: err}
	}
}
