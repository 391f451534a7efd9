package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/plan"
)

// askMsg opens the gate for a plan; the answer goes to reply, which has
// room for it so that answering never blocks the program.
type askMsg struct {
	plan     *plan.Plan
	revision int
	reply    chan<- agent.Decision
}

// askEndedMsg closes the gate of a request nobody waits for any more (its
// context ended).
type askEndedMsg struct{ reply chan<- agent.Decision }

// approver is the [agent.Approver] of the TUI. Approve runs on the
// orchestrator's goroutine: it queues a request for the gate behind the
// events already emitted (so the plan is on screen before the question)
// and blocks until a key press answers, ctx ends, or the program is gone.
type approver struct {
	fwd  *forwarder
	gone <-chan struct{} // closed when the program has ended
}

var _ agent.Approver = (*approver)(nil)

// Approve asks the user about p. Without an answer nothing is approved: a
// program that ends first yields [agent.ErrDeclined].
func (a *approver) Approve(ctx context.Context, p *plan.Plan, revision int) (agent.Decision, error) {
	reply := make(chan agent.Decision, 1)
	a.fwd.push(askMsg{plan: p, revision: revision, reply: reply})
	select {
	case d := <-reply:
		return d, nil
	case <-ctx.Done():
		a.fwd.push(askEndedMsg{reply: reply})
		return agent.Decision{}, ctx.Err()
	case <-a.gone:
		return agent.Decision{}, fmt.Errorf("%w: the terminal UI closed before the plan was answered", agent.ErrDeclined)
	}
}

// gate is the approval prompt under the transcript: y approves, n
// declines, r opens a text area for the feedback, where Enter sends it and
// Esc goes back to y / n / r.
type gate struct {
	st       *styles
	reply    chan<- agent.Decision // nil while no plan waits
	revision int
	editing  bool
	input    textarea.Model
	warning  string
}

func newGate(st *styles) gate {
	in := textarea.New()
	in.ShowLineNumbers = false
	in.Prompt = "> "
	in.Placeholder = "what should the Planner change?"
	in.SetHeight(2)
	// Enter sends the feedback; a newline needs alt+enter or ctrl+j.
	in.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ts := textarea.DefaultStyles(true)
	for _, s := range []*textarea.StyleState{&ts.Focused, &ts.Blurred} {
		s.CursorLine = s.Text
		s.EndOfBuffer = st.Faint
		s.Placeholder = st.Faint
		s.Prompt = st.Warn
	}
	ts.Cursor.Blink = false
	in.SetStyles(ts)
	return gate{st: st, input: in}
}

// Active reports whether a plan waits for an answer.
func (g *gate) Active() bool { return g.reply != nil }

// Open shows the gate for a request.
func (g *gate) Open(m askMsg) {
	g.reply, g.revision = m.reply, m.revision
	g.editing, g.warning = false, ""
	g.input.Reset()
}

// Close hides the gate without answering.
func (g *gate) Close() {
	g.reply, g.editing, g.warning = nil, false, ""
	g.input.Blur()
}

// SetWidth fits the text area to the gate's frame.
func (g *gate) SetWidth(width int) {
	g.input.SetWidth(max(width-g.st.GateBox.GetHorizontalFrameSize(), 10))
}

// Takes reports whether the gate handles the key k: y, n and r at the
// question; every key but paging while the feedback is typed.
func (g *gate) Takes(k string) bool {
	if g.editing {
		return k != "pgup" && k != "pgdown"
	}
	switch strings.ToLower(k) {
	case "y", "n", "r":
		return true
	}
	return false
}

// Key handles a key press while the gate is open. It returns the command
// that delivers the user's decision, if the key made one, and closes the
// gate then.
func (g *gate) Key(msg tea.KeyPressMsg) tea.Cmd {
	if g.editing {
		switch msg.String() {
		case "esc":
			g.editing, g.warning = false, ""
			g.input.Blur()
			return nil
		case "enter":
			fb := strings.TrimSpace(g.input.Value())
			if fb == "" {
				g.warning = "write what should change, or Esc to go back"
				return nil
			}
			return g.answer(agent.Decision{Kind: agent.DecisionRevise, Feedback: fb})
		}
		g.warning = ""
		var cmd tea.Cmd
		g.input, cmd = g.input.Update(msg)
		return cmd
	}
	switch strings.ToLower(msg.String()) {
	case "y":
		return g.answer(agent.Decision{Kind: agent.DecisionYes})
	case "n":
		return g.answer(agent.Decision{Kind: agent.DecisionNo})
	case "r":
		g.editing = true
		return g.input.Focus()
	}
	return nil
}

// Paste inserts pasted text into the feedback.
func (g *gate) Paste(msg tea.PasteMsg) tea.Cmd {
	if !g.editing {
		return nil
	}
	var cmd tea.Cmd
	g.input, cmd = g.input.Update(msg)
	return cmd
}

// answer closes the gate and returns the command that sends d. The reply
// channel has room for one answer, so the command never blocks.
func (g *gate) answer(d agent.Decision) tea.Cmd {
	reply := g.reply
	g.Close()
	return func() tea.Msg {
		reply <- d
		return nil
	}
}

// Render draws the gate across width.
func (g *gate) Render(width int) string {
	if !g.Active() {
		return ""
	}
	st := g.st
	question := "Approve this plan?"
	if g.revision > 0 {
		question = fmt.Sprintf("Approve this plan (revision %d)?", g.revision)
	}
	var body string
	if g.editing {
		body = st.Title.Render("What should change?") + st.Faint.Render("  Enter sends · Esc goes back") + "\n" + g.input.View()
		if g.warning != "" {
			body += "\n" + st.Warn.Render(g.warning)
		}
	} else {
		body = st.Title.Render(question) + "  " +
			st.Key.Render("y") + " approve  " + st.Key.Render("n") + " decline  " + st.Key.Render("r") + " revise"
	}
	// The frame wraps what is wider than the screen; the text area is
	// already as wide as the frame's inside (SetWidth).
	return st.GateBox.Width(width).Render(body)
}
