// Package agent runs the model: a tool-use loop shared by every agent, the
// read-only Planner, the Executor that edits through the shadow workspace,
// and the Orchestrator that classifies requests, owns the todo list, runs
// the approval gate and reports.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/tools"
)

// Defaults of a Loop.
const (
	// DefaultMaxTurns bounds a runaway loop; the context window no longer
	// bounds a run (the loop compacts), its commit attempts and cost do.
	DefaultMaxTurns       = 250
	DefaultMaxResultChars = 30_000
	DefaultMaxTokens      = 8192
	// maxTooLong bounds the compactions one call may need when the
	// provider keeps refusing it as too long.
	maxTooLong = 2
)

// ErrMaxTurns is returned when an agent is still calling tools after its
// turn budget.
var ErrMaxTurns = errors.New("the agent used all its turns without finishing")

// Loop is the tool-use loop: it sends the conversation and the agent's
// tools to the model, dispatches the tool calls it gets back, and repeats
// until the model ends its turn or Stop says the agent is done.
//
// Tools are dispatched only within Tools: a call to any other name is
// answered with a tool error, so an agent's restrictions hold at dispatch
// as well as in the definitions the model is shown.
type Loop struct {
	Agent    string // "planner" or "executor"
	Provider llm.Provider
	Model    string
	System   string
	Tools    *tools.Set
	Events   event.Sink
	Meter    *Meter
	// Transcript, if set, receives every message.
	Transcript *Transcript
	MaxTurns   int
	// MaxResultChars caps a tool result sent to the model.
	MaxResultChars int
	// Stop is asked after each tool call whether the agent is done (a plan
	// submitted, a commit made or refused for the last time).
	Stop func(name string, res tools.Result) bool
	// TurnEnd, if set, runs once a turn's tool calls are done (the
	// Executor validates what the turn staged, once); what it returns is
	// added to the turn's last tool result.
	TurnEnd func(ctx context.Context) (string, error)
	// ContextWindow is the model's, in tokens; zero means as known for
	// the model (llm.ContextWindow).
	ContextWindow int
	// Pinned, if set, states what must survive a compaction verbatim
	// (the Executor's staged change set, todo list, latest diagnostics).
	Pinned func() string
	// Rules, if set, adds a subdirectory's rules files to the first
	// result of a tool that reads or edits a file under it.
	Rules *DirRules
}

// Outcome says how a Loop ended.
type Outcome string

const (
	// EndTurn: the model stopped calling tools.
	EndTurn Outcome = "end_turn"
	// Stopped: Stop said the agent is done.
	Stopped Outcome = "stopped"
)

// Run continues the conversation msgs and returns it with everything
// added, and how it ended.
func (l *Loop) Run(ctx context.Context, msgs []llm.Message) ([]llm.Message, Outcome, error) {
	maxTurns := l.MaxTurns
	if maxTurns == 0 {
		maxTurns = DefaultMaxTurns
	}
	defs := l.toolDefs()
	b := newBudget(llm.ContextWindow(l.model(), l.ContextWindow))
	shown := map[string]bool{} // the rules files this run has shown
	for turn := 0; turn < maxTurns; turn++ {
		if err := ctx.Err(); err != nil {
			return msgs, "", err
		}
		req := llm.Request{Agent: l.Agent, Model: l.Model, System: l.System, Messages: msgs, Tools: defs, MaxTokens: DefaultMaxTokens}
		if b.over(req) {
			var err error
			if msgs, err = l.compact(ctx, req, b, "threshold", false); err != nil {
				return msgs, "", err
			}
			req.Messages = msgs
		}
		resp, err := l.Provider.Stream(ctx, req, l.onDelta)
		for tries := 0; errors.Is(err, llm.ErrContextTooLong) && tries < maxTooLong; tries++ {
			// The provider counts differently than the estimate: compact
			// harder and ask again, rather than fail the run.
			b.ratio *= 1.5
			if msgs, err = l.compact(ctx, req, b, "too_long", true); err != nil {
				return msgs, "", err
			}
			req.Messages = msgs
			resp, err = l.Provider.Stream(ctx, req, l.onDelta)
		}
		if err != nil {
			return msgs, "", fmt.Errorf("%s: %w", l.Agent, err)
		}
		b.observe(req, resp.Usage)
		l.Meter.Add(l.Agent, resp.Usage, l.Events)
		msgs = append(msgs, resp.Message)
		l.Transcript.Record(l.Agent, resp.Message)
		if text := strings.TrimSpace(resp.Message.TextContent()); text != "" {
			l.Events.Emit(event.Message{Agent: l.Agent, Text: text})
		}
		calls := resp.Message.ToolUses()
		if len(calls) == 0 {
			return msgs, EndTurn, nil
		}
		results, stop, err := l.dispatch(ctx, calls, shown)
		if err != nil {
			return msgs, "", err
		}
		if l.TurnEnd != nil && !stop {
			text, err := l.TurnEnd(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return msgs, "", ctx.Err()
				}
				text = "validating this turn's edits failed: " + err.Error()
			}
			if text != "" {
				last := &results[len(results)-1]
				last.Content = capResult(last.Content+"\n\n"+text, l.maxResultChars())
			}
		}
		reply := llm.Message{Role: llm.User, Content: results}
		msgs = append(msgs, reply)
		l.Transcript.Record(l.Agent, reply)
		if stop {
			return msgs, Stopped, nil
		}
	}
	return msgs, "", ErrMaxTurns
}

