package conversation

import (
	"context"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
)

// What a session's built-in commands (/compact, /diff, /plan, /undo) read
// and write; the CLI and the TUI both run them through these.

// Builtin is a command every session has.
type Builtin struct{ Name, Description string }

// Builtins are the session's own commands; a project's .anvil/commands
// add more (internal/slash).
var Builtins = []Builtin{
	{"help", "list the commands"},
	{"diff", "what this session changed, as a diff"},
	{"plan", "the plan of the last request"},
	{"undo", "undo the session's last commit"},
	{"compact", "summarize the session's earlier requests (their plans kept verbatim) so follow-ups take less context"},
	{"clear", "start a new session in this workspace"},
	{"resume", "list this workspace's sessions, or continue one: /resume ID"},
	{"model", "show the model, or use another for the next requests: /model NAME"},
	{"memory", "the rules files that apply (AGENTS.md, .anvil/rules.md, yours)"},
}

// IsBuiltin reports whether name is a session command.
func IsBuiltin(name string) bool {
	for _, b := range Builtins {
		if b.Name == name {
			return true
		}
	}
	return false
}

// sessionSummaryPrompt asks for a session's summary.
const sessionSummaryPrompt = `You are compressing the history of a user's session with a coding agent, so that later requests can refer to it in less space. Summarize each request: what the user wanted, what was changed (files, symbols, the gist of the diff), and how it ended (committed, declined, failed, interrupted). Keep exact file paths and names. Answer with the summary only.`

// Compact has the model summarize the session's requests so far; the
// summary replaces them in [Session.History], their plans kept verbatim.
// window is the model's context window in tokens: what the model is sent
// to summarize takes at most half of it.
func (s *Session) Compact(ctx context.Context, p llm.Provider, model string, window int) (string, error) {
	return s.compact(ctx, p, model, window, s.Requests())
}

// HistoryFor is [Session.History] for a model with a context window of
// window tokens ([HistoryBudget]). When that would leave the oldest
// requests out, the model first folds them into the session's summary (as
// /compact does, up to the last request left out), so a session continued
// for weeks keeps them as a summary rather than losing them; compacted
// says so. A failed summary leaves the session as it was and the history
// bounded, and is returned with it: the request goes on.
func (s *Session) HistoryFor(ctx context.Context, p llm.Provider, model string, window int) (history string, compacted bool, err error) {
	history, last := s.history(HistoryBudget(window))
	if last == 0 || p == nil {
		return history, false, nil
	}
	if _, err := s.compact(ctx, p, model, window, last); err != nil {
		return history, false, err
	}
	return s.History(HistoryBudget(window)), true, nil
}

// compact records a summary of the session's requests up to through.
func (s *Session) compact(ctx context.Context, p llm.Provider, model string, window, through int) (string, error) {
	history := s.History(window * 2)
	n := through
	if history == "" || n == 0 {
		return "", fmt.Errorf("nothing to compact: the session has no requests yet")
	}
	if n < s.Requests() {
		history = fmt.Sprintf("Summarize requests 1 to %d only (and any earlier summary); the later ones are kept as they are.\n\n%s", n, history)
	}
	resp, err := p.Stream(ctx, llm.Request{Agent: "compact", Model: model, System: sessionSummaryPrompt, MaxTokens: 4096,
		Messages: []llm.Message{{Role: llm.User, Content: []llm.Block{llm.Text(history)}}}}, func(llm.Delta) {})
	if err != nil {
		return "", fmt.Errorf("summarizing the session: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.TextContent())
	if summary == "" {
		return "", fmt.Errorf("the model returned an empty summary; the session is unchanged")
	}
	if err := s.Append(Record{Kind: KindCompaction, N: n, Text: summary}); err != nil {
		return "", err
	}
	return summary, nil
}

// Diff is what the session committed, oldest first, as recorded; a
// commit undone since says so.
func (s *Session) Diff() string {
	recs := s.Records()
	undone := undoneEntries(recs)
	var b strings.Builder
	for _, r := range recs {
		if r.Kind != KindCommit {
			continue
		}
		note := ""
		if undone[r.Entry] {
			note = " (undone since)"
		}
		fmt.Fprintf(&b, "# request %d, journal entry %s%s\n%s\n", r.N, r.Entry, note, r.Diff)
	}
	return b.String()
}

// undoneEntries are the journal entries of the session's commits undone
// since (/undo).
func undoneEntries(recs []Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		if r.Kind == KindUndo {
			out[r.Entry] = true
		}
	}
	return out
}

// LastPlan is the plan of the latest request that had one.
func (s *Session) LastPlan() *plan.Plan {
	var p *plan.Plan
	for _, r := range s.Records() {
		if r.Kind == KindPlan {
			p = r.Plan
		}
	}
	return p
}

// LastCommit is the session's latest commit record not undone since, if
// any: what /undo reverts.
func (s *Session) LastCommit() (Record, bool) {
	recs := s.Records()
	undone := undoneEntries(recs)
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Kind == KindCommit && !undone[recs[i].Entry] {
			return recs[i], true
		}
	}
	return Record{}, false
}
