package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/service"
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
	// Service validates staged change sets and commits clean ones, and
	// runs rename_symbol over them: the workspace's gate, in this process
	// or the daemon's.
	Service service.Service
	// Loop holds the provider, model, events, meter and transcript; Execute
	// sets the agent, prompt, tools and stop rule.
	Loop Loop
	// ReadFile is the plain read_file tool, wrapped to the plan's files.
	ReadFile tools.Tool
	// MaxAttempts is how many rejected commits end the run.
	MaxAttempts int
	Progress    Progress
	// Images are the pictures the request attaches.
	Images []llm.Block
	// CommitOptions go with every commit (git, and the branch's slug).
	CommitOptions service.GateOptions
}

// Outcome of an execution.
const (
	Committed = "committed"
	Failed    = "failed" // the last attempt was rejected or could not be verified
	Abandoned = "abandoned"
	// Replan: the Executor handed back because the change must reach
	// files outside the plan (request_replan).
	Replan = "replan"
)

// ExecResult is what an execution did.
type ExecResult struct {
	Outcome  string
	Entry    string   // the commit's journal entry, when Committed
	Files    []string // the files it wrote
	Attempts int
	Last     *shadow.Result // the last validation of a commit
	Diff     string
	Reason   string // why it did not commit, or (Replan) why the plan must widen

	// staging is the change set, kept for an execution that resumes after
	// a re-plan.
	staging *Staging
}

// Outside returns the files outside the plan with errors the last
// validation (a commit's, else a staging's) found the change introduces.
func (r *ExecResult) Outside() []outsideFile {
	if r.staging == nil {
		return nil
	}
	last := r.Last
	if last == nil {
		last = r.staging.Last()
	}
	return outsidePlan(last, r.staging.Allowed)
}

// Staged returns the paths the execution had staged.
func (r *ExecResult) Staged() []string {
	if r.staging == nil {
		return nil
	}
	return r.staging.Paths()
}

// StagedDiff is the staged change set as a unified diff.
func (r *ExecResult) StagedDiff() string {
	if r.staging == nil {
		return ""
	}
	return diffOf(r.staging.Set().Changes())
}

