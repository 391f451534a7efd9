// Package replay holds the gate to a project's own batch checker on the
// project's own history: each recent commit is applied, whole and file by
// file (what an agent's change set is mid-task), to a scratch tree of its
// parent, and the gate's verdict on it (the workspace's Service) is set
// beside the batch checker's (its new errors, after against before, over
// the same trees). The user's work tree, index and HEAD are never touched:
// the scratch tree is a directory of replay's own, filled by git through
// an index of its own.
package replay

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Verdict is a case's outcome by one side: the gate or the checker.
type Verdict string

const (
	Clean      Verdict = "clean"
	Rejected   Verdict = "rejected"
	Unverified Verdict = "unverified"
)

// Tree is what replay needs of a workspace: its gate and the choice of
// its batch checkers. Close releases both.
type Tree struct {
	Gate service.Service
	Runs Runs
	// Policy seals the batch checkers that give the truth.
	Policy *execpolicy.Policy
	Close  func()
}

// Options configure a replay.
type Options struct {
	// Dir is the workspace, in a git work tree.
	Dir string
	// Commits is how many commits of HEAD's first-parent history to
	// replay, a merge as the branch it landed (0: all of them after
	// Since).
	Commits int
	// Since, if set, replays only the commits after it.
	Since string
	// Open opens the workspace at a directory: the scratch tree's.
	Open func(ctx context.Context, dir string) (*Tree, error)
	// TempDir holds the scratch tree ("" for the system's).
	TempDir string
	// Env is the environment git runs with on the host (the execution
	// policy's); the batch checkers run sealed by the scratch tree's own
	// policy ([Tree.Policy]).
	Env []string
	// Untrusted: the user does not trust the workspace, so no program
	// its repository's own configuration names may run: a filter driver
	// there (git runs its smudge command as it writes the scratch tree)
	// refuses the replay.
	Untrusted bool
	// Contain is how git runs (the execution policy's
	// RepositoryContainment): a trusted repository's filters run, and
	// see none of the places no program may.
	Contain *proc.Containment
	// Progress, if set, is told what replay is doing.
	Progress func(string)
}

// maxFiles bounds the files of a commit replay applies: a larger one (a
// vendored tree, a mass rename) is skipped, with the reason.
const maxFiles = 200

// maxFileCases bounds the file-by-file cases of one commit; the files
// past it are named in the report.
const maxFileCases = 12

// Run replays the commits and returns the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	say := opts.Progress
	if say == nil {
		say = func(string) {}
	}
	r, err := openRepo(ctx, opts.Dir, opts.Env, opts.Contain)
	if err != nil {
		return nil, err
	}
	if opts.Untrusted {
		name, err := r.repoFilter(ctx)
		if err != nil {
			return nil, fmt.Errorf("%v: who names git's filter programs is not known, and one the repository's own configuration names runs only in a workspace you trust; %s", err, execpolicy.TrustFix(r.top))
		}
		if name != "" {
			return nil, fmt.Errorf("the repository's own configuration names a program for the filter %s, which git would run on the files it writes for the replay; it runs only in a workspace you trust; %s", name, execpolicy.TrustFix(r.top))
		}
	}
	list, err := r.commits(ctx, opts.Commits, opts.Since)
	if err != nil {
		return nil, err
	}
	workspace, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	rep := &Report{Workspace: workspace, Cases: []Case{}}
	s, err := newScratch(r, opts.TempDir)
	if err != nil {
		return nil, err
	}
	defer s.remove()
	or := &oracle{root: s.workspace(), stateDir: filepath.Join(s.dir, "batch"), checkers: map[string]*batch.Checker{}}
	var tree *Tree
	defer func() {
		if tree != nil {
			tree.Close()
		}
	}()
	// Oldest first: each commit's parent is then, in a linear history,
	// the tree the one before it left, and the scratch tree moves by one
	// commit's files.
	slices.Reverse(list)
	for i, c := range list {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		say(fmt.Sprintf("commit %d of %d: %.12s %s", i+1, len(list), c.hash, c.subject))
		specs, why, err := commitChanges(ctx, r, c)
		if err != nil {
			return nil, err
		}
		if why != "" {
			rep.Skipped = append(rep.Skipped, Skip{Commit: c.hash, Subject: c.subject, Reason: why})
			continue
		}
		parentTree, err := r.treeOf(ctx, c.parents[0])
		if err != nil {
			return nil, err
		}
		if err := s.move(ctx, parentTree); err != nil {
			return nil, err
		}
		if tree == nil {
			if err := s.linkDependencies(workspace); err != nil {
				return nil, err
			}
			if tree, err = opts.Open(ctx, s.workspace()); err != nil {
				return nil, err
			}
			or.policy = tree.Policy
		}
		for _, cs := range cases(specs) {
			if cs.skip != "" {
				rep.Skipped = append(rep.Skipped, Skip{Commit: c.hash, Subject: c.subject, Scope: cs.scope, Reason: cs.skip})
				continue
			}
			what := fmt.Sprintf("%.12s %s", c.hash, cs.scope)
			say(what)
			k, err := replayCase(ctx, tree, or, parentTree, cs.specs, func(p service.Progress) { say(what + ": " + p.Message) })
			if err != nil {
				return nil, fmt.Errorf("%.12s %s: %w", c.hash, cs.scope, err)
			}
			k.Commit, k.Subject, k.Scope = c.hash, c.subject, cs.scope
			rep.Cases = append(rep.Cases, k)
		}
	}
	rep.total()
	return rep, nil
}

