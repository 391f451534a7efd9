package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/session"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Decision is the user's answer at the approval gate.
type Decision struct {
	Kind     string // DecisionYes, DecisionNo or DecisionRevise
	Feedback string // for DecisionRevise
	Auto     bool   // decided without asking (--yes)
}

// Decisions at the approval gate.
const (
	DecisionYes    = "yes"
	DecisionNo     = "no"
	DecisionRevise = "revise"
)

// Approver asks the user about a plan: the TUI, a terminal prompt, or
// --yes. It blocks until the user answers or ctx ends.
type Approver interface {
	Approve(ctx context.Context, p *plan.Plan, revision int) (Decision, error)
}

// maxRevisions bounds the revise loop; past it the run stops unapproved.
const maxRevisions = 10

// Orchestrator runs a request end to end.
type Orchestrator struct {
	Root     *workspace.Root
	Session  *session.Session
	Planner  *Planner
	Executor *Executor
	Approver Approver
	Events   event.Sink
	// PlanOnly stops after the plan is shown; nothing is written.
	PlanOnly    bool
	TestCommand string
	// UserRules is the user's own rules file (absolute; it may not
	// exist), which applies in every workspace.
	UserRules string
	// Throwaway says the workspace is removed after the run ('anvil demo'
	// without --keep): the summary offers no undo there.
	Throwaway bool
	// MaxReplans bounds how many times the request goes back to the
	// Planner because the change breaks files outside the plan.
	MaxReplans int
	// Provider, Model and Replayed describe the model for the session event.
	Provider string
	Model    string
	Replayed bool
	// Conversation is the session the request continues, if any.
	Conversation Conversation

	warming sync.WaitGroup // warmPlan calls in flight
}

// Conversation is what a request knows of its session.
type Conversation struct {
	ID string
	N  int // the request's number in it
	// History tells the agents the session's earlier requests: plans,
	// commits, outcomes (conversation.Session.History).
	History string
	// Interrupted is the previous request, when it never finished.
	Interrupted string
}

// Run handles request and reports the outcome as a Done event, which it
// also returns. An error is returned only for failures outside the run's
// control (cancellation, a provider that cannot be reached).
func (o *Orchestrator) Run(ctx context.Context, request string) (event.Done, error) {
	wctx, stopWarming := context.WithCancel(ctx)
	done, err := o.run(wctx, request)
	stopWarming()
	o.warming.Wait()
	if err != nil {
		o.Events.Emit(event.Error{Message: err.Error()})
		done = event.Done{Success: false, Summary: event.Summary{Request: request, Message: err.Error()}}
	}
	o.Events.Emit(done)
	return done, err
}

func (o *Orchestrator) run(ctx context.Context, request string) (event.Done, error) {
	sess := event.Session{Workspace: o.Root.Dir(), Request: request, Provider: o.Provider, Model: o.Model, Replayed: o.Replayed,
		Conversation: o.Conversation.ID, RequestN: o.Conversation.N, Interrupted: o.Conversation.Interrupted}
	if o.Session != nil {
		sess.ID, sess.Dir = o.Session.ID, o.Session.Dir
	}
	o.Events.Emit(sess)
	pc := LoadContext(o.Root, request, o.TestCommand, o.UserRules)
	if len(pc.Images) > 0 && !llm.TakesImages(o.Provider, o.Model) {
		for _, im := range pc.Images {
			pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: the model %s (%s) takes no pictures; describe what it shows, or use a model that does", im.Path, o.Model, o.Provider))
		}
		pc.Images = nil
	}
	for _, p := range pc.Problems {
		o.Events.Emit(event.Error{Message: "not attached: " + p})
	}
	cls := Classify(request)
	o.Events.Emit(event.Phase{Name: "classify", Detail: cls.Reason})

	// A simple request goes straight to the Executor with a plan of its
	// named file, unless that file cannot be used; then it is planned.
	var p *plan.Plan
	revision := 0
	if !cls.Complex {
		p = o.directPlan(request, cls.Files)
		if err := p.Check(o.Root); err != nil {
			o.Events.Emit(event.Phase{Name: "classify", Detail: fmt.Sprintf("planning after all: %v", err)})
			p = nil
		} else {
			o.showPlan(event.Plan{Plan: p})
			o.warmPlan(ctx, p)
		}
	}
	if p == nil {
		var ok bool
		var err error
		req := PlanRequest{Request: request, Context: o.context(pc), Images: pc.Blocks()}
		if p, revision, ok, err = o.planAndApprove(ctx, req, 0, nil); err != nil || !ok {
			return o.stopped(request, p, err)
		}
	} else if o.PlanOnly {
		return o.stopped(request, p, nil)
	}

	exec := *o.Executor
	exec.Images = pc.Blocks()
	var res *ExecResult
	for replans := 0; ; replans++ {
		o.Events.Emit(event.Phase{Name: "execute", Detail: fmt.Sprintf("%d steps, %d files", len(p.Steps), len(p.Files()))})
		todo := NewTodo(p.Steps, o.Events)
		todo.Start()
		exec.Progress = todo
		var err error
		if res, err = exec.Execute(ctx, p, request, o.context(pc), res); err != nil {
			return event.Done{}, err
		}
		outside := res.Outside()
		if res.Outcome != Replan && (res.Outcome != Failed || len(outside) == 0) {
			break
		}
		// The change breaks files the Executor may not edit: retrying
		// cannot help, a wider plan can.
		if replans >= o.MaxReplans {
			return o.replanBound(request, p, res, outside), nil
		}
		widened, rev, ok, err := o.replan(ctx, request, pc, p, res, outside, revision+1)
		if err != nil {
			return event.Done{}, err
		}
		if !ok {
			return o.declinedWidening(request, res, outside), nil
		}
		p, revision = widened, rev
	}
	return o.report(request, p, res), nil
}

