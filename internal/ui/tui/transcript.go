package tui

import (
	"strings"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/ui"
)

// block is one entry of the transcript: a message, a tool call with the
// validation cycles it ran, the plan, a commit. render draws it at a width
// (spin is the spinner's current frame, which only the open tool call
// shows).
type block interface {
	render(width int, st *styles, spin string) string
}

// transcript is the scrolling history of the run, in the order events
// arrived. Blocks that change later (a tool call getting a validation
// cycle, a verdict or its result, streamed text getting whole) are updated
// in place. Renders are cached per block and dropped when the block
// changes or the width does, so a spinner frame redraws only the open
// call; the whole is joined again only when a block changed, so a key
// press or a scroll redraws nothing.
type transcript struct {
	st     *styles
	blocks []block
	cache  []string // cache[i] is blocks[i] rendered at width; "" when stale
	width  int
	spin   string
	starts []int  // the line where each block starts, from the latest Render
	view   string // the latest Render
	stale  bool   // a block changed since the latest Render

	// open is the tool call still waiting for its result, if any. The
	// loop runs a turn's calls one after another, so there is at most one,
	// and the validation cycles the staging emits belong to it.
	open     *toolBlock
	streams  map[string]*textBlock // text still streaming, by agent
	lastPlan *planBlock
}

func newTranscript(st *styles) transcript {
	return transcript{st: st, streams: map[string]*textBlock{}}
}

// add appends b.
func (t *transcript) add(b block) {
	t.blocks = append(t.blocks, b)
	t.cache = append(t.cache, "")
	t.stale = true
}

// changed drops the cached render of b. Blocks change near the end, so
// the search starts there.
func (t *transcript) changed(b block) {
	for i := len(t.blocks) - 1; i >= 0; i-- {
		if t.blocks[i] == b {
			t.cache[i] = ""
			t.stale = true
			return
		}
	}
}

// setSpin sets the spinner frame and reports whether a block shows it:
// the open tool call, the only block that runs.
func (t *transcript) setSpin(frame string) bool {
	t.spin = frame
	if t.open == nil {
		return false
	}
	t.stale = true
	return true
}

// Render draws the whole transcript at width and reports whether it
// changed since the previous Render.
func (t *transcript) Render(width int) (string, bool) {
	if width != t.width {
		t.width = width
		clear(t.cache)
		t.stale = true
	}
	if !t.stale {
		return t.view, false
	}
	parts := make([]string, len(t.blocks))
	t.starts = t.starts[:0]
	line := 0
	for i, b := range t.blocks {
		switch {
		case b == t.open:
			parts[i] = b.render(width, t.st, t.spin)
		case t.cache[i] == "":
			t.cache[i] = b.render(width, t.st, t.spin)
			fallthrough
		default:
			parts[i] = t.cache[i]
		}
		t.starts = append(t.starts, line)
		line += strings.Count(parts[i], "\n") + 1
	}
	t.view, t.stale = strings.Join(parts, "\n"), false
	return t.view, true
}

// lineOf returns the line where b starts in the latest Render, or -1.
func (t *transcript) lineOf(b block) int {
	for i := len(t.blocks) - 1; i >= 0; i-- {
		if t.blocks[i] == b && i < len(t.starts) {
			return t.starts[i]
		}
	}
	return -1
}

// delta appends streamed text to the agent's current message.
func (t *transcript) delta(e event.MessageDelta) {
	b := t.streams[e.Agent]
	if b == nil {
		b = &textBlock{agent: e.Agent, streaming: true}
		t.streams[e.Agent] = b
		t.add(b)
	}
	b.text += e.Text
	t.changed(b)
}

// retry drops what the agent streamed of a turn that broke off: the turn
// is made again and streams anew.
func (t *transcript) retry(e event.Retry) {
	b := t.streams[e.Agent]
	delete(t.streams, e.Agent)
	for i := len(t.blocks) - 1; i >= 0 && b != nil; i-- {
		if t.blocks[i] == b {
			t.blocks = append(t.blocks[:i], t.blocks[i+1:]...)
			t.cache = append(t.cache[:i], t.cache[i+1:]...)
			t.stale = true
			break
		}
	}
	t.note(e.Agent+": the model's answer broke off; asking again", t.st.Warn.Render)
}

// message replaces the agent's streamed text by the whole message.
func (t *transcript) message(e event.Message) {
	b := t.streams[e.Agent]
	delete(t.streams, e.Agent)
	if b == nil {
		if strings.TrimSpace(e.Text) == "" {
			return
		}
		b = &textBlock{agent: e.Agent}
		t.add(b)
	}
	b.text, b.streaming = e.Text, false
	t.changed(b)
}

func (t *transcript) toolCall(e event.ToolCall) {
	b := &toolBlock{call: e}
	t.open = b
	t.add(b)
}

func (t *transcript) toolResult(e event.ToolResult) {
	b := t.open
	if b != nil && b.call.ID == e.ID {
		t.open = nil
	} else {
		// A result without its call: show it on its own rather than lose it.
		b = &toolBlock{call: event.ToolCall{Agent: e.Agent, ID: e.ID, Name: e.Name}}
		t.add(b)
	}
	b.result = &e
	t.changed(b)
}

// shadow adds a validation cycle to the open call, whose staging or
// commit runs it, or gives the call's running cycle its verdict.
func (t *transcript) shadow(e event.Shadow) {
	b := t.open
	if b == nil {
		// Not inside a tool call, which the staging never does: show the
		// line rather than lose it.
		t.note(ui.ShadowLine(e), t.st.Faint.Render)
		return
	}
	if c := b.running(); c != nil && e.Stage != "validating" {
		c.ev = e
	} else {
		b.checks = append(b.checks, &shadowCheck{ev: e})
	}
	t.changed(b)
}

// commit marks the validation that let the change set through, the last
// cycle of the commit call, and shows the diff.
func (t *transcript) commit(e event.Commit) {
	if b := t.open; b != nil && len(b.checks) > 0 {
		if c := b.checks[len(b.checks)-1]; c.ev.Commit && c.ev.Verdict == "clean" {
			c.committed = true
			t.changed(b)
		}
	}
	t.add(&commitBlock{ev: e})
}

func (t *transcript) plan(e event.Plan) {
	b := &planBlock{ev: e}
	t.lastPlan = b
	t.add(b)
}

// note appends a line of text drawn with style.
func (t *transcript) note(text string, style func(...string) string) {
	t.add(&noteBlock{text: text, style: style})
}

// stop marks every unfinished block as cut short: the run has ended, so
// no result or verdict will come and no spinner should keep turning.
func (t *transcript) stop() {
	if b := t.open; b != nil {
		b.cut = true
		t.changed(b)
		t.open = nil
	}
	for _, b := range t.streams {
		b.streaming = false
		t.changed(b)
	}
	clear(t.streams)
}
