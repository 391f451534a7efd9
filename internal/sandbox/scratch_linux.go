package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Each run's scratch directory (the overlay's upper layer, a copy of the
// tree, the change set, the sealed root) carries a lock its owner holds
// while it runs. A kill -9 leaves the directory but releases the lock, so
// the next run sweeps what dead owners left: in its own temporary
// directory and in every other one a run has used (TMPDIR may have
// changed since), recorded in Anvil's cache directory (placesFile). No
// run's command sees another's scratch: the directory holding them is
// hidden from it (see Run).

const (
	scratchPrefix = "anvil-shadow-"
	lockName      = "owner.lock"
	// sweepAge is how old a scratch directory must be before it is
	// swept: younger, its owner may still be creating it and not hold
	// its lock yet.
	sweepAge = time.Minute
	// reportLimit bounds each report file read back.
	reportLimit = 16 << 20
)

// makeScratch creates a scratch directory in tmp and locks it; release
// drops the lock (after the directory is removed).
func makeScratch(tmp string) (dir string, release func(), err error) {
	dir, err = os.MkdirTemp(tmp, scratchPrefix)
	if err != nil {
		return "", nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() { f.Close() }, nil
}

// sweepAll records tmp as a place of scratch directories in placesFile
// ("" records nothing) and sweeps every place recorded.
func sweepAll(tmp, placesFile string) {
	places := []string{tmp}
	if placesFile == "" {
		sweep(tmp)
		return
	}
	b, _ := os.ReadFile(placesFile)
	for _, line := range strings.Split(string(b), "\n") {
		if filepath.IsAbs(line) && !slices.Contains(places, line) {
			places = append(places, line)
		}
	}
	if !strings.Contains("\n"+string(b), "\n"+tmp+"\n") {
		if err := os.MkdirAll(filepath.Dir(placesFile), 0o700); err == nil {
			if f, err := os.OpenFile(placesFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_CLOEXEC, 0o600); err == nil {
				_, _ = f.WriteString(tmp + "\n")
				f.Close()
			}
		}
	}
	for _, p := range places {
		sweep(p)
	}
}

// sweep removes the scratch directories in tmp whose owners are gone: the
// user's own, whose lock nobody holds.
func sweep(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	uid := os.Getuid()
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), scratchPrefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		info, err := os.Lstat(dir)
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue // another user's: theirs to sweep
		}
		if ownerGone(dir, info.ModTime()) {
			removeAll(dir)
		}
	}
}

// ownerGone reports whether dir is old enough and nobody holds its lock.
func ownerGone(dir string, created time.Time) bool {
	if time.Since(created) < sweepAge {
		return false
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return os.IsNotExist(err)
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	// Held now by this process: removing the directory under it is what
	// the owner's own cleanup would have done.
	return true
}

// readReports reads the regular files the command left in dir; links,
// FIFOs and devices are not followed or read.
func readReports(dir string) map[string][]byte {
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, e.Name()), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if b, err := io.ReadAll(io.LimitReader(f, reportLimit)); err == nil {
				out[e.Name()] = b
			}
		}
		f.Close()
	}
	return out
}