// commitChanges returns the commit's change set, or why it is not
// replayed. A merge's change is what it brought to its first parent: a
// pull request's branch as it landed, which is all the first-parent
// history replay walks shows of the branch (skipping merges replayed
// nothing of a history of merged pull requests).
func commitChanges(ctx context.Context, r *repo, c commit) ([]changeset.Spec, string, error) {
	if len(c.parents) == 0 {
		return nil, "the root commit: there is no parent tree to apply it to", nil
	}
	files, err := r.changes(ctx, c.parents[0], c.hash)
	if err != nil {
		return nil, "", err
	}
	switch {
	case len(files) == 0:
		return nil, "changes no file of the workspace", nil
	case len(files) > maxFiles:
		return nil, fmt.Sprintf("changes %d files, over %d", len(files), maxFiles), nil
	}
	var specs []changeset.Spec
	for _, f := range files {
		if f.mode == "120000" || f.mode == "160000" {
			return nil, f.path + " is a symbolic link or a submodule, which a change set does not carry", nil
		}
		if f.blob == "" {
			specs = append(specs, changeset.Spec{Path: f.path, Delete: true})
			continue
		}
		data, err := r.blob(ctx, f.blob)
		if err != nil {
			return nil, "", err
		}
		content := string(data)
		specs = append(specs, changeset.Spec{Path: f.path, Content: &content})
	}
	return specs, "", nil
}

// caseSpec is one application of (part of) a commit.
type caseSpec struct {
	scope string
	specs []changeset.Spec
	skip  string
}

// cases are the commit whole and, when it changes more than one file,
// each of its source and configuration files alone, as an agent's change
// set holds them mid-task.
func cases(specs []changeset.Spec) []caseSpec {
	out := []caseSpec{{scope: "whole", specs: specs}}
	if len(specs) < 2 {
		return out
	}
	n := 0
	for _, s := range specs {
		if servers.LanguageOf(s.Path) == "" && servers.ConfigLanguage(s.Path) == "" {
			continue
		}
		cs := caseSpec{scope: s.Path, specs: []changeset.Spec{s}}
		if n++; n > maxFileCases {
			cs.specs, cs.skip = nil, fmt.Sprintf("past the first %d files of the commit", maxFileCases)
		}
		out = append(out, cs)
	}
	return out
}

// replayCase has the gate and the checker judge one change set over the
// parent's tree, telling progress what the gate does.
func replayCase(ctx context.Context, t *Tree, or *oracle, parentTree string, specs []changeset.Spec, progress func(service.Progress)) (Case, error) {
	var k Case
	start := time.Now()
	out, err := t.Gate.Check(ctx, specs, service.GateOptions{Progress: progress})
	k.GateMS = time.Since(start).Milliseconds()
	if err != nil {
		return k, err
	}
	if out.Result == nil {
		return k, fmt.Errorf("the gate checked nothing (stale: %s)", strings.Join(out.Stale, ", "))
	}
	k.Gate, k.GateErrors, k.GateReason = gateVerdict(out.Result)
	a := or.check(ctx, t.Runs, parentTree, specs)
	k.Checker, k.CheckerErrors, k.CheckerReason, k.CheckerMS = a.verdict, first(a.errors, 5), a.reason, a.took.Milliseconds()
	return k, nil
}

// gateVerdict reads a gate's result as a case's side.
func gateVerdict(res *shadow.Result) (Verdict, []string, string) {
	switch res.Verdict {
	case shadow.Rejected:
		var errs []string
		for _, d := range res.New {
			errs = append(errs, d.String())
		}
		return Rejected, first(errs, 5), ""
	case shadow.Unverified:
		var why []string
		for _, u := range res.Unverified {
			why = append(why, u.Path+": "+u.Reason)
		}
		return Unverified, nil, strings.Join(why, "; ")
	}
	return Clean, nil, ""
}

func first(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}