// Execute runs the Executor on p. Nothing is written unless a commit's
// validation is clean. resume, when set, is the execution that handed
// back for the re-plan that produced p: its staged change set carries
// over, allowed p's files now, and the Executor gets a fresh budget of
// commit attempts (the summary counts them all).
func (e *Executor) Execute(ctx context.Context, p *plan.Plan, request, projectContext string, resume *ExecResult) (*ExecResult, error) {
	staging := NewStaging(e.Root, e.Service, e.Loop.Events, p.Files())
	staging.commitOpts = e.CommitOptions
	prompt := executePrompt(p, request, e.maxAttempts())
	result := &ExecResult{staging: staging}
	if resume != nil && resume.staging != nil {
		staging = resume.staging
		staging.Widen(p.Files())
		prompt = resumePrompt(p, resume, e.maxAttempts())
		result = &ExecResult{staging: staging, Attempts: resume.Attempts}
	}
	c := &commitTool{exec: e, staging: staging, result: result, before: result.Attempts}
	set := []tools.Tool{
		&scopedRead{inner: e.ReadFile, staging: staging},
		tools.Adapt[EditFileParams](&editFile{staging: staging}),
		tools.Adapt[WriteFileParams](&writeFile{staging: staging}),
	}
	if e.Service != nil {
		set = append(set, &stagedRename{svc: e.Service, staging: staging})
	}
	set = append(set, tools.Adapt[RunTestsParams](&runTests{staging: staging}))
	set = append(set, tools.Adapt[CommitParams](c), tools.Adapt[RequestReplanParams](&requestReplan{result: result, staging: staging}))
	if e.Progress != nil {
		set = append(set, tools.Adapt[StepDoneParams](&stepDone{progress: e.Progress}))
	}
	loop := e.Loop
	loop.Agent = "executor"
	loop.System = systemPrompt(executorPrompt, projectContext)
	loop.Tools = tools.NewSet(set...)
	loop.Stop = func(name string, _ tools.Result) bool {
		return (name == "commit" || name == "request_replan") && c.result.Outcome != ""
	}
	loop.TurnEnd = staging.TurnEnd
	loop.Pinned = func() string { return e.pinned(staging) }

	msgs := []llm.Message{{Role: llm.User, Content: append([]llm.Block{llm.Text(prompt)}, e.Images...)}}
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

// pinned states the execution's current state for a compacted
// conversation, verbatim: the staged change set, the todo list and the
// latest diagnostics.
func (e *Executor) pinned(staging *Staging) string {
	var b strings.Builder
	if paths := staging.Paths(); len(paths) > 0 {
		fmt.Fprintf(&b, "Staged (not yet written) changes to: %s\n", strings.Join(paths, ", "))
		diff := diffOf(staging.Set().Changes())
		if len(diff) > 12_000 {
			diff = diff[:12_000] + "\n[diff cut; read the staged files with read_file]\n"
		}
		fmt.Fprintf(&b, "The staged diff:\n%s\n", diff)
	} else {
		b.WriteString("Nothing is staged.\n")
	}
	if t, ok := e.Progress.(interface{ Items() []event.TodoItem }); ok {
		b.WriteString("The todo list:\n")
		for i, it := range t.Items() {
			fmt.Fprintf(&b, "  %d. [%s] %s\n", i+1, it.Status, it.Text)
		}
	}
	if last := staging.Last(); last != nil {
		b.WriteString("The latest validation:\n")
		last.ModelReport(&b, nil)
	}
	return b.String()
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

// resumePrompt continues an execution after its plan was widened.
func resumePrompt(p *plan.Plan, prev *ExecResult, attempts int) string {
	var last strings.Builder
	if res := prev.staging.Last(); res != nil {
		res.Report(&last)
	}
	return fmt.Sprintf("The plan was revised and approved because the change breaks files outside it (%s). The revised plan:\n\n%s\n"+
		"Your staged edits are kept (%s). Their last validation:\n\n%s\n"+
		"Continue: you may now read and write every file of the revised plan. You have %d commit attempts again.",
		prev.Reason, p.Markdown(), strings.Join(prev.Staged(), ", "), last.String(), attempts)
}

// CommitParams are the arguments of commit.
type CommitParams struct {
	Message string `json:"message,omitempty" jsonschema:"a short description of the change"`
}

// commitTool validates the whole change set and writes it when clean.
type commitTool struct {
	exec     *Executor
	staging  *Staging
	attempts int // this execution's
	before   int // attempts of the executions before a re-plan
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
	t.result.Attempts = t.before + t.attempts
	msg := p.Message
	if msg == "" {
		msg = "anvil"
	}
	out, err := t.staging.Commit(ctx, t.attempts, max, msg)
	switch {
	case err != nil:
		return tools.Result{}, err
	case len(out.Conflict) > 0 || len(out.Stale) > 0:
		t.result.Outcome = Failed
		t.result.Reason = fmt.Sprintf("files changed on disk while Anvil worked (%s); nothing was written", strings.Join(append(out.Conflict, out.Stale...), ", "))
		return tools.Errorf("commit refused: %s", t.result.Reason), nil
	}
	res := out.Result
	t.result.Last = res
	if res.Verdict != shadow.Clean {
		var b strings.Builder
		fmt.Fprintf(&b, "commit %d of %d refused; nothing was written.\n", t.attempts, max)
		t.staging.report(&b, res)
		outside := outsidePlan(res, t.staging.Allowed)
		if t.attempts >= max {
			t.result.Outcome = Failed
			t.result.Reason = res.Summary()
			b.WriteString("\nNo attempts left: the change set is abandoned and the user's files are untouched.\n")
		} else if len(outside) > 0 {
			b.WriteString(t.staging.outsideState(res))
		} else {
			b.WriteString("\nFix the new errors (in the files named above) and commit again.\n")
		}
		return tools.Result{Output: b.String(), IsError: true, Data: res}, nil
	}
	if !out.Committed {
		// Clean, and nothing to write: the files already hold it.
		t.result.Outcome = Committed
		return tools.Result{Output: "nothing to write: the files already have this content\n" + res.Summary()}, nil
	}
	t.result.Outcome = Committed
	t.result.Entry, t.result.Files = out.Entry, out.Files
	t.result.Diff = diffOf(set.Changes())
	ev := event.Commit{Entry: out.Entry, Files: out.Files, Diff: t.result.Diff}
	note := ""
	if g := out.Git; g != nil {
		ev.GitCommit, ev.GitBranch, ev.GitRefused = g.Commit, g.Branch, g.Refused
		if g.Commit != "" {
			note = fmt.Sprintf("\nRecorded as git commit %.12s on %s.", g.Commit, g.Branch)
		}
		if g.Refused != "" {
			note += "\n" + g.Refused
		}
	}
	t.exec.Loop.Events.Emit(ev)
	return tools.Result{Output: fmt.Sprintf("committed %d files: %s\n%s%s", len(out.Files), strings.Join(out.Files, ", "), res.Summary(), note)}, nil
}

// RunTestsParams: run_tests takes no arguments.
type RunTestsParams struct{}

// runTests builds the staged change set and runs the project's tests in a
// shadow tree: the user's files are not written.
type runTests struct{ staging *Staging }

func (t *runTests) Name() string { return "run_tests" }
func (t *runTests) Description() string {
	return "Build the staged change set and run the project's tests with it in a shadow tree (a copy-on-write view of the workspace; nothing is written to the user's files). Reports the tests the change makes fail, with their output; tests that failed before the change are listed apart. Use it before commit when the change alters behaviour."
}

func (t *runTests) Run(ctx context.Context, _ RunTestsParams) (tools.Result, error) {
	set := t.staging.Set()
	if set.Len() == 0 {
		return tools.Errorf("nothing is staged; make the plan's edits first"), nil
	}
	res, err := t.staging.RunTests(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	if res.Run == nil {
		// The servers found errors first: the tests would not build.
		var b strings.Builder
		t.staging.report(&b, res)
		b.WriteString("\nThe change set does not pass the language servers' check, so its tests were not run; fix the new errors first.\n")
		return tools.Result{Output: b.String(), IsError: true, Data: res}, nil
	}
	rep := res.Run
	var b strings.Builder
	rep.Report(&b)
	switch rep.Status {
	case shadow.RunFailed:
		b.WriteString("\nFix the behaviour these tests check (in the plan's files), then run_tests again.\n")
		return tools.Result{Output: b.String(), IsError: true, Data: rep}, nil
	case shadow.RunError, shadow.RunUnverified, shadow.RunSkipped:
		// No evidence either way: the model must not take it as a pass.
		return tools.Result{Output: b.String(), IsError: true, Data: rep}, nil
	}
	return tools.Result{Output: b.String(), Data: rep}, nil
}

// RequestReplanParams are the arguments of request_replan.
type RequestReplanParams struct {
	Reason string `json:"reason" jsonschema:"why the plan must widen: which files outside it must change with this change, and why"`
}

// requestReplan hands the execution back to the Orchestrator, which asks
// the Planner for a plan that includes the files the change breaks, and
// the user to approve it. The staged change set is kept.
type requestReplan struct {
	result  *ExecResult
	staging *Staging
}

func (t *requestReplan) Name() string { return "request_replan" }
func (t *requestReplan) Description() string {
	return "Hand back to the Orchestrator when the change must also edit files outside the plan (the validation names files you cannot edit with new errors). The Planner revises the plan to include them, the user approves it, and you continue with your staged edits kept. Use it only when the plan's change is right and those files must follow it."
}

func (t *requestReplan) Run(_ context.Context, p RequestReplanParams) (tools.Result, error) {
	if strings.TrimSpace(p.Reason) == "" {
		return tools.Errorf("give the reason: which files outside the plan must change, and why"), nil
	}
	t.result.Outcome = Replan
	t.result.Reason = p.Reason
	return tools.Result{Output: "The Orchestrator will ask the Planner to revise the plan and the user to approve it; your staged edits are kept."}, nil
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
