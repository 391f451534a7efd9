// Package daemon keeps the gate warm for every client: 'anvil serve' runs
// one daemon per user, which owns the language servers of each workspace
// it is asked about and stops them after an idle time; 'anvil check',
// 'anvil tool' and 'anvil mcp' talk to it over a Unix socket private to the
// user, starting it when it is not running, and fall back to servers of
// their own when it cannot start.
//
// A [Service] is what a front end asks of one workspace: validate a change
// set, commit one through the gate, undo, run a tool. [Local] serves a
// workspace in this process (the daemon serves each of its workspaces with
// one); [Remote] forwards to the daemon. Both give the same answers.
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Service is one workspace's gate and tools.
type Service interface {
	// Check validates a change set and writes nothing.
	Check(ctx context.Context, specs []changeset.Spec, opts GateOptions) (*Outcome, error)
	// Commit validates a change set and writes it if the verdict is clean.
	Commit(ctx context.Context, specs []changeset.Spec, message string, opts GateOptions) (*Outcome, error)
	// Undo reverts the workspace's last commit.
	Undo(ctx context.Context) (*UndoOutcome, error)
	// Tool runs one of the workspace's tools with JSON arguments.
	Tool(ctx context.Context, name string, args json.RawMessage) (*ToolOutcome, error)
	// Tools describes the workspace's tools.
	Tools(ctx context.Context) ([]ToolInfo, error)
}

// GateOptions choose what a check or a commit does beside the language
// servers' check.
type GateOptions struct {
	// Run also builds the change set and runs its tests in a shadow tree
	// (the run stage) once the servers found it clean.
	Run bool `json:"run,omitempty"`
}

// Outcome is what a check or a commit found and did.
type Outcome struct {
	// Result is the verdict; nil when the change set was refused before any
	// check (Stale).
	Result *shadow.Result `json:"result,omitempty"`
	// Committed is set when the change set was written, with the journal
	// entry and its files.
	Committed bool     `json:"committed"`
	Entry     string   `json:"entry,omitempty"`
	Files     []string `json:"files,omitempty"`
	// Conflict names files that changed on disk since the change set was
	// read: nothing was written.
	Conflict []string `json:"conflict,omitempty"`
	// Stale names files that no longer have the content the change set
	// says it was made from (base_sha256): nothing was checked or written.
	Stale []string `json:"stale,omitempty"`
	// Recovered describes interrupted commits rolled back first.
	Recovered []string `json:"recovered,omitempty"`
}

// UndoOutcome is what an undo did.
type UndoOutcome struct {
	Entry    string   `json:"entry"`
	Message  string   `json:"message"`
	Restored []string `json:"restored"`
	// Nothing is set when there was no commit to undo.
	Nothing bool `json:"nothing,omitempty"`
	// Conflict names files changed since the commit: nothing was undone.
	Conflict []string `json:"conflict,omitempty"`
}

