package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Every helper here measures in terminal cells through the ansi package,
// so styled strings are never cut in the middle of an escape sequence or a
// wide character.

// clip cuts one line to width cells, ending it with "…" when it was longer.
func clip(s string, width int) string {
	if width < 1 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// wrap breaks text into lines of at most width cells, at spaces where it
// can and inside words where it must.
func wrap(text string, width int) []string {
	return strings.Split(ansi.Wrap(text, max(width, 1), ""), "\n")
}

// hang wraps text after a first-line prefix and indents the continuation
// lines by the prefix's width, so lists and labels keep a straight left
// edge.
func hang(prefix, text string, width int) string {
	indent := ansi.StringWidth(prefix)
	lines := wrap(text, width-indent)
	pad := strings.Repeat(" ", indent)
	for i := range lines {
		if i == 0 {
			lines[i] = prefix + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// clean makes text from the run safe to draw: tool output and model text
// may hold escape sequences or carriage returns that would move the
// cursor and tear the screen, so they go; tabs become spaces, since a
// terminal's tab stops would make a line wider than lipgloss measures.
func clean(s string) string {
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return -1
		}
		return r
	}, strings.ReplaceAll(s, "\t", "    "))
}

// styleLines applies render to each line of s separately, so that a style
// never spans a line break (the viewport cuts content into lines).
func styleLines(s string, render func(...string) string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = render(l)
	}
	return strings.Join(lines, "\n")
}

// unstyled renders its arguments as they are, for lines that need no
// style where a render func is expected.
func unstyled(s ...string) string { return strings.Join(s, " ") }

// count formats a token count: 638, 7.2k, 1.3M.
func count(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// plural returns one when n is 1 and many otherwise.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
