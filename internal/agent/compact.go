package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
)

// A long run outgrows the model's context window: 40 turns of results of
// up to 30,000 characters is several windows. The loop keeps the
// conversation inside it. Past compactAt of the window, and when the
// provider refuses a request as too long, it compacts:
//
//  1. the oldest tool results (all but the last keepTail messages') are
//     cut to their first line, and large tool inputs (a write_file's
//     content) to their shape;
//  2. if that is not enough, the messages between the task and the tail
//     are summarized by the model, and the summary replaces them.
//
// The first message (the request and, for the Executor, the approved
// plan) is never touched, and what the agent pins (the staged change set,
// the todo list, the latest diagnostics) is re-stated verbatim after the
// summary, never summarized.

const (
	// compactAt is the share of the window a request may take before
	// the loop compacts.
	compactAt = 0.75
	// compactTo is the share it aims to get under.
	compactTo = 0.5
	// keepTail messages at the end are never shrunk or summarized: the
	// model's latest exchange, whose results it is acting on.
	keepTail = 4
	// shrunkLen is what is left of a shrunk result.
	shrunkLen = 160
	// droppedNote ends a shrunk result (and marks it as shrunk).
	droppedNote = "dropped to fit the context window; call the tool again if you need them]"
)

// budget tracks a loop's use of the context window, calibrating the
// byte-count estimate with the tokens the provider reports.
type budget struct {
	window int
	// ratio corrects llm.EstimateTokens: reported input tokens per
	// estimated token, from the last call.
	ratio float64
}

func newBudget(window int) *budget { return &budget{window: window, ratio: 1} }

func (b *budget) tokens(req llm.Request) int {
	return int(float64(llm.EstimateTokens(req)) * b.ratio)
}

// observe calibrates with a call's reported usage.
func (b *budget) observe(req llm.Request, u llm.Usage) {
	in := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	if est := llm.EstimateTokens(req); in > 0 && est > 0 {
		b.ratio = float64(in) / float64(est)
	}
}

func (b *budget) over(req llm.Request) bool {
	return float64(b.tokens(req)) > compactAt*float64(b.window)
}

// compact makes msgs smaller, as described above; why is the event's
// reason. force summarizes even when shrinking seems enough (the provider
// refused the request: the estimate was wrong).
func (l *Loop) compact(ctx context.Context, req llm.Request, b *budget, why string, force bool) ([]llm.Message, error) {
	before := b.tokens(req)
	msgs, shrunk := shrinkOld(req.Messages)
	req.Messages = msgs
	summarized := 0
	if force || float64(b.tokens(req)) > compactTo*float64(b.window) {
		var err error
		msgs, summarized, err = l.summarize(ctx, msgs, b)
		if err != nil {
			return nil, err
		}
		req.Messages = msgs
	}
	kept := []string{"the request"}
	if l.Agent == "executor" {
		kept = append(kept, "the approved plan")
	}
	if l.Pinned != nil && summarized > 0 {
		kept = append(kept, "the staged change set", "the todo list", "the latest diagnostics")
	}
	l.Events.Emit(event.Compaction{Agent: l.Agent, Why: why, TokensBefore: before, TokensAfter: b.tokens(req), Window: b.window,
		Shrunk: shrunk, Summarized: summarized, Kept: kept})
	return msgs, nil
}

// shrinkOld cuts the tool results and large tool inputs of every message
// but the first and the last keepTail, and returns how many it cut.
func shrinkOld(msgs []llm.Message) ([]llm.Message, int) {
	out := make([]llm.Message, len(msgs))
	copy(out, msgs)
	n := 0
	for i := 1; i < len(out)-keepTail; i++ {
		blocks := make([]llm.Block, len(out[i].Content))
		copy(blocks, out[i].Content)
		for j, bl := range blocks {
			switch {
			case bl.Type == llm.TypeToolResult && len(bl.Content) > shrunkLen && !strings.HasSuffix(bl.Content, droppedNote):
				first, _, _ := strings.Cut(bl.Content, "\n")
				if len(first) > shrunkLen {
					first = first[:shrunkLen]
				}
				blocks[j].Content = fmt.Sprintf("%s\n[%d characters of this result %s", first, len(bl.Content)-len(first), droppedNote)
				n++
			case bl.Type == llm.TypeToolUse && len(bl.Input) > 8*shrunkLen:
				blocks[j].Input = shrinkInput(bl.Input)
				n++
			case bl.Type == llm.TypeImage:
				blocks[j] = llm.Text("[an image, dropped to fit the context window]")
				n++
			}
		}
		out[i].Content = blocks
	}
	return out, n
}