// context is what the agents are told besides the request: the project's
// rules and attachments, and the session's earlier requests.
func (o *Orchestrator) context(pc ProjectContext) string {
	if o.Conversation.History == "" {
		return pc.Format()
	}
	return o.Conversation.History + "\n" + pc.Format()
}

// planAndApprove runs the Planner and the approval gate until the user
// says yes or no, from the given revision number. why, when set, says
// what a revision adds and why (a re-plan). ok is false when the run
// should stop without writing.
func (o *Orchestrator) planAndApprove(ctx context.Context, req PlanRequest, revision int, why func(*plan.Plan) event.Plan) (*plan.Plan, int, bool, error) {
	approved := req.Previous
	for n := 0; n <= maxRevisions; n, revision = n+1, revision+1 {
		o.Events.Emit(event.Phase{Name: "plan", Detail: planDetail(revision)})
		p, err := o.Planner.Plan(ctx, req)
		if err != nil {
			return nil, revision, false, err
		}
		ev := event.Plan{Plan: p}
		if why != nil {
			ev = why(p)
		}
		ev.Revision = revision
		o.showPlan(ev)
		if o.PlanOnly {
			return p, revision, false, nil
		}
		o.warmPlan(ctx, p)
		d, err := o.approve(ctx, p, revision)
		if err != nil {
			return p, revision, false, err
		}
		switch d.Kind {
		case DecisionYes:
			return p, revision, true, nil
		case DecisionRevise:
			if req.Breakage != "" {
				// The plan the Executor carried out stays the previous one;
				// the rejected revision goes with the feedback.
				req.Previous = approved
				req.Feedback = fmt.Sprintf("You proposed:\n\n%s\nThe user answered: %s", p.Markdown(), d.Feedback)
			} else {
				req.Previous, req.Feedback = p, d.Feedback
			}
		default:
			return p, revision, false, nil
		}
	}
	return nil, revision, false, fmt.Errorf("stopped after %d revisions without approval", maxRevisions)
}

// warmPlan has the servers answer for the plan's files as they are on
// disk while its user reads it (and the Executor's model reads the files):
// the first check of the change then asks about the change alone, and a
// cold server starts meanwhile. Nothing waits for it but the end of the
// run, which cancels it.
func (o *Orchestrator) warmPlan(ctx context.Context, p *plan.Plan) {
	if o.Executor == nil || o.Executor.Service == nil || len(p.FilesToModify) == 0 {
		return
	}
	files := slices.Clone(p.FilesToModify)
	o.warming.Add(1)
	go func() {
		defer o.warming.Done()
		_ = o.Executor.Service.Warm(ctx, files)
	}()
}

