package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// layout renders the parts pinned at the bottom, gives the transcript the
// rest of the height, and scrolls it: to the bottom while following, to
// the plan's top when the gate opens on a plan taller than the screen.
// Update calls it after every change, so View only assembles.
func (m *model) layout() {
	if m.width <= 0 || m.height <= 0 {
		return
	}
	m.gateView = m.gate.Render(m.width)
	free := m.height - 1 - lipgloss.Height(m.gateView) // 1: the status bar
	if m.gateView == "" {
		free = m.height - 1
	}
	if m.showsPrompt() {
		m.prompt.input.SetWidth(m.width - 3)
		free-- // the input box
	}
	// The todo list takes at most a third of what is left, so the
	// transcript keeps most of the screen.
	m.todoView = m.todo.Render(m.width, min(len(m.todo.items)+1, free/3))
	if m.todoView != "" {
		free -= lipgloss.Height(m.todoView)
	}
	m.vp.SetWidth(m.width)
	m.vp.SetHeight(max(free, 1))
	// Setting the content measures every line; only a changed transcript
	// needs it.
	if content, changed := m.tr.Render(m.width); changed {
		m.vp.SetContent(content)
	}
	if m.showPlan {
		m.showPlan = false
		if top := m.tr.lineOf(m.tr.lastPlan); top >= 0 && m.vp.TotalLineCount()-top > m.vp.Height() {
			m.vp.SetYOffset(top)
			m.follow = false
			return
		}
		m.follow = true
	}
	if m.follow {
		m.vp.GotoBottom()
	}
}

// View assembles the screen: the transcript, the todo list, the gate and
// the status bar. It uses the alternate screen, so the run's history does
// not scroll the user's terminal away; the summary is printed on the
// normal screen when the program ends (see [UI.Wait]).
func (m *model) View() tea.View {
	var v tea.View
	if m.width > 0 && m.height > 0 {
		parts := []string{m.vp.View()}
		if m.todoView != "" {
			parts = append(parts, m.todoView)
		}
		if m.gateView != "" {
			parts = append(parts, m.gateView)
		}
		if m.showsPrompt() {
			parts = append(parts, m.prompt.input.View())
		}
		parts = append(parts, m.status.Render(m.width, m.clock, m.hints()...))
		v.SetContent(strings.Join(parts, "\n"))
	}
	v.AltScreen = true
	// Wheel events scroll the transcript. Capturing the mouse costs the
	// terminal's own selection; most terminals still select with Shift held.
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

// showsPrompt: a session between requests shows its input box.
func (m *model) showsPrompt() bool { return m.interactive && !m.working }

// hints name the keys that matter now, most important first, for the
// status bar.
func (m *model) hints() []string {
	var h []string
	if !m.follow {
		h = append(h, "end follow") // first: the way back is what a reader needs
	}
	switch {
	case m.interactive && m.working && m.stopping:
		h = append(h, "ctrl+c quit now")
	case m.interactive && m.working:
		h = append(h, "esc stop")
	case m.interactive:
		h = append(h, "enter send", "/help", "ctrl+c quit")
	case m.over:
		h = append(h, "q quit")
	case m.stopping:
		h = append(h, "ctrl+c quit now")
	case m.gate.Active():
	default:
		h = append(h, "ctrl+c stop")
	}
	return append(h, "pgup/pgdn scroll")
}