// shrinkInput keeps a tool call's shape and short fields, cutting long
// strings (a file's new content).
func shrinkInput(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return json.RawMessage(`{}`)
	}
	for k, v := range m {
		if s, ok := v.(string); ok && len(s) > shrunkLen {
			m[k] = fmt.Sprintf("%s… [%d characters dropped]", s[:shrunkLen], len(s)-shrunkLen)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return out
}

// summaryPrompt asks for the summary of an agent's earlier work.
const summaryPrompt = `You are compressing the working history of a coding agent so it can continue within its context window. Summarize the history below for the agent itself: what it has learned about the code (files, symbols, line numbers that matter), what it has done and changed, what failed and why, and what it was about to do. Keep exact names, paths and error messages. Do not invent anything; say what is uncertain. Answer with the summary only.`

// summarize replaces the messages between the first and a tail that starts
// with an assistant message by the model's summary of them, folded into
// the first message with what the agent pins.
func (l *Loop) summarize(ctx context.Context, msgs []llm.Message, b *budget) ([]llm.Message, int, error) {
	cut := len(msgs) - keepTail
	for cut > 1 && msgs[cut].Role != llm.Assistant {
		cut--
	}
	if cut <= 1 {
		return msgs, 0, nil // nothing between the task and the tail
	}
	history := renderHistory(msgs[1:cut], b.window*2) // about half the window, in bytes/4
	resp, err := l.Provider.Stream(ctx, llm.Request{
		Agent: l.Agent, Model: l.Model, System: summaryPrompt, MaxTokens: DefaultMaxTokens,
		Messages: []llm.Message{{Role: llm.User, Content: []llm.Block{llm.Text(history)}}},
	}, func(llm.Delta) {})
	if err != nil {
		return nil, 0, fmt.Errorf("%s: summarizing its earlier work: %w", l.Agent, err)
	}
	l.Meter.Add(l.Agent, resp.Usage, l.Events)
	var first strings.Builder
	for _, bl := range msgs[0].Content {
		if bl.Type == llm.TypeText {
			first.WriteString(bl.Text)
		}
	}
	fmt.Fprintf(&first, "\n\n[Your earlier work in this task was summarized to fit the context window:]\n%s\n", strings.TrimSpace(resp.Message.TextContent()))
	if l.Pinned != nil {
		if pinned := strings.TrimSpace(l.Pinned()); pinned != "" {
			fmt.Fprintf(&first, "\n[The current state, exactly:]\n%s\n", pinned)
		}
	}
	head := llm.Message{Role: llm.User, Content: []llm.Block{llm.Text(first.String())}}
	for _, bl := range msgs[0].Content {
		if bl.Type == llm.TypeImage {
			head.Content = append(head.Content, bl)
		}
	}
	out := append([]llm.Message{head}, msgs[cut:]...)
	return out, cut - 1, nil
}

// renderHistory writes messages as text for the summarizer, keeping the
// last limit bytes when longer.
func renderHistory(msgs []llm.Message, limit int) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, bl := range m.Content {
			switch bl.Type {
			case llm.TypeText:
				fmt.Fprintf(&b, "[%s] %s\n", m.Role, bl.Text)
			case llm.TypeToolUse:
				fmt.Fprintf(&b, "[tool call %s] %s\n", bl.Name, bl.Input)
			case llm.TypeToolResult:
				fmt.Fprintf(&b, "[tool result] %s\n", bl.Content)
			}
		}
	}
	s := b.String()
	if len(s) > limit {
		s = "[the oldest part is cut]\n" + s[len(s)-limit:]
	}
	return s
}
