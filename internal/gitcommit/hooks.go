package gitcommit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
)

// hookTimeout bounds each hook: a pre-commit hook may run a linter or the
// tests.
const hookTimeout = 10 * time.Minute

// author is the author's identity and date as git commit gives them to
// its hooks and to the commit, or a refusal when git has no identity.
func (r *repo) author(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, r.top, nil, "var", "GIT_AUTHOR_IDENT")
	if err != nil {
		return nil, refused("git has no identity to commit with (git config user.name and user.email)")
	}
	// "Name <email> 1796168296 +0000"
	ident := strings.TrimSpace(out)
	lt, gt := strings.LastIndex(ident, " <"), strings.LastIndex(ident, "> ")
	if lt < 0 || gt < lt {
		return nil, fmt.Errorf("git var GIT_AUTHOR_IDENT: unexpected %q", ident)
	}
	return []string{
		"GIT_AUTHOR_NAME=" + ident[:lt],
		"GIT_AUTHOR_EMAIL=" + ident[lt+2:gt],
		"GIT_AUTHOR_DATE=@" + ident[gt+2:],
	}, nil
}

// hookPath is the hook name of the repository (core.hooksPath honoured),
// "" if there is none: git runs only an executable file.
func (r *repo) hookPath(ctx context.Context, name string) string {
	if r.noHooks {
		return ""
	}
	out, err := r.git(ctx, r.top, nil, "rev-parse", "--git-path", "hooks/"+name)
	if err != nil {
		return ""
	}
	path := strings.TrimSpace(out)
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.top, path)
	}
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
		return ""
	}
	return path
}

// hook runs the hook name as git commit does, if there is one: in the
// work tree's top, with env (the temporary index, the author), bounded.
// A hook that fails refuses the commit with what it said.
func (r *repo) hook(ctx context.Context, name string, env []string, args ...string) error {
	path := r.hookPath(ctx, name)
	if path == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	spec := proc.Spec{Path: path, Args: args, Dir: r.top, Env: append(slices.Clone(r.env), env...), Contain: r.contain}
	if head, err := os.ReadFile(path); err == nil && !strings.HasPrefix(string(head), "#!") {
		// git runs a hook without #! through the shell.
		spec.Path, spec.Args = "/bin/sh", append([]string{path}, args...)
	}
	stdout, stderr, err := proc.Run(ctx, spec)
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return refused("the %s hook did not finish within %v", name, hookTimeout)
	}
	said := strings.TrimSpace(string(stderr) + string(stdout))
	if len(said) > 2000 {
		said = "…" + said[len(said)-2000:]
	}
	if said == "" {
		said = err.Error()
	}
	return refused("the %s hook refused the commit: %s", name, said)
}

// postCommit runs the post-commit hook; as with git commit, what it does
// does not change the commit.
func (r *repo) postCommit(ctx context.Context, env []string) {
	_ = r.hook(ctx, "post-commit", env)
}

// message is the commit message as git commit -m makes it: cleaned up,
// through the prepare-commit-msg and commit-msg hooks (in the file git
// uses, COMMIT_EDITMSG), then cleaned up as commit.cleanup says. git
// revert runs no commit-msg hook.
func (r *repo) message(ctx context.Context, message string, env []string, revert bool) (string, error) {
	msg, err := r.gitIn(ctx, r.top, nil, []byte(message), "stripspace")
	if err != nil {
		return "", err
	}
	hooks := []string{"prepare-commit-msg"}
	if !revert {
		hooks = append(hooks, "commit-msg")
	}
	file := filepath.Join(r.gitDir, "COMMIT_EDITMSG")
	wrote := false
	for _, name := range hooks {
		if r.hookPath(ctx, name) == "" {
			continue
		}
		if !wrote {
			if err := os.WriteFile(file, []byte(msg), 0o644); err != nil {
				return "", err
			}
			wrote = true
		}
		args := []string{file}
		if name == "prepare-commit-msg" {
			args = append(args, "message")
		}
		if err := r.hook(ctx, name, env, args...); err != nil {
			return "", err
		}
	}
	if !wrote {
		return msg, nil
	}
	edited, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	msg = string(edited)
	mode, _ := r.git(ctx, r.top, nil, "config", "commit.cleanup")
	switch strings.TrimSpace(mode) {
	case "verbatim":
	case "strip":
		msg, err = r.gitIn(ctx, r.top, nil, edited, "stripspace", "--strip-comments")
	default: // whitespace, scissors and default, without an editor
		msg, err = r.gitIn(ctx, r.top, nil, edited, "stripspace")
	}
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(msg) == "" {
		return "", refused("the commit message is empty after the commit-msg hook")
	}
	return msg, nil
}

// commitTree makes the commit of tree on parent, signed when the user's
// config asks for it (commit.gpgsign), as git commit signs.
func (r *repo) commitTree(ctx context.Context, tree, parent, message string, author []string) (string, error) {
	args := []string{"commit-tree", tree, "-F", "-"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	sign, repoSigner := false, ""
	if out, err := r.git(ctx, r.top, nil, "config", "--type=bool", "commit.gpgsign"); err == nil && strings.TrimSpace(out) == "true" {
		key, err := r.repoSigner(ctx)
		switch {
		case err != nil:
			return "", refused("%v; the commit would be signed by a program git's configuration names, and who named it is not known", err)
		case r.noHooks && key != "":
			return "", refused("the commit would be signed with %s from the repository's own configuration, which runs only in a workspace you trust (anvil trust)", key)
		}
		args, sign, repoSigner = append(args, "-S"), true, key
	}
	run := r.gitIn
	if sign && repoSigner == "" {
		// The user's own gpg or ssh-keygen signs with the user's keys and
		// agent, which the containment hides; and an agent gpg starts
		// for it must outlive git, as it does after git commit.
		run = r.gitAsUser
	}
	commit, err := run(ctx, r.top, author, []byte(message), args...)
	if err != nil {
		said := gitMessage(err)
		switch {
		case strings.Contains(said, "ident") || strings.Contains(said, "Please tell me who you are"):
			return "", refused("git has no identity to commit with (git config user.name and user.email)")
		case sign:
			return "", refused("commit.gpgsign is set, and git could not sign the commit: %s", said)
		}
		return "", err
	}
	return strings.TrimSpace(commit), nil
}
