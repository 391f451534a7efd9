package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/gate"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/textdiff"
	"github.com/anvil-dev/anvil/internal/tools"
	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed prompts/executor.md
var executorPrompt string

// Progress receives the Executor's reports on the plan's steps. The
// Orchestrator implements it: it owns the todo list, and the Executor can
// only ask it to mark a step.
type Progress interface {
	StepDone(step int, note string) error
}

// Executor carries out an approved plan through the shadow workspace.
type Executor struct {
	Root *workspace.Root
	// Gate validates staged change sets and commits clean ones.
	Gate *gate.Gate
	// Loop holds the provider, model, events, meter and transcript; Execute
	// sets the agent, prompt, tools and stop rule.
	Loop Loop
	// ReadFile is the plain read_file tool, wrapped to the plan's files.
	ReadFile tools.Tool
	// RenameSymbol builds rename_symbol over the Executor's change set.
	RenameSymbol func(tools.Stager) tools.Tool
	// MaxAttempts is how many rejected commits end the run.
	MaxAttempts int
	Progress    Progress
}

// Outcome of an execution.
const (
	Committed = "committed"
	Failed    = "failed" // the last attempt was rejected or could not be verified
	Abandoned = "abandoned"
)

// ExecResult is what an execution did.
type ExecResult struct {
	Outcome  string
	Entry    *journal.Entry // the commit, when Committed
	Attempts int
	Last     *shadow.Result // the last validation of a commit
	Diff     string
	Reason   string // why it did not commit
}

// Execute runs the Executor on p. Nothing is written unless a commit's
// validation is clean.
func (e *Executor) Execute(ctx context.Context, p *plan.Plan, request, projectContext string) (*ExecResult, error) {
	staging := NewStaging(e.Root, e.Gate, e.Loop.Events, p.Files())
	c := &commitTool{exec: e, staging: staging, result: &ExecResult{}}
	set := []tools.Tool{
		&scopedRead{inner: e.ReadFile, staging: staging},
		tools.Adapt[EditFileParams](&editFile{staging: staging}),
		tools.Adapt[WriteFileParams](&writeFile{staging: staging}),
	}
	if e.RenameSymbol != nil {
		set = append(set, e.RenameSymbol(staging))
	}
	set = append(set, tools.Adapt[CommitParams](c))
	if e.Progress != nil {
		set = append(set, tools.Adapt[StepDoneParams](&stepDone{progress: e.Progress}))
	}
	loop := e.Loop
	loop.Agent = "executor"
	loop.System = systemPrompt(executorPrompt, projectContext)
	loop.Tools = tools.NewSet(set...)
	loop.Stop = func(name string, _ tools.Result) bool {
		return name == "commit" && c.result.Outcome != ""
	}

	msgs := []llm.Message{{Role: llm.User, Content: []llm.Block{llm.Text(executePrompt(p, request, e.maxAttempts()))}}}
	msgs, outcome, err := loop.Run(ctx, msgs)
	if err != nil && !errors.Is(err, ErrMaxTurns) {
		return nil, err
	}
	if c.result.Outcome == "" && outcome == EndTurn && staging.Set().Len() > 0 {
		// Work staged but never committed: ask once.
		msgs = append(msgs, llm.Message{Role: llm.User, Content: []llm.Block{llm.Text("Your edits are staged but not written. Call commit to validate and write them.")}})
		_, _, err = loop.Run(ctx, msgs)
		if err != nil && !errors.Is(err, ErrMaxTurns) {
			return nil, err
		}
	}
	if c.result.Outcome == "" {
		c.result.Outcome = Abandoned
		c.result.Reason = "the executor stopped without committing"
		if errors.Is(err, ErrMaxTurns) {
			c.result.Reason = ErrMaxTurns.Error()
		}
	}
	return c.result, nil
}

func (e *Executor) maxAttempts() int {
	if e.MaxAttempts > 0 {
		return e.MaxAttempts
	}
	return 3
}

