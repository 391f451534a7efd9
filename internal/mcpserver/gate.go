package mcpserver

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/tools"
)

var (
	//go:embed descriptions/check_changes.md
	checkChangesDescription string
	//go:embed descriptions/apply_changes.md
	applyChangesDescription string
	//go:embed descriptions/test_changes.md
	testChangesDescription string
	//go:embed descriptions/undo.md
	undoDescription string
)

// CheckParams are the arguments of check_changes and test_changes: the
// change-set format of 'anvil check'.
type CheckParams struct {
	Changes []changeset.Spec `json:"changes" jsonschema:"the files to change: each with its whole new content, or delete"`
}

// ApplyParams are the arguments of apply_changes.
type ApplyParams struct {
	Changes []changeset.Spec `json:"changes" jsonschema:"the files to change: each with its whole new content, or delete"`
	Run     bool             `json:"run,omitempty" jsonschema:"also build the project and run its tests with the change in a shadow tree (never in the workspace) before writing; a test the change makes fail rejects it"`
}

// Verdict is the structured result of check_changes, test_changes and
// apply_changes: what 'anvil check --json' prints, with the summary and
// what to do next, since the structured content is what MCP clients hand
// their model (the text may never reach it).
type Verdict struct {
	*shadow.Result
	// Summary is the verdict in one line; Next says what to do now.
	Summary   string `json:"summary"`
	Next      string `json:"next"`
	Committed bool   `json:"committed"`
	// Files are the files written (apply_changes, when committed).
	Files []string `json:"files,omitempty"`
	// Recovered reports interrupted commits rolled back first.
	Recovered []string `json:"recovered,omitempty"`
}

// next says what a model should do after a check's verdict.
func next(res *shadow.Result, committing bool) string {
	switch res.Verdict {
	case shadow.Clean:
		if committing {
			return "Nothing more to do: the change set is written."
		}
		return "The change set introduces no error: write it, or send it to apply_changes to validate and write it in one step."
	case shadow.Rejected:
		if len(res.New) == 0 && res.Run != nil {
			return "Nothing written. Fix the code so the failing tests pass (their output is in run.output), then check again."
		}
		return "Nothing written. Fix the new errors (each with its file, line and line_text), then check the whole change set again."
	}
	return "Nothing written: the change could not be checked, so it is not known to be safe. The unverified reasons say why and how to fix it."
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

type checkChanges struct {
	svc service.Service
	// say is the call's progress sink (nil when the client asked for none).
	say func(service.Progress)
	// run also builds and tests the change in a shadow tree
	// (test_changes): it runs the project's code, so it is its own tool,
	// not advertised as read-only.
	run bool
}

func (*checkChanges) TuneSchema(s *jsonschema.Schema) { tuneChanges(s) }

func (t *checkChanges) Name() string {
	if t.run {
		return "test_changes"
	}
	return "check_changes"
}

func (t *checkChanges) Description() string {
	if t.run {
		return testChangesDescription
	}
	return checkChangesDescription
}

func (t *checkChanges) Run(ctx context.Context, p CheckParams) (tools.Result, error) {
	out, err := t.svc.Check(ctx, p.Changes, service.GateOptions{Run: t.run, Progress: t.say})
	if res, done := refused(out, err); done {
		return res, err
	}
	var b strings.Builder
	out.Result.Report(&b)
	v := Verdict{Result: out.Result, Summary: out.Result.Summary(), Next: next(out.Result, false), Recovered: out.Recovered}
	fmt.Fprintf(&b, "\n%s\n", v.Next)
	return tools.Result{Output: b.String(), Data: v}, nil
}

type applyChanges struct {
	svc service.Service
	say func(service.Progress)
}

func (*applyChanges) TuneSchema(s *jsonschema.Schema) { tuneChanges(s) }

func (*applyChanges) Name() string        { return "apply_changes" }
func (*applyChanges) Description() string { return applyChangesDescription }

func (t *applyChanges) Run(ctx context.Context, p ApplyParams) (tools.Result, error) {
	out, err := t.svc.Commit(ctx, p.Changes, "apply_changes (MCP)", service.GateOptions{Run: p.Run, Progress: t.say})
	if res, done := refused(out, err); done {
		return res, err
	}
	var b strings.Builder
	out.Result.Report(&b)
	data := Verdict{Result: out.Result, Summary: out.Result.Summary(), Committed: out.Committed, Files: out.Files, Recovered: out.Recovered}
	isError := true
	switch {
	case out.Committed:
		data.Next = fmt.Sprintf("Committed %d %s: %s. The undo tool reverts it.", len(out.Files), plural(len(out.Files)), strings.Join(out.Files, ", "))
		isError = false
	case len(out.Conflict) > 0:
		data.Next = fmt.Sprintf("Nothing written: %v. Read the files again and send the change set made from their current content.",
			&journal.ConflictError{Op: "commit", Paths: out.Conflict})
	case out.Result.Verdict == shadow.Clean:
		data.Next = "Nothing to write: the files already have this content."
		isError = false
	default:
		data.Next = next(out.Result, true) + " Only a clean change set is written."
	}
	fmt.Fprintf(&b, "\n%s\n", data.Next)
	return tools.Result{Output: b.String(), Data: data, IsError: isError}, nil
}

// refused turns what stops a change set before any verdict into the
// tool's answer: a problem the model can fix is a tool error, anything
// else the caller's error.
func refused(out *service.Outcome, err error) (tools.Result, bool) {
	switch {
	case service.IsInput(err):
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

type undo struct {
	svc service.Service
	say func(service.Progress)
}

func (*undo) Name() string        { return "undo" }
func (*undo) Description() string { return undoDescription }

func (t *undo) Run(ctx context.Context, _ UndoParams) (tools.Result, error) {
	out, err := t.svc.Undo(ctx, service.UndoOptions{Progress: t.say})
	switch {
	case err != nil:
		return tools.Result{}, err
	case out.Nothing:
		return tools.Errorf("Nothing to undo in this workspace."), nil
	case len(out.Conflict) > 0:
		return tools.Errorf("Nothing undone: %v.", &journal.ConflictError{Op: "undo", Paths: out.Conflict}), nil
	}
	summary := fmt.Sprintf("Undid %s (%s): restored %d %s: %s", out.Entry, out.Message, len(out.Restored), plural(len(out.Restored)), strings.Join(out.Restored, ", "))
	return tools.Result{Output: summary + "\n", Data: undone{UndoOutcome: out, Summary: summary}}, nil
}

// undone is undo's structured result, its summary in it.
type undone struct {
	*service.UndoOutcome
	Summary string `json:"summary"`
}

func plural(n int) string {
	if n == 1 {
		return "file"
	}
	return "files"
}
