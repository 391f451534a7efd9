package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// Undo reverts the workspace's latest committed entry and returns it, now
// [Undone]. Calling it again reverts the one before.
//
// Every file of the entry must still be as the commit left it; otherwise
// Undo returns a [*ConflictError] naming the changed files and writes
// nothing. With no committed entry left, the error is [ErrNothingToUndo].
// The revert is journaled like a commit; its entry ID is the result's
// UndoneBy. A mode the user changed since the commit is kept: undo reverts
// the commit, not the user.
func (j *Journal) Undo(ctx context.Context) (*Entry, error) { return j.UndoEntry(ctx, "") }

// NotLastError says the entry asked to be undone is not the workspace's
// last committed one: undoing it would first need the later ones undone.
type NotLastError struct {
	Want, Last string
}

func (e *NotLastError) Error() string {
	return fmt.Sprintf("%s is not the workspace's last commit (%s is): nothing was undone", e.Want, e.Last)
}

// UndoEntry is [Journal.Undo] of the entry with ID want, checked under the
// journal's lock to be the last committed one ([*NotLastError] if not);
// want "" is whichever is last.
func (j *Journal) UndoEntry(ctx context.Context, want string) (*Entry, error) {
	lock, err := j.Lock(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	entries, err := j.settled()
	if err != nil {
		return nil, err
	}
	target := lastCommitted(entries)
	if target == nil {
		return nil, ErrNothingToUndo
	}
	if want != "" && target.ID != want {
		return nil, &NotLastError{Want: want, Last: target.ID}
	}
	if !j.sameDir(target) {
		return nil, &workspace.ReplacedError{Dir: j.root.Dir(), Why: fmt.Sprintf("the last commit (%s) was made in the directory that was at this path before (%s, now %s); nothing was undone", target.ID, target.RootID, j.root.ID())}
	}
	r, err := j.openRoot()
	if err != nil {
		return nil, fmt.Errorf("undo: %w", err)
	}
	defer r.Close()
	ops, err := undoOps(r, target)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("undo %s: %s", target.ID, target.Message)
	u, err := j.run(r, ops, msg, target.ID)
	if err != nil {
		return nil, fmt.Errorf("undo %s: %w", target.ID, err)
	}
	pruneDirs(r, osPaths(target.Dirs))
	target.State, target.UndoneBy = Undone, u.ID
	// If this write fails the revert still stands: scan treats an entry
	// named by a committed undo entry as undone.
	_ = target.save()
	return target, nil
}

// lastCommitted returns the latest entry that can still be undone: a
// committed one that is not itself an undo.
func lastCommitted(entries []*Entry) *Entry {
	for _, e := range slices.Backward(entries) {
		if e.State == Committed && e.Undoes == "" {
			return e
		}
	}
	return nil
}

// undoOps returns the ops that put e's files back, after checking that each
// is still as e left it.
func undoOps(r *os.Root, e *Entry) ([]*op, error) {
	var ops []*op
	var conflicts []string
	for _, f := range e.Files {
		o, err := readOp(r, f.Path)
		if errors.Is(err, errNotRegular) {
			conflicts = append(conflicts, f.Path)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("undo: %w", err)
		}
		if !atAfter(o, f) {
			conflicts = append(conflicts, f.Path)
			continue
		}
		o.delete = !f.Existed
		if f.Existed {
			if o.content, err = e.readSaved(f); err != nil {
				return nil, fmt.Errorf("undo: %w", err)
			}
			o.newMode = f.Mode
			if o.exists && f.AfterMode != 0 && o.mode != f.AfterMode {
				o.newMode = o.mode // chmodded since the commit
			}
		}
		ops = append(ops, o)
	}
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		return nil, &ConflictError{Op: "undo", Paths: conflicts}
	}
	return ops, nil
}
