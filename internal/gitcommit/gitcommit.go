// Package gitcommit records a change set Anvil wrote as a git commit,
// opt-in ([git] commit = true), without touching the user's own work.
//
// The commit is built through a temporary index from the branch's commit,
// so the user's index is never rebuilt: only the entries of the committed
// files are set afterwards, to what was committed. What is committed of a
// file is Anvil's change applied to the file as the branch has it: a user's
// unstaged edits in the same file stay unstaged (three-way, as git
// merge-file does). So afterwards git status shows everything of the
// user's as before and nothing of Anvil's as staged or modified.
//
// It refuses, with the reason, and the change set stays written: outside a
// repository's work tree, a detached HEAD, a merge, rebase, cherry-pick,
// revert or bisect in progress, staged changes in a file to commit, a
// user's unstaged edit that overlaps Anvil's change, git without an
// identity.
package gitcommit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// File is one file of a change set as written: its content before and
// after.
type File struct {
	Path       string // workspace-relative, slash-separated
	Base       []byte
	BaseExists bool
	New        []byte
	Delete     bool
}

// Options say where the commit goes.
type Options struct {
	// Branch is the branch to commit on; "" means the current one. A
	// branch that does not exist is created from HEAD, and the user's
	// index is left alone (the work tree is on another branch).
	Branch string
}

// Result is a commit made.
type Result struct {
	Commit string   `json:"commit"`
	Branch string   `json:"branch"`
	Files  []string `json:"files"`
	// Current is set when the commit went on the checked-out branch
	// (whose index entries were updated).
	Current bool `json:"current"`
}

// RefusedError says why nothing was committed to git.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string {
	return "not committed to git: " + e.Reason + " (the change is written to your files as usual)"
}

func refused(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// gitTimeout bounds each git command.
const gitTimeout = 30 * time.Second

// repo is the git repository a workspace is in.
type repo struct {
	top    string // the work tree's top
	gitDir string
	prefix string // the workspace's path below top, "" or "sub/dir/"
	env    []string
}

func open(ctx context.Context, workspace string) (*repo, error) {
	r := &repo{env: os.Environ()}
	top, err := r.git(ctx, workspace, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, refused("%s is not in a git work tree", workspace)
	}
	r.top = strings.TrimSpace(top)
	gd, err := r.git(ctx, r.top, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, err
	}
	r.gitDir = strings.TrimSpace(gd)
	real, _ := filepath.EvalSymlinks(workspace)
	rel, err := filepath.Rel(r.top, real)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, refused("%s is outside the repository's work tree %s", workspace, r.top)
	}
	if rel != "." {
		r.prefix = filepath.ToSlash(rel) + "/"
	}
	return r, nil
}

// git runs git in dir with extra environment and returns its stdout.
func (r *repo) git(ctx context.Context, dir string, extra []string, args ...string) (string, error) {
	return r.gitIn(ctx, dir, extra, nil, args...)
}

