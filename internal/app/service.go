package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/tools"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Service returns the app's workspace as a [service.Service] served in
// this process: what the daemon serves each of its workspaces with, and
// what a front end uses when there is no daemon.
func (a *App) Service() service.Service { return &local{a: a} }

// local serves one workspace in this process. The gate's decisions live
// here, for every front end: what a check recovers first, and when the run
// stage runs.
type local struct{ a *App }

var _ service.Service = (*local)(nil)

// Warm implements [service.Service].
func (l *local) Warm(ctx context.Context, paths []string) error {
	if err := l.a.Root.Replaced(); err != nil {
		return &service.InputError{Msg: err.Error()}
	}
	if len(paths) == 0 {
		return l.a.Validator.WarmAhead(ctx)
	}
	return l.a.Validator.Warm(ctx, paths)
}

// Check implements [service.Service].
func (l *local) Check(ctx context.Context, specs []changeset.Spec, opts service.GateOptions) (*service.Outcome, error) {
	return l.run(ctx, specs, "", false, opts)
}

// Commit implements [service.Service].
func (l *local) Commit(ctx context.Context, specs []changeset.Spec, message string, opts service.GateOptions) (*service.Outcome, error) {
	return l.run(ctx, specs, message, true, opts)
}

// runStage is the run stage's policy, for every front end: it runs when
// asked (anvil check --run, test_changes, run_tests), and for every
// commit of a project that configures [run] commands, so that a behaviour
// break is rejected like a type error whoever commits.
func (l *local) runStage(commit bool, opts service.GateOptions) bool {
	return opts.Run || (commit && (l.a.Config.Run.Test != "" || l.a.Config.Run.Build != ""))
}

func (l *local) run(ctx context.Context, specs []changeset.Spec, message string, commit bool, opts service.GateOptions) (*service.Outcome, error) {
	a := l.a
	if err := a.Root.Replaced(); err != nil {
		return nil, &service.InputError{Msg: err.Error()}
	}
	g := a.Gate
	if l.runStage(commit, opts) {
		g = g.Running()
	}
	out := &service.Outcome{}
	recs, err := a.recoverWhenNeeded(ctx, commit, service.WaitingFor(opts.Progress))
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		out.Recovered = append(out.Recovered, r.String())
	}
	set, err := changeset.Load(a.Root, specs)
	var stale *changeset.StaleError
	switch {
	case errors.As(err, &stale):
		out.Stale = stale.Paths
		return out, nil
	case err != nil:
		return nil, &service.InputError{Msg: err.Error()}
	}
	if !commit {
		scope := shadow.Scope{Staging: opts.Staging, ChangedOnly: opts.ChangedOnly, DependantsWithin: opts.DependantsWithin, Complete: opts.Complete, NewOnly: opts.NewOnly}
		out.Result, err = g.Check(ctx, set, 1, scope, service.ShadowProgress(opts.Progress))
		if workspace.IsReplaced(err) {
			return nil, &service.InputError{Msg: err.Error()}
		}
		return out, err
	}
	o, err := g.Commit(ctx, set, 1, message, service.ShadowProgress(opts.Progress), service.WaitingFor(opts.Progress))
	if workspace.IsReplaced(err) {
		return nil, &service.InputError{Msg: err.Error()}
	}
	out.Result = o.Result
	var conflict *journal.ConflictError
	switch {
	case errors.As(err, &conflict):
		out.Conflict = conflict.Paths
	case errors.Is(err, journal.ErrNothingToCommit):
	case err != nil:
		return nil, err
	}
	if o.Entry != nil {
		out.Committed, out.Entry, out.Files = true, o.Entry.ID, o.Entry.Paths()
		if a.wantsGit(opts) {
			out.Git = a.gitCommit(ctx, o.Entry.ID, set, message, opts)
		}
	}
	return out, nil
}

// Undo implements [service.Service].
func (l *local) Undo(ctx context.Context, opts service.UndoOptions) (*service.UndoOutcome, error) {
	a := l.a
	if err := a.Root.Replaced(); err != nil {
		return nil, &service.InputError{Msg: err.Error()}
	}
	// An undo writes, as a commit does.
	if _, err := a.recoverWhenNeeded(ctx, true, service.WaitingFor(opts.Progress)); err != nil {
		return nil, err
	}
	e, err := a.Journal.UndoEntry(ctx, opts.Entry)
	var conflict *journal.ConflictError
	var notLast *journal.NotLastError
	switch {
	case errors.Is(err, journal.ErrNothingToUndo):
		return &service.UndoOutcome{Nothing: true}, nil
	case errors.As(err, &notLast):
		return &service.UndoOutcome{NotLast: notLast.Last}, nil
	case errors.As(err, &conflict):
		return &service.UndoOutcome{Conflict: conflict.Paths}, nil
	case workspace.IsReplaced(err):
		return nil, &service.InputError{Msg: err.Error()}
	case err != nil:
		return nil, err
	}
	return &service.UndoOutcome{Entry: e.ID, Message: e.Message, Restored: e.Paths(), Git: a.gitRevert(ctx, e.ID)}, nil
}

// Tool implements [service.Service].
func (l *local) Tool(ctx context.Context, name string, args json.RawMessage, staged []changeset.Spec) (*service.ToolOutcome, error) {
	a := l.a
	t, ok := a.Tools.Get(name)
	if !ok {
		return nil, &service.InputError{Msg: fmt.Sprintf("unknown tool %q", name)}
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := a.Root.Replaced(); err != nil {
		return nil, &service.InputError{Msg: err.Error()}
	}
	if r, ok := t.(tools.StagedReader); ok && len(staged) > 0 {
		t = r.WithStaged(staged)
	}
	res, err := t.Call(ctx, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := a.Root.Replaced(); err != nil {
		// Replaced while the tool ran: its answer is about a directory
		// that is gone.
		return nil, &service.InputError{Msg: err.Error()}
	}
	out := &service.ToolOutcome{Output: res.Output, IsError: res.IsError}
	if res.Data != nil {
		if out.Data, err = json.Marshal(res.Data); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Tools implements [service.Service].
func (l *local) Tools(context.Context) ([]service.ToolInfo, error) {
	var out []service.ToolInfo
	for _, t := range l.a.Tools.Tools() {
		out = append(out, service.ToolInfo{Name: t.Name(), Description: t.Description(), InputSchema: t.InputSchema()})
	}
	return out, nil
}

// RecoverInterrupted recovers the workspace's interrupted commit, if there
// is one, telling waiting who holds the workspace lock when it must wait
// for it; with none it returns at once, taking no lock, so a run's or a
// TUI's start never waits behind another process's commit and its run
// stage.
func (a *App) RecoverInterrupted(ctx context.Context, waiting func(holder string)) ([]journal.Recovery, error) {
	return a.recoverWhenNeeded(ctx, false, waiting)
}

// recoverWhenNeeded is the one decision of when recovery runs: before every commit
// (under the lock the commit takes anyway), and otherwise only when a
// commit was interrupted (a check writes nothing and needs no lock).
func (a *App) recoverWhenNeeded(ctx context.Context, commit bool, waiting func(holder string)) ([]journal.Recovery, error) {
	if !commit && !a.Journal.Interrupted() {
		return nil, nil
	}
	recs, err := a.Journal.RecoverWaiting(ctx, waiting)
	if err != nil {
		return nil, fmt.Errorf("recovering an interrupted commit: %w", err)
	}
	return recs, nil
}
