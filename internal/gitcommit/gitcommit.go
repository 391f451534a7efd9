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
// The commit is what git add <files> && git commit would make: each file
// stored as git add stores it (hash-object --path: clean filters, eol and
// core.autocrlf conversion), the user's edits told from Anvil's after that
// conversion (as git status tells them), the pre-commit, prepare-commit-msg,
// commit-msg and post-commit hooks run with the temporary index, the commit
// signed when commit.gpgsign is set. The user's index is locked
// (index.lock) and its new entries prepared before the branch moves.
//
// It refuses, with the reason, and the change set stays written: outside a
// repository's work tree, a detached HEAD, a merge, rebase, cherry-pick,
// revert or bisect in progress, staged changes in a file to commit, a
// user's unstaged edit that overlaps Anvil's change, git without an
// identity, what git add would refuse (a new ignored file, a path outside
// the sparse-checkout definition or in a submodule), a hook that fails, a
// signature git cannot make, a held index.lock.
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
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
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
	// Env is git's whole environment (and its hooks'), as the execution
	// policy gives it.
	Env []string
	// Untrusted: the user does not trust the workspace, so nothing the
	// repository's configuration names runs (no hooks, no
	// core.fsmonitor program).
	Untrusted bool
	// Contain is how git and the hooks run (the execution policy's
	// [execpolicy.Policy.RepositoryContainment]): in a trusted workspace
	// the repository's hooks and filters run, and see none of the places
	// no program may; nil runs them as they are. A signed commit's git
	// runs as it is: signing needs the user's keys.
	Contain *proc.Containment
}

// untrustedConfig keeps git from running what a repository's own
// configuration names.
var untrustedConfig = []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false", "GIT_CONFIG_KEY_1=core.hooksPath", "GIT_CONFIG_VALUE_1=/dev/null"}

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
type RefusedError struct {
	Reason string
	// Kept is the commit a refused Revert leaves in the branch's history.
	Kept *Result
}

func (e *RefusedError) Error() string {
	if e.Kept != nil {
		return fmt.Sprintf("not reverted in git: %s (your files are restored; the commit %.12s stays in the history of %s: git revert %.12s reverts it)", e.Reason, e.Kept.Commit, e.Kept.Branch, e.Kept.Commit)
	}
	return "not committed to git: " + e.Reason + " (the change is written to your files as usual)"
}

