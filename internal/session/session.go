// Package session owns a run's session directory: where the plan, the
// shadow log, the servers' log and the transcript of one Anvil run live.
//
// The default base is private to the user: anvil-UID in the temporary
// directory ($TMPDIR, else /tmp), so that each local user has their own
// and none can plant one for another; each run gets <base>/<id>/. The base
// can be moved (config or ANVIL_SESSION_DIR). Whatever it is, Anvil uses
// it only when it is a real directory of the user's that no one else can
// write to. A run holds a lock in its directory while it lives; starting a
// run sweeps the base of old directories whose runs are gone.
package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/anvil-dev/anvil/internal/state"
)

// DefaultBase is where session directories go unless configured
// otherwise: anvil-UID in the temporary directory ($TMPDIR, else /tmp).
// It is the one definition of Anvil's per-user temporary directory.
// getenv reads the environment Anvil started with.
func DefaultBase(getenv func(string) string) string {
	tmp := getenv("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, fmt.Sprintf("anvil-%d", os.Getuid()))
}

// Base picks the directory sessions go under: an explicit override, then
// $ANVIL_SESSION_DIR, then the config's session_dir, then [DefaultBase];
// from says which, for messages.
func Base(override string, getenv func(string) string, configured string) (base, from string) {
	switch {
	case override != "":
		return override, "set for this run"
	case getenv("ANVIL_SESSION_DIR") != "":
		return getenv("ANVIL_SESSION_DIR"), "ANVIL_SESSION_DIR"
	case configured != "":
		return configured, "session_dir in the config"
	}
	return DefaultBase(getenv), "default"
}

// Session is one run's directory.
type Session struct {
	ID  string
	Dir string

	// lock is held while the run lives (the kernel drops it with the
	// process): the sweep never removes a live run's directory.
	lock *os.File
}

// Sweep bounds: a run's directory is removed once it is older than
// sweepAge and its run is gone, at most sweepMost of them per start, so a
// start never spends long on a base full of old runs.
const (
	sweepAge  = 7 * 24 * time.Hour
	sweepMost = 32
)

// lockName is the lock file in a run's directory.
const lockName = ".lock"

// New creates a new session directory under base (see [Base]), after
// checking that base is private
// to the user, and sweeps the base of old runs' directories. IDs sort by
// creation time.
func New(base string, now time.Time) (*Session, error) {
	if base == "" {
		return nil, errors.New("session directory: no base given")
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	}
	if err := state.CheckPrivate(base); err != nil {
		var u *state.UnsafeError
		if errors.As(err, &u) {
			return nil, fmt.Errorf("session directory: %s %s, and runs keep transcripts of the code there (fix: remove it, or set ANVIL_SESSION_DIR to a directory of your own)", u.Path, u.Reason)
		}
		return nil, fmt.Errorf("session directory: %w", err)
	}
	sweep(base, now)
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	id := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(rnd[:])
	dir := filepath.Join(base, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err == nil {
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, fmt.Errorf("session directory: %w", err)
	}
	return &Session{ID: id, Dir: dir, lock: lock}, nil
}

// Close releases the run's hold on its directory (the files stay until a
// later run sweeps them).
func (s *Session) Close() error {
	if s.lock == nil {
		return nil
	}
	err := s.lock.Close()
	s.lock = nil
	return err
}

// idPattern is what New's ids look like: 20261201-091500-a1b2c3.
var idPattern = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`)

// sweep removes up to sweepMost run directories in base that are the
// user's, older than sweepAge and whose runs are gone (nobody holds their
// lock). Anything else in base (another user's entry, a symlink, the
// daemon's socket) is left alone.
func sweep(base string, now time.Time) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	removed := 0
	for _, e := range entries {
		if removed == sweepMost {
			return
		}
		if !e.IsDir() || !idPattern.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		info, err := os.Lstat(dir)
		if err != nil || !info.IsDir() || now.Sub(info.ModTime()) < sweepAge {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
			continue
		}
		if runGone(dir) && os.RemoveAll(dir) == nil {
			removed++
		}
	}
}

// runGone reports whether the run that made dir is gone: nobody holds its
// lock (a directory of a run from before locks has none).
func runGone(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return os.IsNotExist(err)
	}
	defer f.Close()
	// Taken now by this process, and dropped when f closes: removing the
	// directory under it is what its run would have left to a sweep.
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}

// Path returns the path of name inside the session directory.
func (s *Session) Path(name string) string { return filepath.Join(s.Dir, name) }

// Well-known files of a session.
const (
	PlanFile       = "plan.json"
	ShadowLogFile  = "shadow.log"
	JournalDir     = "journal"
	TranscriptFile = "transcript.jsonl"
)
