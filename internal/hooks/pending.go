package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// An edit whose result Anvil cannot compute before the client writes it
// (a replace the client matches loosely: whitespace-insensitively, as a
// regular expression, fuzzily) is checked after it is written, by the
// client's post-tool hook: the pre-edit hook keeps the file's content as
// it is before the call (KeepBefore), and the post-edit hook of the same
// call takes it (TakeBefore) and checks the way back from the file as
// written to that content, whose resolved errors are the edit's. The
// contents before are kept in a small file per session beside its
// manifest, so that a post-edit hook with nothing to check reads no
// manifest; its blobs are the store's, and its pruning keeps them. Hook
// processes of one session may run at once (a client's parallel tool
// calls): each read and write of the file holds its lock, within
// pendingLockWait. The end of the turn drops what is left (DropBefore):
// a call whose post-tool hook never ran (a failed tool) is checked there.

// pendingLockWait bounds the wait for another hook process of the session
// to finish with the file.
const pendingLockWait = 5 * time.Second

// pendingPath is the file of a session's contents before unmodelled
// edits.
func (s *Store) pendingPath(root *workspace.Root, session string) string {
	return strings.TrimSuffix(s.manifest(root, session), ".json") + ".pending"
}

// withPending runs fn over the session's pending contents (relative path
// → content hash, "" for a file that was not there) under the file's
// lock, and writes back what fn leaves (removing the file when empty).
func (s *Store) withPending(root *workspace.Root, session string, fn func(pending map[string]string) error) error {
	if err := s.ensureDirs(); err != nil {
		return err
	}
	p := s.pendingPath(root, session)
	lock := flock.New(p + ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), pendingLockWait)
	defer cancel()
	if ok, err := lock.TryLockContext(ctx, 20*time.Millisecond); !ok || err != nil {
		return fmt.Errorf("another hook of the session held its edits' contents for %s: %v", pendingLockWait, err)
	}
	defer lock.Unlock()
	// The contents before are what a post-edit check holds the written
	// file to: one another user could write (a link, a file others may
	// write) would let them pass what the edit broke, so it is refused
	// (state.UnsafeError), never read, as the manifest is.
	if err := state.CheckPrivate(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	pending := map[string]string{}
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		// A file of Anvil's own that does not read holds nothing: those
		// edits are checked at the end of the turn.
		_ = json.Unmarshal(data, &pending)
	}
	if err := fn(pending); err != nil {
		return err
	}
	if len(pending) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	out, err := json.Marshal(pending)
	if err != nil {
		return err
	}
	return writeAtomic(p, out, false)
}

// KeepBefore keeps rel's content before an edit the post-edit hook will
// check (exists false: the file is not there), unless a content before
// an edit not yet checked is kept already: that one is the older.
func (s *Store) KeepBefore(root *workspace.Root, session, rel string, data []byte, exists bool) error {
	return s.withPending(root, session, func(pending map[string]string) error {
		if _, ok := pending[rel]; ok {
			return nil
		}
		hash, err := s.keepIfExists(data, exists)
		if err != nil {
			return err
		}
		pending[rel] = hash
		return nil
	})
}

// TakeBefore returns the content kept before an edit of rel (its hash,
// "" for a file that was not there; ok false when none is kept) and
// forgets it.
func (s *Store) TakeBefore(root *workspace.Root, session, rel string) (hash string, ok bool, err error) {
	err = s.withPending(root, session, func(pending map[string]string) error {
		hash, ok = pending[rel]
		delete(pending, rel)
		return nil
	})
	return hash, ok, err
}

// DropBefore forgets every content kept before the session's unchecked
// edits: the end of the turn checks them all.
func (s *Store) DropBefore(root *workspace.Root, session string) error {
	return s.withPending(root, session, func(pending map[string]string) error {
		clear(pending)
		return nil
	})
}
