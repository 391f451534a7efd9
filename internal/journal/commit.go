package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Commit writes set to the workspace as one journaled, all-or-nothing step
// (see the package doc) and returns the committed entry. The caller holds
// the workspace's lock (see [Journal.Lock]), taken before the change set's
// last validation, so that nothing another Anvil run does falls between
// the two.
//
// Every file must still match the base its change was loaded with;
// otherwise Commit returns a [*ConflictError] and writes nothing. The check
// is made again for each file at the moment it is replaced (the file is
// moved aside first, then compared), so a save landing during the commit is
// either a conflict or kept in the journal for undo, never lost. Changes
// that would leave their file as it is are skipped; if none is left, the
// result is [ErrNothingToCommit].
//
// ctx bounds the checks. Once files are being written, cancellation is
// ignored so that the commit ends whole.
func (j *Journal) Commit(ctx context.Context, lock *Lock, set *changeset.Set, message string) (*Entry, error) {
	if lock == nil || lock.fl == nil || !lock.fl.Locked() {
		return nil, errors.New("commit: the workspace lock is not held")
	}
	if _, err := j.settled(); err != nil {
		return nil, err
	}
	r, err := j.openRoot()
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	defer r.Close()
	ops, err := j.commitOps(r, set)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, ErrNothingToCommit
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return j.run(r, ops, message, "")
}

// op is one file to write or remove, whoever asked for it: a change set on
// commit, an entry's before-state on undo.
type op struct {
	path string // slash-separated, relative to the root
	// The file as it is now.
	exists bool
	cur    []byte
	mode   fs.FileMode
	// What it becomes.
	delete  bool
	content []byte
	newMode fs.FileMode
}

// created reports whether the op makes a file that does not exist yet.
func (o *op) created() bool { return !o.exists && !o.delete }

// commitOps turns set into ops, checking every file against its base.
func (j *Journal) commitOps(r *os.Root, set *changeset.Set) ([]*op, error) {
	var ops []*op
	var conflicts []string
	seen := map[string]bool{}
	for _, c := range set.Changes() {
		if c.Unchanged() {
			continue
		}
		if err := workspace.CheckWritable(c.Path); err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		p, err := j.root.Resolve(c.Path)
		if err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		if p.Rel == "." || seen[p.Rel] {
			return nil, fmt.Errorf("commit: %s: not a file of its own", c.Path)
		}
		seen[p.Rel] = true
		o, err := readOp(r, p.Rel)
		if errors.Is(err, errNotRegular) {
			conflicts = append(conflicts, p.Rel)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		if !matchesBase(o, c) {
			conflicts = append(conflicts, p.Rel)
			continue
		}
		o.delete, o.content, o.newMode = c.Delete, c.Content, c.BaseMode.Perm()
		if o.newMode == 0 {
			o.newMode = 0o644
		}
		ops = append(ops, o)
	}
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		return nil, &ConflictError{Op: "commit", Paths: conflicts}
	}
	return ops, nil
}

// matchesBase reports whether the file o read is still what c was based on.
// The mode counts too: writing the change would otherwise undo a chmod.
func matchesBase(o *op, c *changeset.Change) bool {
	if !c.BaseExists {
		return !o.exists
	}
	if !o.exists || !bytes.Equal(o.cur, c.Base) {
		return false
	}
	return c.BaseMode == 0 || o.mode == c.BaseMode.Perm()
}

// errNotRegular marks a path that is a directory, symlink or device: Anvil
// never writes over one.
var errNotRegular = errors.New("not a regular file")

// readOp returns an op holding the current state of the file at rel.
func readOp(r *os.Root, rel string) (*op, error) {
	o := &op{path: rel}
	name := filepath.FromSlash(rel)
	info, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", rel, errNotRegular)
	}
	data, err := r.ReadFile(name)
	if err != nil {
		return nil, err
	}
	o.exists, o.cur, o.mode = true, data, info.Mode().Perm()
	return o, nil
}
