package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/anvil-dev/anvil/internal/session"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// lockRetry is how often a process waiting for another one's commit checks
// the lock again. A commit takes milliseconds, so waiting is short, and
// polling is all flock offers without blocking past ctx.
const lockRetry = 25 * time.Millisecond

// Journal commits, recovers and undoes change sets for one workspace. Its
// entries live in the session directories under a sessions base, which all
// Anvil runs share so that a later run can recover or undo an earlier one.
type Journal struct {
	root *workspace.Root
	base string
	now  func() time.Time

	// beforeApply, when set by tests, runs before the i-th file of a commit
	// is written; an error makes the commit fail there and roll back.
	beforeApply func(i int, path string) error
}

// New returns the journal of root whose sessions live under sessionsBase
// ([session.DefaultBase] if empty). now is the clock stamped on entries;
// nil means [time.Now].
func New(root *workspace.Root, sessionsBase string, now func() time.Time) *Journal {
	if sessionsBase == "" {
		sessionsBase = session.DefaultBase
	}
	if now == nil {
		now = time.Now
	}
	return &Journal{root: root, base: filepath.Clean(sessionsBase), now: now}
}

// lock takes the workspace's lock, waiting for another process to release it
// until ctx is done. The lock is an flock, so the kernel drops it when its
// holder dies, and a crashed commit never blocks the next run.
func (j *Journal) lock(ctx context.Context) (unlock func(), err error) {
	dir := filepath.Join(j.base, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal lock: %w", err)
	}
	// Keyed by the root's hash: one lock per workspace, whatever its path's
	// length or characters.
	sum := sha256.Sum256([]byte(j.root.Dir()))
	fl := flock.New(filepath.Join(dir, hex.EncodeToString(sum[:12])+".lock"))
	ok, err := fl.TryLockContext(ctx, lockRetry)
	if err == nil && !ok { // unreachable: TryLockContext errs instead
		err = fmt.Errorf("not acquired")
	}
	if err != nil {
		return nil, fmt.Errorf("journal lock for %s: %w", j.root.Dir(), err)
	}
	// Unlock also closes the file; a failure to unlock is harmless since
	// the lock ends with the process at the latest.
	return func() { _ = fl.Unlock() }, nil
}

// settled returns the workspace's entries, or [ErrRecoveryNeeded] if an
// interrupted commit is waiting for recovery. Call it with the lock held, so
// that a Prepared entry means a crash. Unreadable manifests are ignored here:
// they belong to no known workspace, and Recover reports them.
func (j *Journal) settled() ([]*Entry, error) {
	entries, _, err := scan(j.base, j.root.Dir())
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.State == Prepared {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) > 0 {
		return nil, fmt.Errorf("%w (%s)", ErrRecoveryNeeded, strings.Join(ids, ", "))
	}
	return entries, nil
}
