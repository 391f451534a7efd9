package conversation

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// The lock is an open file description lock (F_OFD_SETLK) on the whole
// lock file: released by the kernel when its file is closed or its process
// dies, never inherited by a child (the file is O_CLOEXEC), and it can be
// asked about (F_OFD_GETLK) without being taken, so a reader listing
// sessions never makes a writer find the session busy.

// tryLock takes the lock f is open on, without waiting; false when
// another open file holds it.
func tryLock(f *os.File) (bool, error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
		return false, nil
	}
	return err == nil, err
}

// isLocked reports whether another open file holds the lock f is open on.
func isLocked(f *os.File) bool {
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}
