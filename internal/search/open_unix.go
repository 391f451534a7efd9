//go:build unix

package search

import (
	"io"
	"syscall"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// openFile opens a file for the Go engine to read once, start to end,
// confined to the root at the moment of the open (see
// [workspace.Root.OpenFD]): a directory swapped for a symlink during the
// walk cannot lead the read outside. os.Open would cost five more system
// calls per file (fcntl calls and an epoll registration that fails for
// regular files, then more fcntl calls on Close); over a large tree of
// small files they add up to a good part of the search time.
func openFile(root *workspace.Root, rel string) (io.ReadCloser, error) {
	fd, err := root.OpenFD(rel)
	if err != nil {
		return nil, err
	}
	return fdFile(fd), nil
}

// fdFile is a file descriptor read with plain, blocking system calls.
type fdFile int

func (f fdFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f fdFile) Close() error { return syscall.Close(int(f)) }
