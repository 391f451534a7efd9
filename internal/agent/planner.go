package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/tools"
	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed prompts/planner.md
var plannerPrompt string

// PlannerToolNames are the read-only tools the Planner may call, besides
// submit_plan. Write tools are left out of its definitions, and the loop
// refuses any name outside its set at dispatch.
func PlannerToolNames() []string {
	return []string{"read_file", "list_files", "text_search", "find_symbol", "ast_search"}
}

// ErrNoPlan is returned when the Planner ends without submitting a plan.
var ErrNoPlan = errors.New("the planner finished without submitting a plan")

// Planner explores with read-only tools and submits a plan.
type Planner struct {
	Root *workspace.Root
	// Loop is the planner's loop, its Tools the read-only set; Plan adds
	// submit_plan and the stop rule.
	Loop Loop
}

// PlanRequest is what the Planner is asked.
type PlanRequest struct {
	Request string
	// Context is project rules and attached files, already formatted.
	Context string
	// Previous and Feedback are set when the user asked for a revision.
	Previous *plan.Plan
	Feedback string
	// Breakage is set when the approved Previous was carried out and the
	// change breaks files outside it: what broke, and the staged changes.
	Breakage string
	// Images are the pictures the request attaches.
	Images []llm.Block
}

// Plan runs the Planner and returns its checked plan.
func (p *Planner) Plan(ctx context.Context, req PlanRequest) (*plan.Plan, error) {
	submit := &submitPlan{root: p.Root}
	loop := p.Loop
	loop.Agent = "planner"
	loop.System = systemPrompt(plannerPrompt, req.Context)
	loop.Tools = tools.NewSet(append(loop.Tools.Tools(), tools.Adapt[plan.Plan](submit))...)
	loop.Stop = func(name string, res tools.Result) bool { return name == submit.Name() && !res.IsError }

	msgs := []llm.Message{{Role: llm.User, Content: append([]llm.Block{llm.Text(planPrompt(req))}, req.Images...)}}
	msgs, outcome, err := loop.Run(ctx, msgs)
	if err != nil {
		return nil, err
	}
	if outcome == EndTurn && submit.plan == nil {
		// Models sometimes describe the plan in prose; ask once for the tool.
		msgs = append(msgs, llm.Message{Role: llm.User, Content: []llm.Block{llm.Text("Call submit_plan now with the plan; nothing is done until it is submitted.")}})
		if _, _, err := loop.Run(ctx, msgs); err != nil {
			return nil, err
		}
	}
	if submit.plan == nil {
		return nil, ErrNoPlan
	}
	return submit.plan, nil
}

func planPrompt(req PlanRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Request: %s\n", req.Request)
	switch {
	case req.Previous != nil && req.Breakage != "":
		fmt.Fprintf(&b, "\nThe user approved this plan of yours:\n\n%s\nThe Executor carried it out in the shadow workspace, and the change breaks files outside the plan, which the Executor may not edit:\n\n%s\n"+
			"Revise the plan so that it includes every file that must change with it (in files_to_modify, with steps for them), and say why in the context. Keep what the plan already does; explore where you need to, then submit the revised plan.\n",
			req.Previous.Markdown(), req.Breakage)
		if req.Feedback != "" {
			fmt.Fprintf(&b, "\nThe user's feedback on the revision you proposed last:\n%s\n", req.Feedback)
		}
	case req.Previous != nil:
		fmt.Fprintf(&b, "\nYou proposed this plan before:\n\n%s\nThe user asked for a revision:\n%s\n\nExplore again where the feedback needs it, then submit the revised plan.\n", req.Previous.Markdown(), req.Feedback)
	}
	return b.String()
}

// systemPrompt appends project context to an agent's instructions.
func systemPrompt(base, context string) string {
	if strings.TrimSpace(context) == "" {
		return base
	}
	return base + "\n\n" + context
}

// submitPlan is the Planner's last tool: it checks the plan against the
// workspace and keeps it.
type submitPlan struct {
	root *workspace.Root
	plan *plan.Plan
}

func (t *submitPlan) Name() string { return "submit_plan" }
func (t *submitPlan) Description() string {
	return "Submit the finished plan for the user's approval. All seven fields are required; paths are relative to the workspace root. Problems with the plan (missing files, new files that already exist) come back as an error to fix."
}

func (t *submitPlan) Run(_ context.Context, p plan.Plan) (tools.Result, error) {
	if err := p.Check(t.root); err != nil {
		return tools.Errorf("the plan has problems; fix them and submit again:\n%v", err), nil
	}
	t.plan = &p
	return tools.Result{Output: "plan submitted for the user's approval", Data: p}, nil
}
