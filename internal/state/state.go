// Package state locates and guards Anvil's durable state: the commit
// journal and the workspace locks, which must survive a reboot (the power
// loss the journal exists for) and must not be something another user can
// plant. It lives in $ANVIL_STATE_DIR, else $XDG_STATE_HOME/anvil, else
// ~/.local/state/anvil, in directories private to the user (0700) that
// Anvil refuses to use when someone else owns them or can write to them.
package state

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
)

// Dir returns Anvil's state directory. getenv reads the environment Anvil started with.
func Dir(getenv func(string) string) string {
	if d := getenv("ANVIL_STATE_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "anvil")
	}
	return filepath.Join(Home(getenv), ".local", "state", "anvil")
}

// Home returns the user's home directory: $HOME when it is an absolute
// path, else the one the user database gives. A relative or empty HOME
// (a test's environment, a service without one) would otherwise put
// Anvil's state and caches under whatever directory it was started in.
func Home(getenv func(string) string) string {
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return h
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		return u.HomeDir
	}
	// No home at all: a place no one writes, so nothing lands in the
	// working directory.
	return "/nonexistent"
}

// CacheDir returns Anvil's cache directory: what it keeps only for speed
// (the batch checkers' incremental state), which may be deleted at any
// time. It is $XDG_CACHE_HOME/anvil, else ~/.cache/anvil.
func CacheDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "anvil")
	}
	return filepath.Join(Home(getenv), ".cache", "anvil")
}

// DaemonDir is the directory of the daemon's socket: $ANVIL_DAEMON_DIR if
// set, else $XDG_RUNTIME_DIR/anvil, else /run/user/UID/anvil where that
// runtime directory exists and is the user's (an MCP client started with
// a minimal environment has no XDG_RUNTIME_DIR, yet must reach the daemon
// the user's shell does), else a directory of the user's own in the
// temporary directory, which the daemon and every client check is private
// and the user's before using it. What no program Anvil starts may reach
// is this directory, wherever the rule puts it.
func DaemonDir(getenv func(string) string) string {
	if d := getenv("ANVIL_DAEMON_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "anvil")
	}
	run := fmt.Sprintf("/run/user/%d", os.Getuid())
	if info, err := os.Stat(run); err == nil && info.IsDir() {
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Getuid() {
			return filepath.Join(run, "anvil")
		}
	}
	return filepath.Join(cmp.Or(getenv("TMPDIR"), "/tmp"), fmt.Sprintf("anvil-%d", os.Getuid()))
}

// UnsafeError says a state path is not private to the user.
type UnsafeError struct {
	Path   string
	Reason string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%s %s; Anvil keeps its journal only where no one else can write (fix: remove it, or set ANVIL_STATE_DIR to a directory of your own)", e.Path, e.Reason)
}

// EnsureDir creates dir and its missing parents with mode 0700 and checks
// that dir is private: a real directory (not a symlink), owned by the
// user, writable by no one else. Parents that already exist (the home
// directory) are not judged, only the ones the state lives in.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return CheckPrivate(dir)
}

// CheckPrivate checks that path (a directory or a file) is owned by the
// user, writable by no one else, and not a symlink.
func CheckPrivate(path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeError{Path: path, Reason: "is a symlink"}
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("is owned by another user (uid %d)", st.Uid)}
	}
	if info.Mode().Perm()&0o022 != 0 {
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("can be written by others (mode %v)", info.Mode().Perm())}
	}
	return nil
}

// IsUnsafe reports whether err is an [*UnsafeError].
func IsUnsafe(err error) bool {
	var u *UnsafeError
	return errors.As(err, &u)
}