func (r *repo) gitIn(ctx context.Context, dir string, extra []string, stdin []byte, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotepath=off"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), r.env...), extra...)
	cmd.WaitDelay = 2 * time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// inProgress names an operation git is in the middle of, if any.
func (r *repo) inProgress() string {
	for name, what := range map[string]string{
		"MERGE_HEAD": "a merge", "rebase-merge": "a rebase", "rebase-apply": "a rebase or git am",
		"CHERRY_PICK_HEAD": "a cherry-pick", "REVERT_HEAD": "a revert", "BISECT_LOG": "a bisect",
	} {
		if _, err := os.Stat(filepath.Join(r.gitDir, name)); err == nil {
			return what
		}
	}
	return ""
}

// Commit records files (already written to the work tree) as one commit
// with message.
func Commit(ctx context.Context, workspace string, files []File, message string, opts Options) (*Result, error) {
	return record(ctx, workspace, files, message, opts.Branch)
}

// Revert records the undoing of a commit Commit made of files (as given
// to Commit): the inverse change, on the branch the commit went to.
func Revert(ctx context.Context, workspace string, of *Result, files []File, message string) (*Result, error) {
	inverse := make([]File, len(files))
	for i, f := range files {
		inverse[i] = File{Path: f.Path, Base: f.New, BaseExists: !f.Delete, New: f.Base, Delete: !f.BaseExists}
	}
	// On the branch the commit went to: the checked-out one still, or a
	// branch of its own (whose index is not the work tree's).
	return record(ctx, workspace, inverse, message, of.Branch)
}

func record(ctx context.Context, workspace string, files []File, message, branch string) (*Result, error) {
	r, err := open(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if what := r.inProgress(); what != "" {
		return nil, refused("%s is in progress", what)
	}
	head, err := r.git(ctx, r.top, nil, "symbolic-ref", "-q", "HEAD")
	if err != nil {
		return nil, refused("HEAD is detached: check out a branch")
	}
	headRef := strings.TrimSpace(head)
	ref, current := headRef, true
	if branch != "" && "refs/heads/"+branch != headRef {
		ref, current = "refs/heads/"+branch, false
		if _, err := r.git(ctx, r.top, nil, "check-ref-format", ref); err != nil {
			return nil, refused("%q is not a valid branch name", branch)
		}
	}
	base := r.resolve(ctx, ref)
	old := base // what the ref must still be when it is moved
	if base == "" && !current {
		base = r.resolve(ctx, headRef) // a new branch starts from HEAD
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, r.prefix+f.Path)
	}
	if current {
		// The user's staged work in these files would be swept into the
		// commit, or lost from the index.
		args := append([]string{"diff", "--cached", "--name-only", "--"}, paths...)
		if base == "" {
			args = append([]string{"ls-files", "--"}, paths...)
		}
		staged, err := r.git(ctx, r.top, nil, args...)
		if err != nil {
			return nil, err
		}
		if s := strings.TrimSpace(staged); s != "" {
			return nil, refused("%s %s staged changes of yours", strings.ReplaceAll(s, "\n", ", "), plural(strings.Count(s, "\n")+1, "has", "have"))
		}
	}
	tmp, err := os.CreateTemp("", "anvil-git-index-")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	os.Remove(tmp.Name()) // git wants to create it
	defer os.Remove(tmp.Name())
	index := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if base != "" {
		_, err = r.git(ctx, r.top, index, "read-tree", base)
	} else {
		_, err = r.git(ctx, r.top, index, "read-tree", "--empty")
	}
	if err != nil {
		return nil, err
	}
	type entry struct{ mode, blob, path string }
	var entries []entry
	for i, f := range files {
		p := paths[i]
		content, del, err := r.content(ctx, base, p, f)
		if err != nil {
			return nil, err
		}
		if del {
			entries = append(entries, entry{path: p})
			continue
		}
		blob, err := r.gitIn(ctx, r.top, nil, content, "hash-object", "-w", "--stdin")
		if err != nil {
			return nil, err
		}
		mode := "100644"
		if info, err := os.Stat(filepath.Join(r.top, filepath.FromSlash(p))); err == nil && info.Mode()&0o111 != 0 {
			mode = "100755"
		}
		entries = append(entries, entry{mode: mode, blob: strings.TrimSpace(blob), path: p})
	}
	update := func(extra []string) error {
		for _, e := range entries {
			var err error
			if e.blob == "" {
				_, err = r.git(ctx, r.top, extra, "update-index", "--force-remove", "--", e.path)
			} else {
				_, err = r.git(ctx, r.top, extra, "update-index", "--add", "--cacheinfo", e.mode+","+e.blob+","+e.path)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := update(index); err != nil {
		return nil, err
	}
	tree, err := r.git(ctx, r.top, index, "write-tree")
	if err != nil {
		return nil, err
	}
	args := []string{"commit-tree", strings.TrimSpace(tree), "-m", message}
	if base != "" {
		args = append(args, "-p", base)
	}
	commit, err := r.git(ctx, r.top, nil, args...)
	if err != nil {
		if strings.Contains(err.Error(), "ident") || strings.Contains(err.Error(), "Please tell me who you are") {
			return nil, refused("git has no identity to commit with (git config user.name and user.email)")
		}
		return nil, err
	}
	commit = strings.TrimSpace(commit)
	// Only if the branch is still where it was read: a commit the user
	// made meanwhile is not overwritten.
	if old == "" {
		old = strings.Repeat("0", len(commit)) // the ref must not exist yet
	}
	if _, err := r.git(ctx, r.top, nil, "update-ref", "-m", "anvil: "+firstLine(message), ref, commit, old); err != nil {
		return nil, refused("the branch moved while the commit was made; commit again")
	}
	if current {
		// The committed files' index entries are the commit's: git status
		// shows nothing of Anvil's change as staged or modified.
		if err := update(nil); err != nil {
			return nil, fmt.Errorf("the commit %s is made, but the index entries of its files could not be set: %w", commit[:12], err)
		}
	}
	return &Result{Commit: commit, Branch: strings.TrimPrefix(ref, "refs/heads/"), Files: paths, Current: current}, nil
}

// resolve returns the commit ref names, "" if none.
func (r *repo) resolve(ctx context.Context, ref string) string {
	out, err := r.git(ctx, r.top, nil, "rev-parse", "-q", "--verify", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// content returns what to commit of f at p: Anvil's change applied to the
// branch's version. When the branch's version is what Anvil started from
// (the usual case), that is Anvil's content; when the user had edited the
// file since (unstaged), the two changes are merged, and overlapping ones
// refuse.
func (r *repo) content(ctx context.Context, base, p string, f File) ([]byte, bool, error) {
	var committed []byte
	exists := false
	if base != "" {
		if out, err := r.git(ctx, r.top, nil, "cat-file", "blob", base+":"+p); err == nil {
			committed, exists = []byte(out), true
		}
	}
	if exists == f.BaseExists && bytes.Equal(committed, f.Base) {
		return f.New, f.Delete, nil
	}
	if f.Delete || !f.BaseExists || !exists {
		return nil, false, refused("%s has changes of yours that are not committed, which Anvil's change (a creation or deletion) cannot be separated from", p)
	}
	dir, err := os.MkdirTemp("", "anvil-git-merge-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(dir)
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, b, 0o600)
		return path
	}
	cur, old, other := write("committed", committed), write("base", f.Base), write("anvil", f.New)
	merged, err := r.git(ctx, r.top, nil, "merge-file", "-p", "-q", cur, old, other)
	if err != nil {
		return nil, false, refused("%s has uncommitted changes of yours that overlap Anvil's change", p)
	}
	return []byte(merged), false, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// slugRE is what a branch slug keeps.
var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

// Slug makes a branch-name part of text: "Rename User to Account" is
// "rename-user-to-account".
func Slug(text string) string {
	s := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(text), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "change"
	}
	return s
}

// BranchFor expands a configured branch ("anvil/<slug>") for slug.
func BranchFor(pattern, slug string) string {
	return strings.ReplaceAll(pattern, "<slug>", Slug(slug))
}

// IsRefused reports whether err is a refusal (not a failure of git).
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}
