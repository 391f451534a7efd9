package mcpserver

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/tools"
)

var (
	//go:embed descriptions/check_changes.md
	checkChangesDescription string
	//go:embed descriptions/apply_changes.md
	applyChangesDescription string
	//go:embed descriptions/undo.md
	undoDescription string
)

// ChangesParams are the arguments of check_changes and apply_changes: the
// change-set format of 'anvil check'.
type ChangesParams struct {
	Changes []changeset.Spec `json:"changes" jsonschema:"the files to change: each with its whole new content, or delete"`
	Run     bool             `json:"run,omitempty" jsonschema:"also build the project and run its tests with the change in a shadow tree (never in the workspace); a test the change makes fail rejects it"`
}

// Verdict is the structured result of check_changes and apply_changes:
// what 'anvil check --json' prints.
type Verdict struct {
	*shadow.Result
	Committed bool `json:"committed"`
	// Files are the files written (apply_changes, when committed).
	Files []string `json:"files,omitempty"`
	// Recovered reports interrupted commits rolled back first.
	Recovered []string `json:"recovered,omitempty"`
}

// tuneChanges makes the change list a plain array of objects whose
// content is a string: the inferred schema allows null for both (a Go
// slice and pointer), which no caller means.
func tuneChanges(s *jsonschema.Schema) {
	changes := s.Properties["changes"]
	changes.Type, changes.Types = "array", nil
	changes.MinItems = ptr(1)
	content := changes.Items.Properties["content"]
	content.Type, content.Types = "string", nil
}

type checkChanges struct{ svc daemon.Service }

func (*checkChanges) TuneSchema(s *jsonschema.Schema) { tuneChanges(s) }

func (*checkChanges) Name() string        { return "check_changes" }
func (*checkChanges) Description() string { return checkChangesDescription }

func (t *checkChanges) Run(ctx context.Context, p ChangesParams) (tools.Result, error) {
	out, err := t.svc.Check(ctx, p.Changes, daemon.GateOptions{Run: p.Run})
	if res, done := refused(out, err); done {
		return res, err
	}
	var b strings.Builder
	out.Result.Report(&b)
	return tools.Result{Output: b.String(), Data: Verdict{Result: out.Result, Recovered: out.Recovered}}, nil
}

type applyChanges struct{ svc daemon.Service }

func (*applyChanges) TuneSchema(s *jsonschema.Schema) { tuneChanges(s) }

func (*applyChanges) Name() string        { return "apply_changes" }
func (*applyChanges) Description() string { return applyChangesDescription }

func (t *applyChanges) Run(ctx context.Context, p ChangesParams) (tools.Result, error) {
	out, err := t.svc.Commit(ctx, p.Changes, "apply_changes (MCP)", daemon.GateOptions{Run: p.Run})
	if res, done := refused(out, err); done {
		return res, err
	}
	var b strings.Builder
	out.Result.Report(&b)
	data := Verdict{Result: out.Result, Committed: out.Committed, Files: out.Files, Recovered: out.Recovered}
	switch {
	case out.Committed:
		fmt.Fprintf(&b, "\nCommitted %d %s: %s (the undo tool reverts it).\n", len(out.Files), plural(len(out.Files)), strings.Join(out.Files, ", "))
		return tools.Result{Output: b.String(), Data: data}, nil
	case len(out.Conflict) > 0:
		fmt.Fprintf(&b, "\nNothing written: %v. Read the files again and send the change set made from their current content.\n",
			&journal.ConflictError{Op: "commit", Paths: out.Conflict})
	case out.Result.Verdict == shadow.Clean:
		fmt.Fprintln(&b, "\nNothing to write: the files already have this content.")
		return tools.Result{Output: b.String(), Data: data}, nil
	default:
		fmt.Fprintln(&b, "\nNothing written: only a clean change set is committed.")
	}
	return tools.Result{Output: b.String(), Data: data, IsError: true}, nil
}

// refused turns what stops a change set before any verdict into the
// tool's answer: a problem the model can fix is a tool error, anything
// else the caller's error.
func refused(out *daemon.Outcome, err error) (tools.Result, bool) {
	switch {
	case daemon.IsInput(err):
		return tools.Errorf("%v", err), true
	case err != nil:
		return tools.Result{}, true
	case len(out.Stale) > 0:
		return tools.Errorf("Nothing checked or written: %v. Read the files again and send the change set made from their current content.",
			&changeset.StaleError{Paths: out.Stale}), true
	}
	return tools.Result{}, false
}

// UndoParams: undo takes no arguments.
type UndoParams struct{}

type undo struct{ svc daemon.Service }

func (*undo) Name() string        { return "undo" }
func (*undo) Description() string { return undoDescription }

func (t *undo) Run(ctx context.Context, _ UndoParams) (tools.Result, error) {
	out, err := t.svc.Undo(ctx)
	switch {
	case err != nil:
		return tools.Result{}, err
	case out.Nothing:
		return tools.Errorf("Nothing to undo in this workspace."), nil
	case len(out.Conflict) > 0:
		return tools.Errorf("Nothing undone: %v.", &journal.ConflictError{Op: "undo", Paths: out.Conflict}), nil
	}
	return tools.Result{
		Output: fmt.Sprintf("Undid %s (%s): restored %d %s: %s\n", out.Entry, out.Message, len(out.Restored), plural(len(out.Restored)), strings.Join(out.Restored, ", ")),
		Data:   out,
	}, nil
}

func plural(n int) string {
	if n == 1 {
		return "file"
	}
	return "files"
}
