package gitcommit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// indexLock is the user's index locked as git locks it (index.lock,
// created exclusively), with the index to install prepared beside it. While
// it is held no git process writes the index, so the entries set are set
// on the index as it is.
type indexLock struct {
	index string // the user's index
	lock  string // index.lock, held until install or release
	next  string // the index to install
}

// lockIndex takes the user's index lock, or refuses when another process
// holds it (git add would refuse too).
func (r *repo) lockIndex(ctx context.Context) (*indexLock, error) {
	index, err := r.indexPath(ctx)
	if err != nil {
		return nil, err
	}
	l := &indexLock{index: index, lock: index + ".lock"}
	f, err := os.OpenFile(l.lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, refused("the index is locked (%s exists): another git process is running in this repository, an editor refreshing git status say, and git add would refuse too; commit again once it ends, or remove the file if no git process is running", l.lock)
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	return l, nil
}

// prepare makes the index to install: the user's, with the entries of the
// files commit changes from base set to what commit has, and nothing else
// changed.
func (l *indexLock) prepare(ctx context.Context, r *repo, base, commit string) error {
	next, err := os.CreateTemp(filepath.Dir(l.index), "anvil-index-")
	if err != nil {
		return err
	}
	l.next = next.Name()
	if info, err := os.Stat(l.index); err == nil {
		next.Chmod(info.Mode().Perm())
	}
	if err := copyInto(next, l.index); err != nil {
		return err
	}
	args := []string{"diff-tree", "-r", "-z", "--no-renames", "--root", commit}
	if base != "" {
		args = []string{"diff-tree", "-r", "-z", "--no-renames", base, commit}
	}
	out, err := r.git(ctx, r.top, nil, args...)
	if err != nil {
		return err
	}
	// :oldmode newmode oldid newid status NUL path NUL ...
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var info strings.Builder
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) < 5 {
			return fmt.Errorf("git diff-tree: unexpected %q", fields[i])
		}
		if strings.HasPrefix(meta[4], "D") {
			fmt.Fprintf(&info, "0 %s\t%s\x00", r.zero, fields[i+1])
		} else {
			fmt.Fprintf(&info, "%s %s\t%s\x00", meta[1], meta[3], fields[i+1])
		}
	}
	_, err = r.gitIn(ctx, r.top, []string{"GIT_INDEX_FILE=" + l.next}, []byte(info.String()), "update-index", "-z", "--index-info")
	return err
}

// install replaces the index with the prepared one as git does (through
// the lock file, renamed over the index) and so releases the lock.
func (l *indexLock) install() error {
	if err := os.Rename(l.next, l.lock); err != nil {
		return err
	}
	l.next = ""
	if err := os.Rename(l.lock, l.index); err != nil {
		return err
	}
	l.lock = ""
	return nil
}

// release drops the lock and the prepared index, if they are still there.
func (l *indexLock) release() {
	if l.next != "" {
		os.Remove(l.next)
	}
	if l.lock != "" {
		os.Remove(l.lock)
	}
}
