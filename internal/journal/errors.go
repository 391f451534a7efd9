package journal

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNothingToUndo is returned by [Journal.Undo] when the workspace has no
// committed entry left to revert.
var ErrNothingToUndo = errors.New("journal: nothing to undo")

// ErrNothingToCommit is returned by [Journal.Commit] when no change in the set
// would alter a file.
var ErrNothingToCommit = errors.New("journal: nothing to commit")

// ErrRecoveryNeeded is returned (wrapped) by [Journal.Commit] and
// [Journal.Undo] while an interrupted commit of the workspace awaits
// [Journal.Recover]. Going on would let the later recovery roll files back
// over the new work.
var ErrRecoveryNeeded = errors.New("journal: an interrupted commit must be recovered first")

// ConflictError reports files that changed on disk behind Anvil's back: since
// the change set was read, for a commit, or since the commit, for an undo.
// Nothing was written.
type ConflictError struct {
	// Op is "commit" or "undo".
	Op string
	// Paths are the changed files, slash-separated, relative to the
	// workspace root, sorted.
	Paths []string
}

func (e *ConflictError) Error() string {
	since := "they were read"
	if e.Op == "undo" {
		since = "the commit"
	}
	return fmt.Sprintf("%s: files changed since %s: %s", e.Op, since, strings.Join(e.Paths, ", "))
}
