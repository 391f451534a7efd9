package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// scratch is a work tree of replay's own holding one commit's files,
// moved from commit to commit by git through an index of its own; the
// user's index, work tree and HEAD are never read for it or written.
type scratch struct {
	repo  *repo
	dir   string // owns index and tree
	tree  string // the repository's files
	index string
	// at is the tree object the work tree holds; "" before the first.
	at string
}

// newScratch makes an empty scratch tree in a new temporary directory
// under tmp ("" for the system's).
func newScratch(r *repo, tmp string) (*scratch, error) {
	dir, err := os.MkdirTemp(tmp, "anvil-replay-")
	if err != nil {
		return nil, err
	}
	s := &scratch{repo: r, dir: dir, tree: filepath.Join(dir, "tree"), index: filepath.Join(dir, "index")}
	if err := os.Mkdir(s.tree, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// workspace is the workspace's directory in the scratch tree.
func (s *scratch) workspace() string {
	return filepath.Join(s.tree, filepath.FromSlash(strings.TrimSuffix(s.repo.prefix, "/")))
}

// move makes the work tree hold tree: the first time by reading it
// whole, after that by git's two-tree merge, which writes only the files
// that differ (so the language servers watching it see a commit's worth
// of changes, not a new project).
func (s *scratch) move(ctx context.Context, tree string) error {
	if s.at == tree {
		return nil
	}
	env := []string{"GIT_INDEX_FILE=" + s.index}
	// The user's sparse-checkout patterns are for their work tree.
	args := []string{"-c", "core.sparseCheckout=false", "--work-tree=" + s.tree, "read-tree", "-u"}
	var err error
	if s.at != "" {
		_, err = s.repo.git(ctx, env, append(args, "-m", s.at, tree)...)
	}
	if s.at == "" || err != nil {
		_, err = s.repo.git(ctx, env, append(args, "--reset", tree)...)
	}
	if err != nil {
		return err
	}
	s.at = tree
	return nil
}

// dependencyDirs are the directories a project installs its
// dependencies into, untracked, that its checkers read: the scratch tree
// shows the workspace's own through a link.
var dependencyDirs = []string{"node_modules", ".venv", "venv"}

// linkDependencies links each dependency directory of the workspace at
// the root or beside a package.json into the scratch tree, where it is
// missing: without them neither the gate nor the checker would build the
// program the project builds.
func (s *scratch) linkDependencies(workspace string) error {
	dirs := map[string]bool{".": true}
	_ = filepath.WalkDir(s.workspace(), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == "package.json" {
			rel, _ := filepath.Rel(s.workspace(), filepath.Dir(p))
			dirs[rel] = true
		}
		return nil
	})
	for dir := range dirs {
		for _, name := range dependencyDirs {
			if name != "node_modules" && dir != "." {
				continue
			}
			src := filepath.Join(workspace, dir, name)
			if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
				continue
			}
			dst := filepath.Join(s.workspace(), dir, name)
			if _, err := os.Lstat(dst); !errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err := os.Symlink(src, dst); err != nil {
				return err
			}
		}
	}
	return nil
}

// remove deletes the scratch tree.
func (s *scratch) remove() error { return os.RemoveAll(s.dir) }
