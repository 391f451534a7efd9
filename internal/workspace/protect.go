package workspace

import (
	"errors"

	"path"
	"strings"
)

// ErrProtected is returned (wrapped) for a path no change set may write:
// the repository's own data (.git, at any depth: a nested repository or a
// worktree's .git file too), whose hooks and config run code at the next
// git command, and Anvil's own settings (.anvil at the root), which change
// only through 'anvil config'.
var ErrProtected = errors.New("not part of the project: Anvil never writes there")

// CheckWritable reports whether rel (slash-separated, relative to the
// root) is a path a change set may write: clean, inside the root, and not
// protected (see [ErrProtected]).
func CheckWritable(rel string) error {
	if rel == "" || rel == "." || path.IsAbs(rel) || strings.ContainsRune(rel, 0) || path.Clean(rel) != rel ||
		rel == ".." || strings.HasPrefix(rel, "../") {
		return &PathError{Path: rel, Err: errors.New("not a clean path inside the workspace")}
	}
	if Protected(rel) {
		return &PathError{Path: rel, Err: ErrProtected}
	}
	return nil
}

// Protected reports whether rel is inside .git (at any depth) or the
// root's .anvil directory.
func Protected(rel string) bool {
	parts := strings.Split(rel, "/")
	if parts[0] == ".anvil" {
		return true
	}
	for _, p := range parts {
		if strings.EqualFold(p, ".git") {
			return true
		}
	}
	return false
}
