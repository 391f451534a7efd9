// Package service is what every front end asks of a workspace's gate: check
// a change set, commit one, undo, run a tool. The CLI (anvil check, tool,
// undo), the MCP server and the agent's Planner and Executor all go through
// a [Service]: the workspace's own in this process ([app.App.Service]), or
// the daemon's ([daemon.Remote]), which keeps the servers warm between runs
// and clients. Both give the same answers; the decisions (when the run
// stage runs, what a check recovers) live in one place, the local one.
package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Service is one workspace's gate and tools.
type Service interface {
	// Check validates a change set and writes nothing.
	Check(ctx context.Context, specs []changeset.Spec, opts GateOptions) (*Outcome, error)
	// Commit validates a change set and writes it if the verdict is clean.
	Commit(ctx context.Context, specs []changeset.Spec, message string, opts GateOptions) (*Outcome, error)
	// Undo reverts the workspace's last commit (opts.Entry: only if it is
	// that one).
	Undo(ctx context.Context, opts UndoOptions) (*UndoOutcome, error)
	// Tool runs one of the workspace's tools with JSON arguments; staged
	// are contents the tool reads instead of the disk's (an Executor's
	// change set), nil for none.
	Tool(ctx context.Context, name string, args json.RawMessage, staged []changeset.Spec) (*ToolOutcome, error)
	// Tools describes the workspace's tools.
	Tools(ctx context.Context) ([]ToolInfo, error)
	// Warm has the servers answer for files (workspace-relative) as they
	// are on disk, starting them if need be, so that the first check of a
	// change to them asks about the change alone: a plan's files, while
	// its user reads it. With no paths, it starts in the background what a
	// session's first check would wait for (every language's server and
	// project, the dependants' records) and returns at once: a session's
	// start. Best effort: nothing depends on it.
	Warm(ctx context.Context, paths []string) error
}

// GateOptions choose what a check or a commit does beside the language
// servers' check.
type GateOptions struct {
	// Run also builds the change set and runs its tests in a shadow tree
	// (the run stage) once the servers found it clean. A commit runs it
	// anyway when the project configures [run] commands.
	Run bool `json:"run,omitempty"`
	// Staging marks a check made while a change is being built (an
	// Executor's turn): it may be narrower than a commit's, and says so.
	Staging bool `json:"staging,omitempty"`
	// Complete checks every dependant even when the changed files or
	// their direct importers already have new errors, so that the
	// errors the change resolves are all known too: a check whose
	// change is the way back to an earlier tree (the end of a hooked
	// agent's turn) reads what the way there broke from them.
	Complete bool `json:"complete,omitempty"`
	// ChangedOnly checks the changed files alone, none of their
	// dependants, and the verdict says when it left some
	// (Result.DependantsLeft: never clean for them; they are left to a
	// later, complete check). An edit's hook asks for it by default, and
	// when a check with the importers cannot finish within its bound, so
	// that the edit's own files are still judged.
	ChangedOnly bool `json:"changed_only,omitempty"`
	// DependantsWithin, when set, leaves the dependants out as ChangedOnly
	// does whenever asking about them is expected to take longer than it
	// (the gate learns each server's cost per question): the pre-edit
	// hook's importers, which the end of the turn checks.
	DependantsWithin time.Duration `json:"dependants_within,omitempty"`
	// NewOnly: the caller reads only the errors the change introduces,
	// not those it resolves (the pre-edit hook), so the gate may skip
	// asking about a file's state before the change where the file has
	// no error after it. Resolved may then miss some.
	NewOnly bool `json:"new_only,omitempty"`
	// Git makes a commit a git commit too, whatever [git] commit says;
	// Slug names the branch's "<slug>" ([git] branch), the session's first
	// request when there is one, else the commit's message.
	Git  bool   `json:"git,omitempty"`
	Slug string `json:"slug,omitempty"`
	// Progress, if set, is told what the gate is doing for the request
	// ("gopls: checking 3 files…", a wait for another run's lock), in
	// this process or, through the daemon, in its. It must not block.
	Progress func(Progress) `json:"-"`
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
	// Git is the git commit made of the change set, when asked.
	Git *GitOutcome `json:"git,omitempty"`
}

// GitOutcome is what recording a commit (or its undo) in git did.
type GitOutcome struct {
	Commit string `json:"commit,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Refused says why nothing went to git (the files are written as
	// usual): a detached HEAD, a merge in progress, staged changes; or,
	// with Commit set, what went wrong after the commit was made. For an
	// undo it says that the commit stays in the branch's history.
	Refused string `json:"refused,omitempty"`
}

// UndoOptions choose what an undo may revert.
type UndoOptions struct {
	// Entry, when set, is the commit the caller means (a session's own):
	// if the workspace's last commit is another one (a later run's),
	// nothing is undone and the outcome's NotLast names it.
	Entry string `json:"entry,omitempty"`
	// Progress, if set, is told of a wait for another run's lock.
	Progress func(Progress) `json:"-"`
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
	// NotLast is the workspace's last commit when it is not the one asked
	// for (UndoOptions.Entry): nothing was undone.
	NotLast string `json:"not_last,omitempty"`
	// Git is the revert commit, when the undone commit was a git commit.
	Git *GitOutcome `json:"git,omitempty"`
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

// Progress is what the gate is doing for a request while it runs.
type Progress struct {
	Message string `json:"message"`
	// Notice marks what the user should see even off a terminal (a wait
	// for another run's lock), not only on a status line.
	Notice bool `json:"notice,omitempty"`
}

// ShadowProgress is what the shadow validation tells a request's
// progress sink, nil when there is none.
func ShadowProgress(fn func(Progress)) func(shadow.Progress) {
	if fn == nil {
		return nil
	}
	return func(p shadow.Progress) { fn(Progress{Message: p.String()}) }
}

// WaitingFor says to fn (nil: to nobody) that a commit is waiting for
// another run's workspace lock.
func WaitingFor(fn func(Progress)) func(holder string) {
	return func(holder string) {
		if fn != nil {
			fn(Progress{Message: fmt.Sprintf("waiting for another Anvil run committing in this workspace (%s)…", holder), Notice: true})
		}
	}
}