func executePrompt(p *plan.Plan, request string, attempts int) string {
	return fmt.Sprintf("Request: %s\n\nThe approved plan:\n\n%s\nCarry it out. You may read and write only the files listed in it. You have %d commit attempts.", request, p.Markdown(), attempts)
}

// CommitParams are the arguments of commit.
type CommitParams struct {
	Message string `json:"message,omitempty" jsonschema:"a short description of the change"`
}

// commitTool validates the whole change set and writes it when clean.
type commitTool struct {
	exec     *Executor
	staging  *Staging
	attempts int
	result   *ExecResult
}

func (t *commitTool) Name() string { return "commit" }
func (t *commitTool) Description() string {
	return "Validate the whole staged change set with the language servers and, if it introduces no new errors, write it to disk atomically. A rejection returns the new errors with their source lines; fix them and commit again. Attempts are limited."
}

func (t *commitTool) Run(ctx context.Context, p CommitParams) (tools.Result, error) {
	set := t.staging.Set()
	if set.Len() == 0 {
		return tools.Errorf("nothing is staged; make the plan's edits with edit_file or write_file first"), nil
	}
	max := t.exec.maxAttempts()
	t.attempts++
	t.result.Attempts = t.attempts
	msg := p.Message
	if msg == "" {
		msg = "anvil"
	}
	out, err := t.staging.Commit(ctx, t.attempts, max, msg)
	var conflict *journal.ConflictError
	switch {
	case errors.As(err, &conflict):
		t.result.Outcome = Failed
		t.result.Reason = fmt.Sprintf("files changed on disk while Anvil worked (%s); nothing was written", strings.Join(conflict.Paths, ", "))
		return tools.Errorf("commit refused: %s", t.result.Reason), nil
	case err != nil:
		return tools.Result{}, err
	}
	res := out.Result
	t.result.Last = res
	if res.Verdict != shadow.Clean {
		var b strings.Builder
		fmt.Fprintf(&b, "commit %d of %d refused; nothing was written.\n", t.attempts, max)
		res.Report(&b)
		if t.attempts >= max {
			t.result.Outcome = Failed
			t.result.Reason = res.Summary()
			b.WriteString("\nNo attempts left: the change set is abandoned and the user's files are untouched.\n")
		} else {
			b.WriteString("\nFix the new errors (in the files named above) and commit again.\n")
		}
		return tools.Result{Output: b.String(), IsError: true, Data: res}, nil
	}
	entry := out.Entry
	t.result.Outcome = Committed
	t.result.Entry = entry
	t.result.Diff = diffOf(set.Changes())
	t.exec.Loop.Events.Emit(event.Commit{Entry: entry.ID, Files: entry.Paths(), Diff: t.result.Diff})
	return tools.Result{Output: fmt.Sprintf("committed %d files: %s\n%s", len(entry.Files), strings.Join(entry.Paths(), ", "), res.Summary())}, nil
}

// StepDoneParams are the arguments of step_done.
type StepDoneParams struct {
	Step int    `json:"step" jsonschema:"the step's number in the plan, from 1"`
	Note string `json:"note,omitempty" jsonschema:"what was done, in a few words"`
}

type stepDone struct{ progress Progress }

func (t *stepDone) Name() string { return "step_done" }
func (t *stepDone) Description() string {
	return "Report that a step of the plan is done (staged; the commit comes at the end)."
}

func (t *stepDone) Run(_ context.Context, p StepDoneParams) (tools.Result, error) {
	if err := t.progress.StepDone(p.Step, p.Note); err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Output: fmt.Sprintf("step %d marked done", p.Step)}, nil
}

// diffOf renders changes as one unified diff, git style.
func diffOf(changes []*changeset.Change) string {
	var b strings.Builder
	for _, c := range changes {
		from, to := "a/"+c.Path, "b/"+c.Path
		if !c.BaseExists {
			from = "/dev/null"
		}
		newText := string(c.Content)
		if c.Delete {
			to, newText = "/dev/null", ""
		}
		b.WriteString(textdiff.Unified(from, to, string(c.Base), newText))
	}
	return b.String()
}