func refused(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// gitTimeout bounds each git command.
const gitTimeout = 30 * time.Second

// repo is the git repository a workspace is in.
type repo struct {
	zero   string // the null object id (40 or 64 zeros)
	top    string // the work tree's top
	gitDir string
	prefix string // the workspace's path below top, "" or "sub/dir/"
	env    []string
	// noHooks: the repository's hooks do not run (an untrusted workspace).
	noHooks bool
	// contain is how git and the hooks run (Options.Contain).
	contain *proc.Containment
}

func open(ctx context.Context, workspace string, opts Options) (*repo, error) {
	r := &repo{env: slices.Clone(opts.Env), noHooks: opts.Untrusted, contain: opts.Contain}
	if opts.Untrusted {
		r.env = append(r.env, untrustedConfig...)
	}
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
	if opts.Untrusted {
		name, err := r.repoFilter(ctx)
		if err != nil {
			return nil, refused("%v; the repository's own configuration may name a program git would run on its files, which runs only in a workspace you trust (anvil trust)", err)
		}
		if name != "" {
			return nil, refused("the repository's own configuration names a program for the filter %s, which git would run on its files; it runs only in a workspace you trust (anvil trust)", name)
		}
	}
	r.zero = strings.Repeat("0", 40)
	if f, err := r.git(ctx, r.top, nil, "rev-parse", "--show-object-format"); err == nil && strings.TrimSpace(f) == "sha256" {
		r.zero = strings.Repeat("0", 64)
	}
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
	stdout, stderr, err := proc.Run(ctx, proc.Spec{Path: "git", Args: gitArgv(args), Dir: dir, Env: append(slices.Clone(r.env), extra...), Input: stdin, Contain: r.contain})
	if err != nil {
		return string(stdout), &gitError{args: args, err: err, stderr: strings.TrimSpace(string(stderr))}
	}
	return string(stdout), nil
}

// gitArgv is git's arguments for args. The repository's fsmonitor is a
// program it names, and only a speed-up: no commit runs it.
func gitArgv(args []string) []string {
	return append([]string{"-c", "core.quotepath=off", "-c", "core.fsmonitor=false"}, args...)
}

// gitAsUser is gitIn for the one command that signs with the user's own
// program (commit-tree -S, no signer of the repository's): run as the
// user runs git, uncontained and in the user's process tree, so that a
// gpg-agent it starts outlives it, as after git commit.
func (r *repo) gitAsUser(ctx context.Context, dir string, extra []string, stdin []byte, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", gitArgv(args)...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(r.env), extra...)
	cmd.WaitDelay = proc.WaitDelay
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &gitError{args: args, err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.String(), nil
}

// gitError is a git command that failed, with what it said.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.args, " "), e.err, e.stderr)
}

func (e *gitError) Unwrap() error { return e.err }

// gitMessage is what git said of err, or err itself.
func gitMessage(err error) string {
	var g *gitError
	if errors.As(err, &g) && g.stderr != "" {
		return g.stderr
	}
	return err.Error()
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
// with message, as git add <files> and git commit -m message would: the
// files stored through their attributes (clean filters, eol), the hooks
// run, signed when commit.gpgsign says so. A Result with an error is a
// commit on the branch whose index entries could not be set (the error
// says how to fix the index).
func Commit(ctx context.Context, workspace string, files []File, message string, opts Options) (*Result, error) {
	return record(ctx, workspace, files, message, opts, false)
}

// Revert records the undoing of a commit Commit made of files (as given
// to Commit): the inverse change, on the branch the commit went to, with
// the hooks git revert runs (prepare-commit-msg, post-commit). A refusal
// says that the commit stays in the branch's history.
func Revert(ctx context.Context, workspace string, of *Result, files []File, message string, opts Options) (*Result, error) {
	inverse := make([]File, len(files))
	for i, f := range files {
		inverse[i] = File{Path: f.Path, Base: f.New, BaseExists: !f.Delete, New: f.Base, Delete: !f.BaseExists}
	}
	// On the branch the commit went to: the checked-out one still, or a
	// branch of its own (whose index is not the work tree's).
	opts.Branch = of.Branch
	res, err := record(ctx, workspace, inverse, message, opts, true)
	var refusal *RefusedError
	if errors.As(err, &refusal) {
		refusal.Kept = of
	}
	return res, err
}

func record(ctx context.Context, workspace string, files []File, message string, opts Options, revert bool) (*Result, error) {
	branch := opts.Branch
	r, err := open(ctx, workspace, opts)
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
	// What git add would refuse (ignored, sparse, in a submodule).
	if err := r.checkAdd(ctx, paths); err != nil {
		return nil, err
	}
	author, err := r.author(ctx)
	if err != nil {
		return nil, err
	}
	if current {
		// A held index lock refuses before the hooks run for nothing (it
		// is taken for good before the branch moves, below).
		lock, err := r.lockIndex(ctx)
		if err != nil {
			return nil, err
		}
		lock.release()
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
	var info strings.Builder // update-index --index-info lines
	for i, f := range files {
		p := paths[i]
		blob, del, err := r.blob(ctx, base, p, f)
		if err != nil {
			return nil, err
		}
		if del {
			fmt.Fprintf(&info, "0 %s\t%s\x00", r.zero, p)
			continue
		}
		fmt.Fprintf(&info, "%s %s\t%s\x00", r.mode(ctx, base, p), blob, p)
	}
	if _, err := r.gitIn(ctx, r.top, index, []byte(info.String()), "update-index", "-z", "--index-info"); err != nil {
		return nil, err
	}
	// The hooks git commit runs (git revert runs no pre-commit and no
	// commit-msg), with the temporary index: they see Anvil's change as
	// staged, and what pre-commit stages is committed, as with git commit.
	hookEnv := append([]string{"GIT_INDEX_FILE=" + tmp.Name(), "GIT_EDITOR=:", "GIT_PREFIX=" + r.prefix}, author...)
	if !revert {
		if err := r.hook(ctx, "pre-commit", hookEnv); err != nil {
			return nil, err
		}
	}
	message, err = r.message(ctx, message, hookEnv, revert)
	if err != nil {
		return nil, err
	}
	tree, err := r.git(ctx, r.top, index, "write-tree")
	if err != nil {
		return nil, err
	}
	commit, err := r.commitTree(ctx, strings.TrimSpace(tree), base, message, author)
	if err != nil {
		return nil, err
	}
	res := &Result{Commit: commit, Branch: strings.TrimPrefix(ref, "refs/heads/"), Files: paths, Current: current}
	// The user's index is locked, as git locks it, and its new entries
	// prepared before the branch moves: a held lock refuses with nothing
	// committed, never a commit whose reversal is left staged.
	var lock *indexLock
	if current {
		if lock, err = r.lockIndex(ctx); err != nil {
			return nil, err
		}
		defer lock.release()
		if err := lock.prepare(ctx, r, base, commit); err != nil {
			return nil, err
		}
	}
	// Only if the branch is still where it was read: a commit the user
	// made meanwhile is not overwritten.
	if old == "" {
		old = r.zero // the ref must not exist yet
	}
	if _, err := r.git(ctx, r.top, nil, "update-ref", "-m", "anvil: "+firstLine(message), ref, commit, old); err != nil {
		return nil, refused("the branch moved while the commit was made; commit again")
	}
	if lock != nil {
		// The committed files' index entries are the commit's: git status
		// shows nothing of Anvil's change as staged or modified.
		if err := lock.install(); err != nil {
			return res, fmt.Errorf("the commit %.12s is on %s, but the index could not be updated (git status shows its reversal as staged: git reset -q -- %s): %w", commit, res.Branch, strings.Join(paths, " "), err)
		}
	}
	if lock != nil {
		hookEnv[0] = "GIT_INDEX_FILE=" + lock.index // git commit's post-commit sees the index
	}
	r.postCommit(ctx, hookEnv)
	return res, nil
}

// resolve returns the commit ref names, "" if none.
func (r *repo) resolve(ctx context.Context, ref string) string {
	out, err := r.git(ctx, r.top, nil, "rev-parse", "-q", "--verify", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// mode is the mode git add gives p: executable or not as the work tree
// has it, or as the branch has it where git ignores the executable bit
// (core.fileMode false).
func (r *repo) mode(ctx context.Context, base, p string) string {
	if fm, err := r.git(ctx, r.top, nil, "config", "--type=bool", "core.fileMode"); err == nil && strings.TrimSpace(fm) == "false" && base != "" {
		if out, err := r.git(ctx, r.top, nil, "ls-tree", base, "--", p); err == nil {
			if m, _, ok := strings.Cut(out, " "); ok && (m == "100644" || m == "100755") {
				return m
			}
		}
		return "100644"
	}
	if info, err := os.Stat(filepath.Join(r.top, filepath.FromSlash(p))); err == nil && info.Mode()&0o111 != 0 {
		return "100755"
	}
	return "100644"
}

// clean stores content as git add stores the file p: through the clean
// filter, eol conversion and ident of p's attributes and core.autocrlf
// (hash-object --path). It returns the blob.
func (r *repo) clean(ctx context.Context, p string, content []byte) (string, error) {
	out, err := r.gitIn(ctx, r.top, nil, content, "hash-object", "-w", "--stdin", "--path="+p)
	if err != nil {
		return "", refused("%s cannot be stored as git add would (its clean filter or conversion fails): %s", p, gitMessage(err))
	}
	return strings.TrimSpace(out), nil
}

// blob returns what to commit of f at p: Anvil's change applied to the
// branch's version. When the branch's version is what Anvil started from
// (the usual case: the file as written is compared after git's clean
// conversion, as git status compares it), that is Anvil's content; when
// the user had edited the file since (unstaged), the two changes are
// merged, and overlapping ones refuse.
func (r *repo) blob(ctx context.Context, base, p string, f File) (string, bool, error) {
	committed := ""
	if base != "" {
		if out, err := r.git(ctx, r.top, nil, "rev-parse", "-q", "--verify", base+":"+p); err == nil {
			committed = strings.TrimSpace(out)
		}
	}
	var from string // what Anvil started from, as git stores it
	if f.BaseExists {
		var err error
		if from, err = r.clean(ctx, p, f.Base); err != nil {
			return "", false, err
		}
	}
	if from == committed {
		if f.Delete {
			return "", true, nil
		}
		blob, err := r.clean(ctx, p, f.New)
		return blob, false, err
	}
	if f.Delete || from == "" || committed == "" {
		return "", false, refused("%s has changes of yours that are not committed, which Anvil's change (a creation or deletion) cannot be separated from", p)
	}
	if out, err := r.git(ctx, r.top, nil, "check-attr", "filter", "--", p); err == nil {
		if v := strings.TrimSpace(out[strings.LastIndex(out, ":")+1:]); v != "unspecified" && v != "unset" {
			return "", false, refused("%s has changes of yours that are not committed, and it is stored through the filter %s, which Anvil's change cannot be merged through", p, v)
		}
	}
	to, err := r.clean(ctx, p, f.New)
	if err != nil {
		return "", false, err
	}
	dir, err := os.MkdirTemp("", "anvil-git-merge-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(dir)
	var names []string
	for i, blob := range []string{committed, from, to} {
		content, err := r.git(ctx, r.top, nil, "cat-file", "blob", blob)
		if err != nil {
			return "", false, err
		}
		name := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			return "", false, err
		}
		names = append(names, name)
	}
	merged, err := r.git(ctx, r.top, nil, "merge-file", "-p", "-q", names[0], names[1], names[2])
	if err != nil {
		return "", false, refused("%s has uncommitted changes of yours that overlap Anvil's change", p)
	}
	// Already as git stores it: no second conversion.
	out, err := r.gitIn(ctx, r.top, nil, []byte(merged), "hash-object", "-w", "--stdin", "--no-filters")
	return strings.TrimSpace(out), false, err
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