// replan asks the Planner for a plan that includes the files outside p
// that res breaks, and the user to approve it.
func (o *Orchestrator) replan(ctx context.Context, request string, pc ProjectContext, p *plan.Plan, res *ExecResult, outside []outsideFile, revision int) (*plan.Plan, int, bool, error) {
	o.Events.Emit(event.Phase{Name: "replan", Detail: breakageLine(res, outside)})
	req := PlanRequest{Request: request, Context: o.context(pc), Previous: p, Breakage: breakage(res, outside)}
	why := func(np *plan.Plan) event.Plan {
		ev := event.Plan{Plan: np, Reason: breakageLine(res, outside)}
		was := map[string]bool{}
		for _, f := range p.Files() {
			was[f] = true
		}
		for _, f := range np.Files() {
			if was[f] {
				continue
			}
			w := event.Widened{Path: f, Why: "added by the Planner"}
			for _, of := range outside {
				if of.Path == f {
					w.Why = strings.TrimPrefix(of.summary(), f+": ")
				}
			}
			ev.Widened = append(ev.Widened, w)
		}
		return ev
	}
	return o.planAndApprove(ctx, req, revision, why)
}

// breakageLine is the one-line reason for a re-plan.
func breakageLine(res *ExecResult, outside []outsideFile) string {
	if len(outside) == 0 {
		return "the Executor asked to widen the plan: " + res.Reason
	}
	var parts []string
	for _, f := range outside {
		parts = append(parts, fmt.Sprintf("%s (%d new %s)", f.Path, len(f.Diags), plural(len(f.Diags), "error", "errors")))
	}
	return "the change breaks files outside the plan: " + strings.Join(parts, ", ")
}

// breakage tells the Planner what broke and what is staged.
func breakage(res *ExecResult, outside []outsideFile) string {
	var b strings.Builder
	if res.Outcome == Replan {
		fmt.Fprintf(&b, "The Executor says: %s\n\n", res.Reason)
	}
	if len(outside) > 0 {
		b.WriteString("New errors in files outside the plan:\n")
		for _, f := range outside {
			for _, d := range f.Diags {
				fmt.Fprintf(&b, "  %s\n", d)
				if d.LineText != "" {
					fmt.Fprintf(&b, "      %d | %s\n", d.Line, d.LineText)
				}
			}
		}
		b.WriteString("\n")
	}
	diff := res.StagedDiff()
	const maxDiff = 16 << 10
	if len(diff) > maxDiff {
		diff = diff[:maxDiff] + "\n[diff cut at 16 KiB]\n"
	}
	fmt.Fprintf(&b, "The staged change set (%s), not written:\n\n%s", strings.Join(res.Staged(), ", "), diff)
	return b.String()
}

// replanBound reports a run that needed a wider plan than it may ask for.
func (o *Orchestrator) replanBound(request string, p *plan.Plan, res *ExecResult, outside []outsideFile) event.Done {
	s := event.Summary{Request: request, Attempts: res.Attempts, VerificationCriteria: p.VerificationCriteria, FilesChanged: []string{}}
	files := append(p.Files(), outsidePaths(outside)...)
	s.Message = fmt.Sprintf("Nothing was written: %s, and the request may be re-planned at most %d %s (max_replans). A plan that could work would include: %s.",
		breakageLine(res, outside), o.MaxReplans, plural(o.MaxReplans, "time", "times"), strings.Join(files, ", "))
	for _, f := range outside {
		for _, d := range f.Diags {
			s.Diagnostics = append(s.Diagnostics, d.String())
		}
	}
	return event.Done{Success: false, Summary: s}
}

// declinedWidening reports a run whose widened plan the user declined.
func (o *Orchestrator) declinedWidening(request string, res *ExecResult, outside []outsideFile) event.Done {
	s := event.Summary{Request: request, Attempts: res.Attempts, FilesChanged: []string{}}
	s.Message = "Declined: the widened plan was not approved, and nothing was written (" + breakageLine(res, outside) + ")."
	for _, f := range outside {
		for _, d := range f.Diags {
			s.Diagnostics = append(s.Diagnostics, d.String())
		}
	}
	return event.Done{Success: false, Summary: s}
}