// onDelta shows a streaming reply's pieces.
func (l *Loop) onDelta(d llm.Delta) {
	switch d.Kind {
	case llm.DeltaText:
		l.Events.Emit(event.MessageDelta{Agent: l.Agent, Text: d.Text})
	case llm.DeltaRetry:
		l.Events.Emit(event.Retry{Agent: l.Agent})
	}
}

// model is the model the loop's calls use.
func (l *Loop) model() string {
	if l.Model != "" {
		return l.Model
	}
	return l.Provider.Model()
}

func (l *Loop) toolDefs() []llm.ToolDef {
	var defs []llm.ToolDef
	for _, t := range l.Tools.Tools() {
		defs = append(defs, llm.ToolDef{Name: t.Name(), Description: t.Description(), Schema: t.InputSchema()})
	}
	return defs
}

// dispatch runs the calls of one turn in order and returns their results.
func (l *Loop) dispatch(ctx context.Context, calls []llm.Block, shown map[string]bool) ([]llm.Block, bool, error) {
	var results []llm.Block
	for i, call := range calls {
		l.Events.Emit(event.ToolCall{Agent: l.Agent, ID: call.ID, Name: call.Name, Args: call.Input, Summary: summarizeArgs(call.Input)})
		var res tools.Result
		tool, ok := l.Tools.Get(call.Name)
		if !ok {
			res = tools.Errorf("tool %q is not available to the %s; its tools are: %s", call.Name, l.Agent, strings.Join(l.Tools.Names(), ", "))
		} else {
			var err error
			res, err = tool.Call(ctx, call.Input)
			if err != nil {
				if ctx.Err() != nil {
					return nil, false, ctx.Err()
				}
				// An infrastructure failure: tell the model, which may be
				// able to go another way, and keep the run alive.
				res = tools.Errorf("%s failed: %v", call.Name, err)
			}
		}
		out := capResult(res.Output, l.maxResultChars())
		if !res.IsError {
			out += l.Rules.note(call.Input, shown)
		}
		l.Events.Emit(event.ToolResult{Agent: l.Agent, ID: call.ID, Name: call.Name, IsError: res.IsError, Preview: preview(out, 6), Lines: strings.Count(out, "\n")})
		results = append(results, llm.ToolResult(call.ID, out, res.IsError))
		if l.Stop != nil && l.Stop(call.Name, res) {
			// The API wants a result for every call; later ones are not run.
			for _, rest := range calls[i+1:] {
				results = append(results, llm.ToolResult(rest.ID, "not run: the "+l.Agent+" has finished", true))
			}
			return results, true, nil
		}
	}
	return results, false, nil
}

func (l *Loop) maxResultChars() int {
	if l.MaxResultChars > 0 {
		return l.MaxResultChars
	}
	return DefaultMaxResultChars
}

// capResult cuts a tool result that would crowd the model's context,
// saying so.
func capResult(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], '\n')
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + fmt.Sprintf("\n[result cut at %d of %d characters; ask for less, e.g. a line range or a narrower search]\n", cut, len(s))
}

func preview(s string, lines int) string {
	parts := strings.SplitN(s, "\n", lines+1)
	if len(parts) > lines {
		parts = parts[:lines]
	}
	return strings.Join(parts, "\n")
}

// summarizeArgs renders tool arguments in a few words: key=value pairs,
// long values shortened.
func summarizeArgs(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return strings.TrimSpace(string(raw))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// The most telling keys first.
	rank := map[string]int{"path": 0, "name": 1, "pattern": 2, "kind": 3, "query": 4}
	sort.SliceStable(keys, func(i, j int) bool {
		ri, iok := rank[keys[i]]
		rj, jok := rank[keys[j]]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		v := fmt.Sprint(m[k])
		if s, ok := m[k].(string); ok {
			v = s
		}
		v = strings.ReplaceAll(v, "\n", "⏎")
		if len(v) > 40 {
			v = v[:37] + "…"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}
