package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/gitscope"
	"github.com/anvil-dev/anvil/internal/proc"
)

// gitTimeout bounds each git command replay runs.
const gitTimeout = 2 * time.Minute

// repo is the user's repository, read only: replay runs git commands that
// read objects and refs, and writes only to an index file of its own
// (GIT_INDEX_FILE) and a work tree of its own (--work-tree).
type repo struct {
	top string
	// prefix is the workspace's path below top: "" or "sub/dir/".
	prefix string
	// env is the environment git runs with (the policy's, for the host).
	env []string
	// contain is how git runs (Options.Contain).
	contain *proc.Containment
}

// git runs git at the repository's top with extra environment and
// returns its stdout. Optional locks are off: a read never refreshes the
// user's index.
func (r *repo) git(ctx context.Context, env []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// The repository's fsmonitor is a program it names: replay runs none.
	argv := append([]string{"-c", "core.quotepath=off", "-c", "core.fsmonitor=false"}, args...)
	full := append(append(slices.Clone(r.env), "GIT_OPTIONAL_LOCKS=0"), env...)
	out, stderr, err := proc.Run(ctx, proc.Spec{Path: "git", Args: argv, Dir: r.top, Env: full, Contain: r.contain})
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(stderr)))
	}
	return out, nil
}

// openRepo returns the repository that holds the workspace dir.
func openRepo(ctx context.Context, dir string, env []string, contain *proc.Containment) (*repo, error) {
	r := &repo{top: dir, env: env, contain: contain}
	top, err := r.git(ctx, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git work tree: %w", dir, err)
	}
	prefix, err := r.git(ctx, nil, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	r.top = strings.TrimSpace(string(top))
	r.prefix = strings.TrimSpace(string(prefix))
	return r, nil
}

// commit is one commit to replay.
type commit struct {
	hash, subject string
	parents       []string
}

// commits returns the commits of the first-parent history of HEAD after
// since ("" for all), newest first, at most n (0 for all).
func (r *repo) commits(ctx context.Context, n int, since string) ([]commit, error) {
	args := []string{"log", "--first-parent", "-z", "--format=%H%x1f%P%x1f%s"}
	if n > 0 {
		args = append(args, fmt.Sprintf("-n%d", n))
	}
	rev := "HEAD"
	if strings.HasPrefix(since, "-") {
		return nil, fmt.Errorf("--since %q: not a revision", since)
	}
	if since != "" {
		rev = since + "..HEAD"
	}
	args = append(args, rev, "--")
	out, err := r.git(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	return parseLog(out)
}

// parseLog reads git log -z --format=%H%x1f%P%x1f%s.
func parseLog(out []byte) ([]commit, error) {
	var list []commit
	for _, rec := range strings.Split(string(out), "\x00") {
		rec = strings.TrimPrefix(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x1f", 3)
		if len(f) != 3 || f[0] == "" {
			return nil, fmt.Errorf("git log: unexpected record %q", rec)
		}
		list = append(list, commit{hash: f[0], parents: strings.Fields(f[1]), subject: f[2]})
	}
	return list, nil
}

// treeOf returns the tree object of rev.
func (r *repo) treeOf(ctx context.Context, rev string) (string, error) {
	out, err := r.git(ctx, nil, "rev-parse", rev+"^{tree}")
	return strings.TrimSpace(string(out)), err
}

// fileChange is one file a commit changed (workspace-relative).
type fileChange struct {
	path string
	// blob is the file's object after the commit; "" when it deleted it.
	blob string
	// mode is its mode after the commit (before it, for a deletion).
	mode string
}

// changes returns the files the commit changed against its parent,
// within the workspace: each rename a deletion and an addition, as an
// agent's change set has them.
func (r *repo) changes(ctx context.Context, parent, hash string) ([]fileChange, error) {
	args := []string{"diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", parent, hash}
	if r.prefix != "" {
		args = append(args, "--", r.prefix)
	}
	out, err := r.git(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	return parseDiffTree(out, r.prefix)
}

// parseDiffTree reads git diff-tree -r -z --no-renames: each entry
// ":oldmode newmode oldsha newsha status\0path\0", paths made relative to
// prefix.
func parseDiffTree(out []byte, prefix string) ([]fileChange, error) {
	if len(out) == 0 {
		return nil, nil
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(fields)%2 != 0 {
		return nil, fmt.Errorf("git diff-tree: an entry without its path: %q", fields[len(fields)-1])
	}
	var list []fileChange
	for i := 0; i < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 || !strings.HasPrefix(fields[i], ":") || fields[i+1] == "" {
			return nil, fmt.Errorf("git diff-tree: unexpected entry %q", fields[i])
		}
		c := fileChange{path: strings.TrimPrefix(fields[i+1], prefix), mode: meta[1], blob: meta[3]}
		if strings.HasPrefix(meta[4], "D") {
			c.blob, c.mode = "", meta[0]
		}
		list = append(list, c)
	}
	return list, nil
}

// blob returns an object's content.
func (r *repo) blob(ctx context.Context, sha string) ([]byte, error) {
	return r.git(ctx, nil, "cat-file", "blob", sha)
}

// repoFilter returns a filter driver whose program the repository's own
// configuration names (.git/config or a worktree's), "" for none; the
// user's own (global, system) are the user's to run. A listing git cannot
// give (no --show-scope before 2.26) is an error: not knowing who named
// a program is no leave to run it.
func (r *repo) repoFilter(ctx context.Context) (string, error) {
	entries, err := gitscope.Read(r.git(ctx, nil, gitscope.Args(gitscope.FilterPattern)...))
	if err != nil {
		return "", err
	}
	return gitscope.FilterDriver(entries), nil
}
