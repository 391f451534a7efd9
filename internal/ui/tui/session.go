package tui

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// An interactive session (anvil with no request): an input box at the
// bottom; each line the user sends is a request the CLI runs in the same
// session, drawn like a run; while one runs, Esc or Ctrl-C stops it and
// the session goes on; Ctrl-C or Ctrl-D at an empty prompt leaves.

// Messages of a session, from the CLI.
type (
	// promptMsg asks for the next line.
	promptMsg struct{}
	// beginMsg says a request started; cancel stops it.
	beginMsg struct{ cancel func() }
	// noteMsg adds text to the transcript (a slash command's answer).
	noteMsg struct{ text string }
)

// prompt is the session's input box.
type prompt struct {
	input textinput.Model
	// waiting: the CLI asked for a line and has not had one yet.
	waiting bool
	// lines receives what the user sends.
	lines chan<- string
}

func newPrompt(lines chan<- string) prompt {
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "ask for a change, or /help"
	in.CharLimit = 8000
	return prompt{input: in, lines: lines}
}

// Prompt waits for the user's next line. It returns io.EOF when the user
// leaves the session, and ctx's error when ctx ends first.
func (u *UI) Prompt(ctx context.Context) (string, error) {
	u.fwd.push(promptMsg{})
	select {
	case line := <-u.lines:
		return line, nil
	case <-u.done:
		return "", io.EOF
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Begin says a request started; Esc and Ctrl-C call cancel to stop it.
func (u *UI) Begin(cancel func()) { u.fwd.push(beginMsg{cancel: cancel}) }

// Finished says the request has returned: the prompt comes back.
func (u *UI) Finished() { u.fwd.push(runOverMsg{}) }

// Note shows text in the transcript.
func (u *UI) Note(text string) { u.fwd.push(noteMsg{text: text}) }

// Quit leaves the session's screen.
func (u *UI) Quit() error {
	u.prog.Quit()
	<-u.done
	return u.err
}

// sessionKey handles a key in an interactive session; handled is false
// for keys the transcript takes (scrolling).
func (m *model) sessionKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := msg.String()
	if m.working {
		switch k {
		case "esc", "ctrl+c":
			if m.stopping && k == "ctrl+c" {
				m.aborted = true
				return tea.Quit, true
			}
			return m.interruptWork(), true
		}
		return nil, false
	}
	switch k {
	case "ctrl+c", "ctrl+d":
		if m.prompt.input.Value() == "" {
			return tea.Quit, true
		}
		m.prompt.input.Reset()
		return nil, true
	case "enter":
		line := strings.TrimSpace(m.prompt.input.Value())
		if line == "" || !m.prompt.waiting {
			return nil, true
		}
		m.prompt.input.Reset()
		m.prompt.waiting = false
		m.tr.note("› "+line, m.st.Title.Render)
		m.follow = true
		lines := m.prompt.lines
		return func() tea.Msg { lines <- line; return nil }, true
	case "pgup", "pgdown", "home", "end":
		return nil, false
	}
	var cmd tea.Cmd
	m.prompt.input, cmd = m.prompt.input.Update(msg)
	return cmd, true
}

// interruptWork stops the current request, not the session.
func (m *model) interruptWork() tea.Cmd {
	if m.stopping {
		return nil
	}
	m.stopping = true
	m.status.stopping = true
	m.gate.Close()
	m.follow = true
	m.tr.note("stopping this request… the session goes on (Ctrl-C again quits at once)", m.st.Warn.Render)
	cancel := m.cancel
	return func() tea.Msg {
		if cancel != nil {
			cancel()
		}
		return nil
	}
}

// idle ends a request in a session: the prompt comes back.
func (m *model) idle() tea.Cmd {
	m.working, m.stopping, m.status.stopping = false, false, false
	m.tr.stop()
	m.gate.Close()
	m.done = nil
	return m.prompt.input.Focus()
}

// pastedPath turns a pasted path of a picture into a mention ("@path"),
// as a screenshot dragged into the terminal arrives: the request then
// attaches it.
func pastedPath(text string) string {
	t := strings.Trim(strings.TrimSpace(text), `'"`)
	switch strings.ToLower(filepath.Ext(t)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		if filepath.IsAbs(t) && !strings.ContainsAny(t, " \n") {
			return "@" + t + " "
		}
	}
	return text
}