// approve asks the user about p until the answer is one the run can act
// on: a replayed model holds no revision for feedback it cannot read, so
// asking it to revise says why not and asks again.
func (o *Orchestrator) approve(ctx context.Context, p *plan.Plan, revision int) (Decision, error) {
	for {
		o.Events.Emit(event.Phase{Name: "approve"})
		d, err := o.Approver.Approve(ctx, p, revision)
		if err != nil {
			return d, err
		}
		o.Events.Emit(event.Approval{Decision: d.Kind, Feedback: d.Feedback, Auto: d.Auto})
		if d.Kind != DecisionRevise {
			return d, nil
		}
		if s, ok := o.Planner.Loop.Provider.(servesAgent); ok && !s.Serves("planner") {
			o.Events.Emit(event.Error{Message: "revising needs a model: the replayed script holds no (further) revision of this plan; answer y or n, or run with a model"})
			continue
		}
		return d, nil
	}
}

// servesAgent is a provider that can tell whether it has a turn for an
// agent (the replay provider).
type servesAgent interface{ Serves(agent string) bool }

// showPlan saves the plan as the session's plan.json and emits it.
func (o *Orchestrator) showPlan(ev event.Plan) {
	if o.Session != nil {
		_ = ev.Plan.Save(o.Session.Path(session.PlanFile))
	}
	o.Events.Emit(ev)
}

func planDetail(revision int) string {
	if revision == 0 {
		return "exploring the code read-only"
	}
	return fmt.Sprintf("revising (revision %d)", revision)
}

// directPlan is the plan of a simple request: its one named file and the
// request as the only step.
func (o *Orchestrator) directPlan(request string, files []string) *plan.Plan {
	p := &plan.Plan{Goal: request, Context: "A simple request naming its file; no planning pass.", Steps: []string{request},
		VerificationCriteria: []string{"no new errors in the changed file or its dependants"}}
	for _, f := range files {
		if rp, err := o.Root.Resolve(f); err == nil {
			if _, err := os.Stat(rp.Abs); err == nil {
				p.FilesToModify = append(p.FilesToModify, f)
				continue
			}
		}
		p.FilesToCreate = append(p.FilesToCreate, f)
	}
	return p
}

// stopped reports a run that ended before execution: declined, plan only,
// or failed while planning.
func (o *Orchestrator) stopped(request string, p *plan.Plan, err error) (event.Done, error) {
	if err != nil {
		return event.Done{}, err
	}
	s := event.Summary{Request: request, FilesChanged: []string{}}
	switch {
	case o.PlanOnly:
		s.Message = "Plan only: nothing was written."
		if p != nil {
			s.VerificationCriteria = p.VerificationCriteria
		}
		return event.Done{Success: true, Summary: s}, nil
	default:
		s.Message = "Declined: the plan was not approved, and nothing was written."
		return event.Done{Success: false, Summary: s}, nil
	}
}

// report turns an execution into the run's summary.
func (o *Orchestrator) report(request string, p *plan.Plan, res *ExecResult) event.Done {
	s := event.Summary{Request: request, Attempts: res.Attempts, VerificationCriteria: p.VerificationCriteria, FilesChanged: []string{}}
	if res.Last != nil {
		for _, d := range res.Last.Preexisting {
			s.Preexisting = append(s.Preexisting, d.String())
		}
	}
	switch res.Outcome {
	case Committed:
		s.FilesChanged = res.Files
		s.Message = fmt.Sprintf("Committed %d files after %d %s.", len(s.FilesChanged), res.Attempts, plural(res.Attempts, "attempt", "attempts"))
		if !o.Throwaway { // no undo to offer in a directory about to go
			s.Undo = "anvil undo"
			if wd, err := os.Getwd(); err != nil || !sameDir(wd, o.Root.Dir()) {
				s.Undo += " -C " + o.Root.Dir()
			}
		}
		return event.Done{Success: true, Summary: s}
	default:
		s.Message = fmt.Sprintf("Nothing was written: %s.", res.Reason)
		if res.Last != nil {
			for _, d := range res.Last.New {
				s.Diagnostics = append(s.Diagnostics, d.String())
			}
			for _, u := range res.Last.Unverified {
				s.Diagnostics = append(s.Diagnostics, u.Path+": "+u.Reason)
			}
		}
		return event.Done{Success: false, Summary: s}
	}
}

// ErrDeclined is what a non-interactive approver returns when it may not
// approve.
var ErrDeclined = errors.New("the plan needs approval: run in a terminal, or pass --yes")

// sameDir reports whether two paths name the same directory.
func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
