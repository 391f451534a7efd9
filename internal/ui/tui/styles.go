package tui

import "charm.land/lipgloss/v2"

// styles are the looks of the TUI. They are built once, held by the model
// and handed to each component, never read from package variables, so a
// component's test renders with styles of its own.
//
// The default styles use the 16 basic ANSI colours, which every terminal
// theme remaps to something legible on its own background; that spares a
// background-colour query at start-up. Under NO_COLOR the program's colour
// profile drops the colours and keeps bold, faint and reverse, which is
// enough to tell the parts apart.
type styles struct {
	Title lipgloss.Style // the request, at the top
	Faint lipgloss.Style // secondary text: workspace, previews, hints
	Phase lipgloss.Style // the divider that opens a phase

	Agent lipgloss.Style // an agent's name before its text
	Tool  lipgloss.Style // a tool's name in the list of calls

	OK    lipgloss.Style // ✓ marks, clean verdicts, commits
	Error lipgloss.Style // ✗ marks, rejected verdicts, errors
	Warn  lipgloss.Style // running work, unverified verdicts, "stopping…"

	PlanBox   lipgloss.Style // the frame around the plan
	PlanTitle lipgloss.Style
	PlanLabel lipgloss.Style // "Goal:", "Steps:", ...

	DiffAdd    lipgloss.Style
	DiffDel    lipgloss.Style
	DiffHunk   lipgloss.Style
	DiffHeader lipgloss.Style

	TodoDone    lipgloss.Style
	TodoNow     lipgloss.Style
	TodoPending lipgloss.Style

	GateBox lipgloss.Style // the frame of the approval gate
	Key     lipgloss.Style // a key to press: y, n, r, q

	StatusBar lipgloss.Style
}

// defaultStyles returns the styles the CLI uses.
func defaultStyles() styles {
	s := lipgloss.NewStyle
	return styles{
		Title: s().Bold(true),
		Faint: s().Faint(true),
		Phase: s().Foreground(lipgloss.Magenta).Bold(true),

		Agent: s().Foreground(lipgloss.Blue).Bold(true),
		Tool:  s().Bold(true),

		OK:    s().Foreground(lipgloss.Green),
		Error: s().Foreground(lipgloss.Red),
		Warn:  s().Foreground(lipgloss.Yellow),

		PlanBox:   s().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Magenta).Padding(0, 1),
		PlanTitle: s().Bold(true).Foreground(lipgloss.Magenta),
		PlanLabel: s().Bold(true),

		DiffAdd:    s().Foreground(lipgloss.Green),
		DiffDel:    s().Foreground(lipgloss.Red),
		DiffHunk:   s().Foreground(lipgloss.Cyan),
		DiffHeader: s().Bold(true),

		TodoDone:    s().Foreground(lipgloss.Green).Faint(true),
		TodoNow:     s().Bold(true),
		TodoPending: s().Faint(true),

		GateBox: s().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Yellow).Padding(0, 1),
		Key:     s().Bold(true).Reverse(true).Padding(0, 1),

		StatusBar: s().Reverse(true),
	}
}
