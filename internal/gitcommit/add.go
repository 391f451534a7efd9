package gitcommit

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
)

// checkAdd refuses, with the reason, what git add <paths> would refuse:
// a new file git ignores (git add wants -f), a path outside the
// sparse-checkout definition, a path inside a submodule. git decides
// (git add --dry-run, on a copy of the user's index, so that its
// skip-worktree bits and submodules count and the index itself is not
// touched); Anvil says it in its words.
func (r *repo) checkAdd(ctx context.Context, paths []string) error {
	index, err := r.indexPath(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "anvil-git-add-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := copyInto(tmp, index); err != nil {
		return err
	}
	env := []string{"GIT_INDEX_FILE=" + tmp.Name(), "LC_ALL=C", "LANGUAGE="}
	_, err = r.git(ctx, r.top, env, append([]string{"--literal-pathspecs", "add", "--dry-run", "--ignore-missing", "--"}, paths...)...)
	if err == nil {
		return nil
	}
	said := gitMessage(err)
	var ignored, sparse []string
	var section *[]string
	for _, line := range strings.Split(said, "\n") {
		switch {
		case strings.HasPrefix(line, "The following paths are ignored"):
			section = &ignored
		case strings.HasPrefix(line, "The following paths and/or pathspecs matched paths that exist"):
			section = &sparse
		case strings.HasPrefix(line, "outside of your sparse-checkout"), strings.HasPrefix(line, "updated in the index"):
		case strings.HasPrefix(line, "hint:"), line == "":
			section = nil
		case strings.HasPrefix(line, "fatal: Pathspec '") && strings.Contains(line, "' is in submodule '"):
			p, sub, _ := strings.Cut(strings.TrimPrefix(line, "fatal: Pathspec '"), "' is in submodule '")
			sub = strings.TrimSuffix(sub, "'")
			return refused("%s is in the submodule %s: Anvil commits only in the repository of its workspace (commit it in %s yourself)", p, sub, sub)
		case section != nil:
			*section = append(*section, line)
		}
	}
	if files := under(paths, ignored); len(files) > 0 {
		return refused("%s %s ignored by .gitignore (or .git/info/exclude, core.excludesFile): git add refuses a new ignored file without -f", strings.Join(files, ", "), plural(len(files), "is", "are"))
	}
	if files := under(paths, sparse); len(files) > 0 {
		return refused("%s %s outside your sparse-checkout definition: git add does not update such paths (git sparse-checkout add their directory first)", strings.Join(files, ", "), plural(len(files), "is", "are"))
	}
	return refused("git add would refuse %s: %s", strings.Join(paths, ", "), said)
}

// under is the paths that are, or are below, one of named (as git names
// them: a file, or an ignored directory).
func under(paths, named []string) []string {
	var out []string
	for _, p := range paths {
		for _, n := range named {
			n = strings.TrimSuffix(n, "/")
			if p == n || strings.HasPrefix(p, n+"/") {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// indexPath is the user's index file.
func (r *repo) indexPath(ctx context.Context) (string, error) {
	out, err := r.git(ctx, r.top, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// copyInto copies the file at src into dst, and closes dst; a src that
// does not exist leaves dst empty (and removed: git reads no file as an
// empty index, but not an empty file).
func copyInto(dst *os.File, src string) error {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		dst.Close()
		return os.Remove(dst.Name())
	}
	if err != nil {
		dst.Close()
		return err
	}
	defer in.Close()
	_, err = io.Copy(dst, in)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}
