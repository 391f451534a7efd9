package hooks

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// An edit whose result Anvil cannot compute before the client writes it
// (a replace the client matches loosely: whitespace-insensitively, as a
// regular expression, fuzzily) is checked after it is written, by the
// client's post-tool hook: the pre-edit hook keeps the file's content as
// it is before the call (KeepBefore), and the post-edit hook checks the
// way back from the file as written to that content, whose resolved
// errors are the edit's (TakeBefore). The contents before are kept in a
// small file per session beside its manifest, so that a post-edit hook
// with nothing to check reads no manifest; its blobs are the store's.

// pendingPath is the file of a session's contents before unmodelled
// edits.
func (s *Store) pendingPath(root *workspace.Root, session string) string {
	return strings.TrimSuffix(s.manifest(root, session), ".json") + ".pending"
}

// KeepBefore keeps rel's content before an edit the post-edit hook will
// check (exists false: the file is not there), unless a content before
// an edit not yet checked is kept already: that one is the older.
func (s *Store) KeepBefore(root *workspace.Root, session, rel string, data []byte, exists bool) error {
	if err := s.ensureDirs(); err != nil {
		return err
	}
	pending, err := s.readPending(root, session)
	if err != nil {
		return err
	}
	if _, ok := pending[rel]; ok {
		return nil
	}
	hash := ""
	if exists {
		if hash, err = s.keep(data); err != nil {
			return err
		}
	}
	pending[rel] = hash
	out, err := json.Marshal(pending)
	if err != nil {
		return err
	}
	return writeAtomic(s.pendingPath(root, session), out, false)
}

// TakeBefore returns the contents kept before the session's unchecked
// edits (workspace-relative path → content hash, "" for a file that was
// not there) and forgets them.
func (s *Store) TakeBefore(root *workspace.Root, session string) (map[string]string, error) {
	pending, err := s.readPending(root, session)
	if err != nil || len(pending) == 0 {
		return nil, err
	}
	if err := os.Remove(s.pendingPath(root, session)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return pending, nil
}

func (s *Store) readPending(root *workspace.Root, session string) (map[string]string, error) {
	data, err := os.ReadFile(s.pendingPath(root, session))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	pending := map[string]string{}
	if err := json.Unmarshal(data, &pending); err != nil {
		// A file of Anvil's own that does not read: what it held is
		// lost, and the end of the turn still checks those files.
		return map[string]string{}, nil
	}
	return pending, nil
}
