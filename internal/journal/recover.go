package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/anvil-dev/anvil/internal/changeset"
)

// Recovery is what [Journal.Recover] did for one interrupted commit.
type Recovery struct {
	// Entry is the interrupted commit, now [RolledBack].
	Entry *Entry
	// Restored lists the files put back to their state before the commit;
	// files the commit had not reached yet are not listed.
	Restored []string
	// Kept lists the files left alone because someone changed them after
	// the crash. Their old content is in the entry (see [File.Saved]).
	Kept []string
	// Abandoned, when set, says why nothing was restored: the commit was
	// interrupted in another directory than the one now at the path.
	Abandoned string
}

// String says what the recovery did, for the user.
func (r Recovery) String() string {
	if r.Abandoned != "" {
		return fmt.Sprintf("an interrupted commit (%s) was %s", r.Entry.ID, r.Abandoned)
	}
	s := fmt.Sprintf("rolled back an interrupted commit (%s): restored %d files", r.Entry.ID, len(r.Restored))
	if len(r.Kept) > 0 {
		s += fmt.Sprintf("; left %v as you changed them since", r.Kept)
	}
	return s
}

// Recover rolls back the workspace's commits that a crash interrupted,
// newest first, and reports what it did. Running it again finds nothing to
// do. Entries it cannot use (unreadable, planted by someone else, written
// by a newer Anvil, naming paths outside the workspace) are never acted on:
// they are reported in the error, beside the recoveries it managed.
func (j *Journal) Recover(ctx context.Context) ([]Recovery, error) {
	return j.RecoverWaiting(ctx, nil)
}

// RecoverWaiting is Recover, telling waiting who holds the workspace lock
// when it must wait for it.
func (j *Journal) RecoverWaiting(ctx context.Context, waiting func(holder string)) ([]Recovery, error) {
	lock, err := j.Lock(ctx, waiting)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	entries, problems, err := j.scan()
	if err != nil {
		return nil, err
	}
	r, err := j.openRoot()
	if err != nil {
		return nil, fmt.Errorf("recover: %w", err)
	}
	defer r.Close()
	var out []Recovery
	errs := problems
	if n := len(entries); n > 0 && entries[n-1].State != Prepared {
		// Killed after the commit was marked, before the files moved aside
		// were removed: they are copies of what the entry saved.
		for _, f := range entries[n-1].Files {
			_ = removeAsides(r, filepath.FromSlash(f.Path), f.BeforeHash)
		}
	}
	for _, e := range slices.Backward(entries) {
		if e.State != Prepared {
			continue
		}
		if !j.sameDir(e) {
			// Interrupted in a directory that is no longer at this path:
			// rolling it back would write its files into another one.
			e.State = RolledBack
			if err := e.save(); err != nil {
				errs = append(errs, err)
			}
			out = append(out, Recovery{Entry: e, Abandoned: fmt.Sprintf("interrupted in the directory that was at this path before (%s); nothing was restored here", e.RootID)})
			continue
		}
		rec, err := recoverEntry(r, e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, rec)
	}
	return out, errors.Join(errs...)
}

// recoverEntry restores the files of the interrupted entry e. Each file is
// in its before-state (not reached yet), its after-state (written), or
// neither (changed since the crash, and kept).
func recoverEntry(r *os.Root, e *Entry) (Recovery, error) {
	rec := Recovery{Entry: e}
	for _, f := range e.Files {
		// A crash between creating and renaming a temporary file leaves it
		// beside the target.
		if err := removeTemps(r, filepath.FromSlash(f.Path)); err != nil {
			return rec, fmt.Errorf("recover %s: %w", e.ID, err)
		}
		o, err := readOp(r, f.Path)
		if errors.Is(err, errNotRegular) {
			rec.Kept = append(rec.Kept, f.Path)
			continue
		}
		if err != nil {
			return rec, fmt.Errorf("recover %s: %w", e.ID, err)
		}
		switch {
		case atBefore(o, f):
		case !o.exists && f.Existed && !f.Deleted:
			// Moved aside and not yet replaced when the crash came: the
			// journal has the content.
			if err := restore(r, e, f); err != nil {
				return rec, fmt.Errorf("recover %s: restore %s: %w", e.ID, f.Path, err)
			}
			rec.Restored = append(rec.Restored, f.Path)
		case atAfter(o, f):
			if err := restore(r, e, f); err != nil {
				return rec, fmt.Errorf("recover %s: restore %s: %w", e.ID, f.Path, err)
			}
			rec.Restored = append(rec.Restored, f.Path)
		default:
			rec.Kept = append(rec.Kept, f.Path)
		}
	}
	for _, f := range e.Files {
		_ = removeAsides(r, filepath.FromSlash(f.Path), f.BeforeHash)
	}
	pruneDirs(r, osPaths(e.Dirs))
	e.Kept = rec.Kept
	if err := e.setState(RolledBack); err != nil {
		return rec, err
	}
	return rec, nil
}

// atBefore reports whether the file o read is as it was before f's commit.
func atBefore(o *op, f File) bool {
	if !f.Existed {
		return !o.exists
	}
	return o.exists && changeset.Hash(o.cur) == f.BeforeHash
}

// atAfter reports whether the file o read is as f's commit left it.
func atAfter(o *op, f File) bool {
	if f.Deleted {
		return !o.exists
	}
	return o.exists && changeset.Hash(o.cur) == f.AfterHash
}

// Interrupted reports, without the workspace lock, whether a commit was
// interrupted and awaits recovery: the newest entry is still prepared
// (commits are one at a time, and recovery runs before the next, so an
// interrupted one is always the newest). A read-only check uses it to
// skip [Journal.Recover], which would wait for the lock behind another
// client's commit and its run stage. A commit in progress counts too;
// whoever then takes the lock finds it finished.
func (j *Journal) Interrupted() bool {
	seqs, err := os.ReadDir(j.dir)
	if err != nil {
		return false
	}
	newest := ""
	for _, q := range seqs {
		n := q.Name()
		if q.IsDir() && entryName.MatchString(n) && (len(n) > len(newest) || (len(n) == len(newest) && n > newest)) {
			newest = n
		}
	}
	if newest == "" {
		return false
	}
	e, err := loadEntry(filepath.Join(j.dir, newest), newest, j.root.Dir())
	return err == nil && e.State == Prepared
}
