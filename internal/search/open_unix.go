//go:build unix

package search

import (
	"io"
	"syscall"
)

// openFile opens a file for the Go engine to read once, start to end.
// os.Open costs five more system calls per file than this (fcntl calls and
// an epoll registration that fails for regular files, then more fcntl calls
// on Close); over a large tree of small files they add up to a good part of
// the search time.
func openFile(path string) (io.ReadCloser, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return fdFile(fd), nil
	}
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