// ToolOutcome is a tool's result, its data in JSON.
type ToolOutcome struct {
	Output  string          `json:"output"`
	Data    json.RawMessage `json:"data,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
}

// ToolInfo describes a tool.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// InputError is a request the caller can fix (a path outside the
// workspace, a malformed change set, an unknown tool).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// IsInput reports whether err is an [*InputError].
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// Local serves one workspace in this process.
type Local struct {
	App *app.App
}

var _ Service = (*Local)(nil)

// Check implements [Service].
func (l *Local) Check(ctx context.Context, specs []changeset.Spec, opts GateOptions) (*Outcome, error) {
	return l.run(ctx, specs, "", false, opts)
}

// Commit implements [Service].
func (l *Local) Commit(ctx context.Context, specs []changeset.Spec, message string, opts GateOptions) (*Outcome, error) {
	return l.run(ctx, specs, message, true, opts)
}

func (l *Local) run(ctx context.Context, specs []changeset.Spec, message string, commit bool, opts GateOptions) (*Outcome, error) {
	if err := l.App.Root.Replaced(); err != nil {
		return nil, &InputError{Msg: err.Error()}
	}
	g := l.App.Gate
	if opts.Run {
		g = g.Running()
	}
	out := &Outcome{}
	var recs []journal.Recovery
	var err error
	// A check writes nothing and needs no lock: it recovers only when a
	// commit was interrupted, and never waits behind another client's
	// commit (and its run stage) otherwise.
	if commit || l.App.Journal.Interrupted() {
		recs, err = l.App.Journal.RecoverWaiting(ctx, waitingFor(ctx))
		if err != nil {
			return nil, fmt.Errorf("recovering an interrupted commit: %w", err)
		}
	}
	for _, r := range recs {
		out.Recovered = append(out.Recovered, describeRecovery(r))
	}
	set, err := changeset.Load(l.App.Root, specs)
	var stale *changeset.StaleError
	switch {
	case errors.As(err, &stale):
		out.Stale = stale.Paths
		return out, nil
	case err != nil:
		return nil, &InputError{Msg: err.Error()}
	}
	if !commit {
		out.Result, err = g.Check(ctx, set, 1)
		if workspace.IsReplaced(err) {
			return nil, &InputError{Msg: err.Error()}
		}
		return out, err
	}
	o, err := g.Commit(ctx, set, 1, message, waitingFor(ctx))
	if workspace.IsReplaced(err) {
		return nil, &InputError{Msg: err.Error()}
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
	}
	return out, nil
}

func describeRecovery(r journal.Recovery) string {
	if r.Abandoned != "" {
		return fmt.Sprintf("an interrupted commit (%s) was %s", r.Entry.ID, r.Abandoned)
	}
	s := fmt.Sprintf("rolled back an interrupted commit (%s): restored %d files", r.Entry.ID, len(r.Restored))
	if len(r.Kept) > 0 {
		s += fmt.Sprintf("; left %v as you changed them since", r.Kept)
	}
	return s
}

// Undo implements [Service].
func (l *Local) Undo(ctx context.Context) (*UndoOutcome, error) {
	if err := l.App.Root.Replaced(); err != nil {
		return nil, &InputError{Msg: err.Error()}
	}
	if _, err := l.App.Journal.RecoverWaiting(ctx, waitingFor(ctx)); err != nil {
		return nil, fmt.Errorf("recovering an interrupted commit: %w", err)
	}
	e, err := l.App.Journal.Undo(ctx)
	var conflict *journal.ConflictError
	switch {
	case errors.Is(err, journal.ErrNothingToUndo):
		return &UndoOutcome{Nothing: true}, nil
	case errors.As(err, &conflict):
		return &UndoOutcome{Conflict: conflict.Paths}, nil
	case err != nil:
		return nil, err
	}
	return &UndoOutcome{Entry: e.ID, Message: e.Message, Restored: e.Paths()}, nil
}

// Tool implements [Service].
func (l *Local) Tool(ctx context.Context, name string, args json.RawMessage) (*ToolOutcome, error) {
	t, ok := l.App.Tools.Get(name)
	if !ok {
		return nil, &InputError{Msg: fmt.Sprintf("unknown tool %q", name)}
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := l.App.Root.Replaced(); err != nil {
		return nil, &InputError{Msg: err.Error()}
	}
	res, err := t.Call(ctx, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := l.App.Root.Replaced(); err != nil {
		// Replaced while the tool ran: its answer is about a directory
		// that is gone.
		return nil, &InputError{Msg: err.Error()}
	}
	out := &ToolOutcome{Output: res.Output, IsError: res.IsError}
	if res.Data != nil {
		if out.Data, err = json.Marshal(res.Data); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Tools implements [Service].
func (l *Local) Tools(context.Context) ([]ToolInfo, error) {
	var out []ToolInfo
	for _, t := range l.App.Tools.Tools() {
		out = append(out, ToolInfo{Name: t.Name(), Description: t.Description(), InputSchema: t.InputSchema()})
	}
	return out, nil
}
