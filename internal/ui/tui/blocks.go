package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/ui"
)

// noteBlock is a line of its own: the session header, a phase divider, the
// answer at the gate, an error.
type noteBlock struct {
	text  string
	style func(...string) string
}

func (b *noteBlock) render(width int, _ *styles, _ string) string {
	return styleLines(strings.Join(wrap(clean(b.text), width), "\n"), b.style)
}

// phaseBlock opens a phase with a divider across the screen.
type phaseBlock struct{ ev event.Phase }

func (b *phaseBlock) render(width int, st *styles, _ string) string {
	title := "── " + b.ev.Name
	if b.ev.Detail != "" {
		title += " · " + ui.OneLine(clean(b.ev.Detail), 200)
	}
	title = clip(title+" ", width)
	rule := strings.Repeat("─", max(0, width-lipgloss.Width(title)))
	return "\n" + st.Phase.Render(title) + st.Faint.Render(rule)
}

// textBlock is an agent's text for one turn, growing while it streams.
type textBlock struct {
	agent     string
	text      string
	streaming bool
}

func (b *textBlock) render(width int, st *styles, _ string) string {
	text := strings.TrimSpace(clean(b.text))
	if b.streaming {
		text += "▍"
	}
	label := fmt.Sprintf("%-8s ", b.agent)
	indent := lipgloss.Width(label)
	lines := wrap(text, max(width-indent, 10))
	for i := range lines {
		if i == 0 {
			lines[i] = st.Agent.Render(label) + lines[i]
		} else {
			lines[i] = strings.Repeat(" ", indent) + lines[i]
		}
		lines[i] = clip(lines[i], width)
	}
	return strings.Join(lines, "\n")
}

// previewLines is how much of a tool's result the list shows.
const previewLines = 3

// toolBlock is a tool call: a spinner while it runs, then ✓ or ✗ and the
// first lines of the result.
type toolBlock struct {
	call   event.ToolCall
	result *event.ToolResult
	cut    bool           // the run ended before the result came
	checks []*shadowCheck // validation cycles the call ran
}

// live reports whether the call still runs; so do its cycles, if any.
func (b *toolBlock) live() bool { return b.result == nil && !b.cut }

// running returns the call's cycle still waiting for its verdict, or nil.
func (b *toolBlock) running() *shadowCheck {
	if n := len(b.checks); n > 0 && b.checks[n-1].ev.Stage != "result" {
		return b.checks[n-1]
	}
	return nil
}

func (b *toolBlock) render(width int, st *styles, spin string) string {
	mark := st.Warn.Render(spin)
	switch {
	case b.cut:
		mark = st.Faint.Render("·")
	case b.result != nil && b.result.IsError:
		mark = st.Error.Render("✗")
	case b.result != nil:
		mark = st.OK.Render("✓")
	}
	head := fmt.Sprintf("  %s %s %s %s", mark, st.Faint.Render(b.call.Agent+" ·"), st.Tool.Render(b.call.Name), ui.OneLine(clean(b.call.Summary), 400))
	out := []string{clip(head, width)}
	for _, c := range b.checks {
		out = append(out, c.render(width, st, spin, b.live()))
	}
	if b.result == nil {
		return strings.Join(out, "\n")
	}
	style := st.Faint
	if b.result.IsError {
		style = st.Error
	}
	// Under validation cycles the verdict is already on screen: the
	// result's first line (what the tool did) is enough.
	limit := previewLines
	if len(b.checks) > 0 {
		limit = 1
	}
	lines := strings.Split(clean(b.result.Preview), "\n")
	shown, blank := 0, 0
	for _, l := range lines {
		if shown == limit {
			break
		}
		if strings.TrimSpace(l) == "" {
			blank++
			continue
		}
		out = append(out, style.Render(clip("      "+l, width)))
		shown++
	}
	if more := max(b.result.Lines, len(lines)-blank) - shown; more > 0 && shown > 0 && len(b.checks) == 0 {
		out = append(out, st.Faint.Render(clip(fmt.Sprintf("      … %d more %s", more, plural(more, "line", "lines")), width)))
	}
	return strings.Join(out, "\n")
}

// shadowDiags is how many of a rejected cycle's new diagnostics are shown.
const shadowDiags = 3

// shadowCheck is a validation cycle of the change set in the shadow
// workspace, drawn under the tool call that ran it: "validating" with a
// spinner, then the verdict and the first new diagnostics, then
// "→ committed" once the commit is written.
type shadowCheck struct {
	ev        event.Shadow
	committed bool
}

// render draws the cycle; live reports whether its call still runs, so
// that a cycle whose verdict never came stops spinning with the call.
func (c *shadowCheck) render(width int, st *styles, spin string, live bool) string {
	line := clean(ui.ShadowLine(c.ev))
	var mark string
	style := st.Faint
	switch {
	case c.ev.Stage != "result" && !live:
		mark, line = "·", line+" (stopped)"
	case c.ev.Stage != "result": // validating, or waiting for the lock
		mark, style = spin, st.Warn
	case c.ev.Verdict == "clean":
		mark, style = "✓", st.OK
		if c.committed {
			line = strings.TrimSuffix(line, " → committing") + " → committed"
		}
	case c.ev.Verdict == "rejected":
		mark, style = "✗", st.Error
	default: // unverified: never taken as clean
		mark, style = "?", st.Warn
	}
	out := []string{style.Render(clip("    "+mark+" "+line, width))}
	for i, d := range c.ev.New {
		if i == shadowDiags {
			out = append(out, st.Faint.Render(clip(fmt.Sprintf("        … %d more", len(c.ev.New)-shadowDiags), width)))
			break
		}
		out = append(out, st.Faint.Render(clip("        "+clean(d.String()), width)))
	}
	return strings.Join(out, "\n")
}

// summaryBlock is the end of the run, worded as the plain renderer words
// it.
type summaryBlock struct{ ev event.Done }

func (b *summaryBlock) render(width int, st *styles, _ string) string {
	text := strings.TrimLeft(clean(ui.SummaryText(b.ev)), "\n")
	head, rest, _ := strings.Cut(text, "\n")
	style := st.OK
	if !b.ev.Success {
		style = st.Warn
	}
	out := []string{"", styleLines(strings.Join(wrap(head, width), "\n"), style.Bold(true).Render)}
	for _, l := range strings.Split(strings.TrimRight(rest, "\n"), "\n") {
		if l != "" {
			body := strings.TrimLeft(l, " ")
			out = append(out, hang(l[:len(l)-len(body)], body, width))
		}
	}
	return strings.Join(out, "\n")
}
