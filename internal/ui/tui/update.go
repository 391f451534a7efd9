package tui

import (
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/ui"
)

// Update routes a message to the component it concerns, then lays the
// screen out again.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.gate.SetWidth(msg.Width)
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	case tea.PasteMsg:
		if m.interactive && !m.working && !m.gate.Active() {
			msg.Content = pastedPath(msg.Content)
			m.prompt.input, cmd = m.prompt.input.Update(msg)
			break
		}
		cmd = m.gate.Paste(msg)
	case tea.MouseWheelMsg:
		m.scroll(msg)
	case spinner.TickMsg:
		if m.over {
			return m, nil // not asking for the next tick stops the spinner
		}
		m.spin, cmd = m.spin.Update(msg)
		m.clock = m.now()
		if !m.tr.setSpin(m.spin.View()) {
			return m, cmd // nothing spins: only the clock moved, and View draws it
		}
	case eventMsg:
		cmd = m.apply(msg.ev)
	case askMsg:
		m.ask(msg)
	case askEndedMsg:
		if m.gate.reply == msg.reply {
			m.gate.Close()
		}
	case stoppingMsg:
		if m.interactive {
			return m, tea.Quit // the session's context ended (a signal)
		}
		m.stop()
	case runOverMsg:
		if m.interactive {
			cmd = m.idle()
		} else {
			cmd = m.end()
		}
	case promptMsg:
		m.prompt.waiting = true
		cmd = m.prompt.input.Focus()
	case beginMsg:
		m.working, m.stopping, m.cancel = true, false, msg.cancel
		m.prompt.input.Blur()
	case noteMsg:
		m.tr.note(msg.text, m.st.Faint.Render)
		m.follow = true
	default:
		// The text areas' own messages (their cursors).
		if m.gate.editing {
			m.gate.input, cmd = m.gate.input.Update(msg)
		} else if m.interactive && !m.working {
			m.prompt.input, cmd = m.prompt.input.Update(msg)
		}
	}
	m.layout()
	return m, cmd
}

// key handles a key press. Ctrl-C always works; the gate takes its keys
// while it is open; scrolling keys work everywhere else.
func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	if m.interactive && (k == "ctrl+c" || !m.gate.Active()) {
		if cmd, ok := m.sessionKey(msg); ok {
			return cmd
		}
	}
	if k == "ctrl+c" {
		return m.interrupt()
	}
	if m.gate.Active() {
		if m.gate.Takes(k) {
			cmd := m.gate.Key(msg)
			if !m.gate.Active() {
				m.follow = true // answered: follow what the run does next
			}
			return cmd
		}
	}
	if m.over {
		switch k {
		case "q", "esc", "enter":
			return tea.Quit
		}
	}
	switch k {
	case "home", "g":
		m.vp.GotoTop()
		m.follow = false
	case "end", "G":
		m.vp.GotoBottom()
		m.follow = true
	default:
		m.scroll(msg)
	}
	return nil
}

// scroll passes a scrolling key or wheel turn to the viewport. Scrolling
// up stops following the bottom; coming back down to it resumes.
func (m *model) scroll(msg tea.Msg) {
	m.vp, _ = m.vp.Update(msg)
	m.follow = m.vp.AtBottom()
}

// interrupt handles Ctrl-C: the first stops the run and keeps the screen
// until it has ended; a second one leaves at once; after the run it just
// leaves.
func (m *model) interrupt() tea.Cmd {
	switch {
	case m.over:
		return tea.Quit
	case m.stopping:
		m.aborted = true
		return tea.Quit
	}
	m.stop()
	cancel := m.cancel
	return func() tea.Msg {
		if cancel != nil {
			cancel()
		}
		return nil
	}
}

// stop shows that the run is stopping. The gate closes: its Approve call
// returns with the run's context.
func (m *model) stop() {
	if m.stopping || m.over {
		return
	}
	m.stopping = true
	m.status.stopping = true
	m.gate.Close()
	m.follow = true
	m.tr.note("stopping… the run ends at its next safe point; no file is left half-written (Ctrl-C again quits at once)", m.st.Warn.Render)
}

// end records that the run is over. After an interrupted run the program
// leaves by itself; otherwise the screen stays until the user leaves it.
func (m *model) end() tea.Cmd {
	if !m.over {
		m.over = true
		m.clock = m.now() // the last tick: the elapsed time stops here
		m.status.stopping = false
		m.tr.stop()
		m.gate.Close()
	}
	if m.stopping {
		return tea.Quit
	}
	return nil
}

// ask opens the gate for a plan, first drawing the plan if its event has
// not done so.
func (m *model) ask(msg askMsg) {
	if m.stopping || m.over {
		return // the run is ending; Approve returns with its context
	}
	if lp := m.tr.lastPlan; lp == nil || lp.ev.Plan != msg.plan {
		m.tr.plan(event.Plan{Plan: msg.plan, Revision: msg.revision})
	}
	m.gate.Open(msg)
	m.showPlan = true
}

// apply adds an event of the run to the screen.
func (m *model) apply(ev event.Event) tea.Cmd {
	st := m.st
	switch e := ev.(type) {
	case event.Session:
		m.status.model = e.Model
		if !m.interactive { // a session shows the request as the user sent it
			m.tr.note("anvil: "+e.Request, st.Title.Render)
		}
		m.tr.note(ui.WorkspaceLine(e), st.Faint.Render)
		if e.Replayed {
			m.tr.note(ui.ReplayNote, st.Faint.Render)
		}
	case event.Phase:
		m.status.phase = e.Name
		m.tr.add(&phaseBlock{ev: e})
	case event.MessageDelta:
		m.tr.delta(e)
	case event.Message:
		m.tr.message(e)
	case event.ToolCall:
		m.tr.toolCall(e)
	case event.ToolResult:
		m.tr.toolResult(e)
	case event.Plan:
		m.tr.plan(e)
	case event.Approval:
		m.tr.note(approvalText(e), approvalStyle(e, st))
	case event.Shadow:
		m.tr.shadow(e)
	case event.Commit:
		m.tr.commit(e)
	case event.Todo:
		m.todo.Set(e.Items)
	case event.Usage:
		m.status.usage, m.status.hasUsage = e, true
	case event.Retry:
		m.tr.retry(e)
	case event.Compaction:
		m.tr.note(ui.CompactionText(e), st.Warn.Render)
	case event.Error:
		m.tr.note("error: "+e.Message, st.Error.Render)
	case event.Done:
		m.done = &e
		m.status.phase = "done"
		if !e.Success {
			m.status.phase = "stopped"
		}
		m.tr.add(&summaryBlock{ev: e})
		if m.interactive {
			return nil // the prompt comes back when the CLI says the request returned
		}
		return m.end()
	}
	return nil
}

func approvalText(e event.Approval) string {
	var s string
	switch e.Decision {
	case "yes":
		s = "✓ plan approved"
	case "no":
		s = "✗ plan declined"
	case "revise":
		s = "↻ revise the plan"
	default:
		s = "approval: " + e.Decision
	}
	if e.Auto {
		s += " (--yes)"
	}
	if e.Feedback != "" {
		s += ": " + e.Feedback
	}
	return s
}

func approvalStyle(e event.Approval, st *styles) func(...string) string {
	switch e.Decision {
	case "yes":
		return st.OK.Render
	case "no":
		return st.Error.Render
	}
	return st.Warn.Render
}
