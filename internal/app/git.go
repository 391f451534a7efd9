package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/gitcommit"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/state"
)

// A committed change set becomes a git commit when the user opted in
// ([git] commit, or per run). What undo needs to revert it (the commit,
// its branch, the files' contents either side) is kept beside the
// journal, one file per journal entry.

// gitRecord is what undo reverts.
type gitRecord struct {
	Result  *gitcommit.Result `json:"result"`
	Files   []gitcommit.File  `json:"files"`
	Message string            `json:"message"`
}

func (a *App) gitDir() string {
	sum := sha256.Sum256([]byte(a.Root.Dir()))
	return filepath.Join(state.Dir(a.opts.Getenv), "git", hex.EncodeToString(sum[:8]))
}

// wantsGit says whether a commit goes to git.
func (a *App) wantsGit(opts service.GateOptions) bool { return opts.Git || a.Config.Git.Commit }

// gitCommit records entry's change set as a git commit.
//
// The files are written by then: a caller that leaves must not leave git
// behind them, so the git step does not end with the caller's context
// (each git command is bounded on its own).
func (a *App) gitCommit(ctx context.Context, entry string, set *changeset.Set, message string, opts service.GateOptions) *service.GitOutcome {
	ctx = context.WithoutCancel(ctx)
	var files []gitcommit.File
	for _, c := range set.Changes() {
		files = append(files, gitcommit.File{Path: c.Path, Base: c.Base, BaseExists: c.BaseExists, New: c.Content, Delete: c.Delete})
	}
	branch := ""
	if a.Config.Git.Branch != "" {
		slug := opts.Slug
		if slug == "" {
			slug = message
		}
		branch = gitcommit.BranchFor(a.Config.Git.Branch, slug)
	}
	res, err := gitcommit.Commit(ctx, a.Root.Dir(), files, message, gitcommit.Options{Branch: branch, Env: a.Policy.Env(), Untrusted: !a.Policy.Trusted(), Contain: a.Policy.RepositoryContainment()})
	if res == nil {
		return &service.GitOutcome{Refused: err.Error()}
	}
	// A commit in the branch's history (even one whose index update
	// failed, which err says) is kept for undo to revert.
	out := &service.GitOutcome{Commit: res.Commit, Branch: res.Branch}
	if err != nil {
		out.Refused = err.Error()
	}
	if err := a.saveGit(entry, gitRecord{Result: res, Files: files, Message: message}); err != nil {
		out.Refused = strings.TrimPrefix(out.Refused+"; ", "; ") + "committed to git, but undo will not revert it: " + err.Error()
	}
	return out
}

// gitRevert reverts the git commit of the undone entry, if it had one.
// Like gitCommit, it outlives a caller that leaves.
func (a *App) gitRevert(ctx context.Context, entry string) *service.GitOutcome {
	ctx = context.WithoutCancel(ctx)
	path := filepath.Join(a.gitDir(), entry+".json")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var rec gitRecord
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil || rec.Result == nil {
		return &service.GitOutcome{Refused: fmt.Sprintf("the git record of %s cannot be read: %v", entry, err)}
	}
	res, err := gitcommit.Revert(ctx, a.Root.Dir(), rec.Result, rec.Files, fmt.Sprintf("Revert %q\n\nThis reverts commit %s (undone with anvil undo).", rec.Message, rec.Result.Commit), gitcommit.Options{Env: a.Policy.Env(), Untrusted: !a.Policy.Trusted(), Contain: a.Policy.RepositoryContainment()})
	if err != nil {
		return &service.GitOutcome{Refused: err.Error()}
	}
	os.Remove(path)
	return &service.GitOutcome{Commit: res.Commit, Branch: res.Branch}
}

func (a *App) saveGit(entry string, rec gitRecord) error {
	if err := state.EnsureDir(a.gitDir()); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(a.gitDir(), entry+".json"), data, 0o600)
}
