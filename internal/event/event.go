// Package event defines what a run reports while it works: typed events
// that the agents and the shadow workspace emit and that renderers (the
// TUI, plain text, NDJSON) display. No agent writes to the terminal; they
// emit events, and the user's answers come back through the approval and
// cancellation paths, never through the event stream.
package event

import (
	"encoding/json"
	"sync"

	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Event is one thing that happened. Type names it in the JSON stream.
type Event interface{ Type() string }

// Sink receives events. Emit must return quickly; renderers that draw
// slowly buffer on their side.
type Sink interface{ Emit(Event) }

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// Discard is a Sink that drops every event.
type Discard struct{}

// Emit does nothing.
func (Discard) Emit(Event) {}

// Recorder keeps every event, for tests and transcripts.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Emit records e.
func (r *Recorder) Emit(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Events returns what was recorded so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Session starts a run.
type Session struct {
	ID        string `json:"id"`
	Dir       string `json:"dir"`
	Workspace string `json:"workspace"`
	Request   string `json:"request"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	// Replayed is set when the model's turns come from a script.
	Replayed bool `json:"replayed,omitempty"`
	// Conversation is the session the request belongs to (anvil
	// --continue, --resume), and RequestN its number there, from 1.
	Conversation string `json:"conversation,omitempty"`
	RequestN     int    `json:"request_n,omitempty"`
	// Interrupted names the session's previous request when it never
	// finished (the process was killed).
	Interrupted string `json:"interrupted,omitempty"`
}

// Phase is a step of the run: classify, plan, approve, execute, done.
type Phase struct {
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
}

// MessageDelta is a piece of an agent's streaming reply.
type MessageDelta struct {
	Agent string `json:"agent"`
	Text  string `json:"text"`
}

// Message is an agent's complete text for one turn.
type Message struct {
	Agent string `json:"agent"`
	Text  string `json:"text"`
}

// ToolCall is an agent calling a tool.
type ToolCall struct {
	Agent   string          `json:"agent"`
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args"`
	Summary string          `json:"summary"` // the arguments in a few words
}

// ToolResult is a tool's answer.
type ToolResult struct {
	Agent   string `json:"agent"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	IsError bool   `json:"is_error"`
	Preview string `json:"preview"` // the first lines
	Lines   int    `json:"lines"`
}

// Plan is a plan submitted for approval.
type Plan struct {
	Plan     *plan.Plan `json:"plan"`
	Revision int        `json:"revision"`
	// Reason is set on a plan revised because the change broke files
	// outside the approved plan: what broke.
	Reason string `json:"reason,omitempty"`
	// Widened are the files the revision added, each with why.
	Widened []Widened `json:"widened,omitempty"`
}

// Widened is a file a re-plan added to the plan.
type Widened struct {
	Path string `json:"path"`
	// Why: "2 new errors (first: 2304 at line 5: Cannot find name 'User'.)",
	// or that the Planner added it.
	Why string `json:"why"`
}

// Approval is the user's answer to a plan.
type Approval struct {
	Decision string `json:"decision"` // "yes", "no", "revise"
	Feedback string `json:"feedback,omitempty"`
	Auto     bool   `json:"auto,omitempty"` // approved by --yes
}

// Shadow is a validation cycle of the change set.
type Shadow struct {
	Attempt     int           `json:"attempt"`
	MaxAttempts int           `json:"max_attempts"`
	Files       []string      `json:"files"`
	Stage       string        `json:"stage"` // "validating", then "result"
	Verdict     string        `json:"verdict,omitempty"`
	New         []shadow.Diag `json:"new,omitempty"`
	Preexisting int           `json:"preexisting,omitempty"`
	Summary     string        `json:"summary,omitempty"`
	// Commit is true for a commit's validation, false for a staging check.
	Commit bool `json:"commit"`
	// Run is the run stage's report, when the change was also built and
	// tested in a shadow tree.
	Run *shadow.RunReport `json:"run,omitempty"`
}

// Commit is a change set written to disk.
type Commit struct {
	Entry string   `json:"entry"`
	Files []string `json:"files"`
	Diff  string   `json:"diff"` // unified diff of the change set
	// GitCommit and GitBranch are the git commit made of it (opt-in);
	// GitRefused says why none was.
	GitCommit  string `json:"git_commit,omitempty"`
	GitBranch  string `json:"git_branch,omitempty"`
	GitRefused string `json:"git_refused,omitempty"`
}

// TodoItem is one step of the plan and its state.
type TodoItem struct {
	Text   string `json:"text"`
	Status string `json:"status"` // "pending", "in_progress", "done"
	Note   string `json:"note,omitempty"`
}

// Todo is the todo list after a change.
type Todo struct {
	Items []TodoItem `json:"items"`
}

// Usage is the token count so far.
type Usage struct {
	Agent string    `json:"agent"`
	Turn  llm.Usage `json:"turn"`
	Total llm.Usage `json:"total"`
	// Cost is in US dollars; CostKnown is false for models without a price.
	Cost      float64 `json:"cost"`
	CostKnown bool    `json:"cost_known"`
}

// Summary is the account of a finished run.
type Summary struct {
	Request              string   `json:"request"`
	FilesChanged         []string `json:"files_changed"`
	Attempts             int      `json:"attempts"`
	Preexisting          []string `json:"preexisting"` // pre-existing errors left alone
	VerificationCriteria []string `json:"verification_criteria"`
	Message              string   `json:"message"`
	Diagnostics          []string `json:"diagnostics,omitempty"` // why it failed
	Undo                 string   `json:"undo,omitempty"`
}

// Done ends a run.
type Done struct {
	Success bool    `json:"success"`
	Summary Summary `json:"summary"`
}

// Retry says a model call broke off and is being made again; a renderer
// showing the agent's streaming text drops what it showed of this turn.
type Retry struct {
	Agent string `json:"agent"`
}

// Error is a failure the user should see.
type Error struct {
	Message string `json:"message"`
}

// Compaction says an agent's conversation was made smaller to fit the
// model's context window, and what was kept as it was.
type Compaction struct {
	Agent string `json:"agent"`
	// Why: "threshold" (past the share of the window the loop allows),
	// "too_long" (the provider refused the request), or "asked" (/compact).
	Why          string `json:"why"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Window       int    `json:"window"`
	// Shrunk counts old tool results cut to a line each; Summarized the
	// messages replaced by the model's summary of them.
	Shrunk     int `json:"shrunk"`
	Summarized int `json:"summarized"`
	// Kept names what was carried over verbatim (the request, the plan,
	// the staged change set, the todo list, the latest diagnostics).
	Kept []string `json:"kept"`
}

func (Session) Type() string      { return "session" }
func (Phase) Type() string        { return "phase" }
func (MessageDelta) Type() string { return "message_delta" }
func (Message) Type() string      { return "message" }
func (ToolCall) Type() string     { return "tool_call" }
func (ToolResult) Type() string   { return "tool_result" }
func (Plan) Type() string         { return "plan" }
func (Approval) Type() string     { return "approval" }
func (Shadow) Type() string       { return "shadow" }
func (Commit) Type() string       { return "commit" }
func (Todo) Type() string         { return "todo" }
func (Usage) Type() string        { return "usage" }
func (Done) Type() string         { return "done" }
func (Error) Type() string        { return "error" }
func (Retry) Type() string        { return "retry" }
func (Compaction) Type() string   { return "compaction" }
