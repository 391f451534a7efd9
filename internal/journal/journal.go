package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// lockRetry is how often a process waiting for another one's lock checks
// again. flock offers no wait bounded by a context, only polling.
const lockRetry = 25 * time.Millisecond

// Options configure a Journal.
type Options struct {
	// StateDir is Anvil's state directory (see package state); the journal
	// of a workspace lives in StateDir/journal/<key>.
	StateDir string
	// Now is the clock stamped on entries; nil means time.Now.
	Now func() time.Time
}

// Journal commits, recovers and undoes change sets for one workspace. Its
// entries and its lock live in a directory of the state directory that
// belongs to this workspace alone, so nothing another workspace's journal
// holds can affect this one.
type Journal struct {
	root *workspace.Root
	dir  string // this workspace's journal directory
	opts Options

	// beforeApply, when set by tests, runs before the i-th file of a commit
	// is written; an error makes the commit fail there and roll back.
	beforeApply func(i int, path string) error
	// beforeSwap, when set by tests, runs between moving a file aside and
	// putting the new one in its place: the window a user's save can fall
	// into.
	beforeSwap func(path string)
	// at, when set by tests, runs at each step of a commit ("prepared",
	// "committing", "committed"), where a crash is tried.
	at func(step string)
}

func (j *Journal) step(name string) {
	if j.at != nil {
		j.at(name)
	}
}

// New returns the journal of root.
func New(root *workspace.Root, opts Options) *Journal {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Journal{root: root, dir: Dir(opts.StateDir, root.Dir()), opts: opts}
}

// Dir returns the journal directory of the workspace at root: a name
// derived from a hash of the root, readable for humans by its base name.
func Dir(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	name := hex.EncodeToString(sum[:8]) + "-" + sanitize(filepath.Base(root))
	return filepath.Join(stateDir, "journal", name)
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == '/' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

// rootFile names the file in a journal directory that records the
// workspace root it belongs to.
const rootFile = "workspace"

// open makes the journal directory ready: created private if missing,
// refused if someone else owns it or can write to it, or if it belongs to
// another workspace.
func (j *Journal) open() error {
	for _, d := range []string{j.opts.StateDir, filepath.Join(j.opts.StateDir, "journal"), j.dir} {
		if err := state.EnsureDir(d); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	p := filepath.Join(j.dir, rootFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		// Another process may create it at the same moment: then it is
		// read and checked like any existing one.
		if err = publishOnce(p, []byte(j.root.Dir()+"\n")); !errors.Is(err, os.ErrExist) {
			return err
		}
		data, err = os.ReadFile(p)
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := state.CheckPrivate(p); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if strings.TrimSpace(string(data)) != j.root.Dir() {
		return fmt.Errorf("journal: %s belongs to %s, not %s", j.dir, strings.TrimSpace(string(data)), j.root.Dir())
	}
	return nil
}

// openRoot opens the workspace directory for the journal's reads and
// writes, making sure it is the directory the journal was opened for (the
// check is on the open directory itself, so no swap can come between): a
// workspace removed and created again at its path is another, and
// nothing is written there.
func (j *Journal) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(j.root.Dir())
	if err != nil {
		return nil, err
	}
	info, err := r.Stat(".")
	if err != nil {
		r.Close()
		return nil, err
	}
	if workspace.InfoID(info) != j.root.ID() {
		r.Close()
		if err := j.root.Replaced(); err != nil {
			return nil, err
		}
		return nil, &workspace.ReplacedError{Dir: j.root.Dir(), Why: "another directory was there when it was opened"}
	}
	return r, nil
}

// sameDir reports whether e was committed in the directory the journal is
// open on (entries from before directories were identified count as so).
func (j *Journal) sameDir(e *Entry) bool {
	return e.RootID == "" || e.RootID == j.root.ID().String()
}

// Lock is the workspace's lock, held by one Anvil process at a time: from
// the last validation of a change set to the end of its commit, and for an
// undo or a recovery. It is an flock, so the kernel drops it when its
// holder dies, and a crash never blocks the next run.
type Lock struct {
	fl *flock.Flock
}

// Unlock releases the lock. Safe to call more than once.
func (l *Lock) Unlock() {
	if l != nil && l.fl != nil {
		_ = l.fl.Unlock()
	}
}

// HeldError says another process holds the workspace's lock.
type HeldError struct {
	Holder string // who, as the holder recorded it ("anvil (pid 123) since 10:03:12")
	Err    error  // why the wait ended
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("another Anvil run is committing in this workspace (%s): %v", e.Holder, e.Err)
}

func (e *HeldError) Unwrap() error { return e.Err }

// Lock takes the workspace's lock, waiting until ctx ends for a holder to
// release it. waiting, if set, is called once if the lock is held, with
// who holds it.
func (j *Journal) Lock(ctx context.Context, waiting func(holder string)) (*Lock, error) {
	if err := j.open(); err != nil {
		return nil, err
	}
	path := filepath.Join(j.dir, "lock")
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err == nil && !ok {
		holder := readHolder(path)
		if waiting != nil {
			waiting(holder)
		}
		ok, err = fl.TryLockContext(ctx, lockRetry)
		if err != nil && ctx.Err() != nil {
			return nil, &HeldError{Holder: holder, Err: ctx.Err()}
		}
	}
	if err == nil && !ok {
		err = errors.New("not acquired")
	}
	if err != nil {
		return nil, fmt.Errorf("journal lock for %s: %w", j.root.Dir(), err)
	}
	// Record who holds it, for whoever waits next.
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
		fmt.Fprintf(f, "%s (pid %d) since %s\n", filepath.Base(os.Args[0]), os.Getpid(), j.opts.Now().Format("15:04:05"))
		f.Close()
	}
	return &Lock{fl: fl}, nil
}

func readHolder(path string) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return "holder unknown"
	}
	return strings.TrimSpace(string(data))
}

// publishOnce creates the file p with data, whole or not at all: written
// to a temporary file first and linked into place, which fails with
// os.ErrExist if p exists, so a reader never sees it half-written.
func publishOnce(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := writeSynced(f, data, 0o600); err != nil {
		return err
	}
	return os.Link(f.Name(), p)
}
