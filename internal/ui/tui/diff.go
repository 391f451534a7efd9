package tui

import (
	"strings"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/ui"
)

// commitBlock is a change set written to disk and its unified diff.
type commitBlock struct{ ev event.Commit }

func (b *commitBlock) render(width int, st *styles, _ string) string {
	head := clean("● " + ui.CommitLine(b.ev))
	lines := []string{st.OK.Bold(true).Render(clip(head, width))}
	if d := strings.TrimRight(b.ev.Diff, "\n"); d != "" {
		lines = append(lines, renderDiff(d, width, st))
	}
	return strings.Join(lines, "\n")
}

// renderDiff colours a unified diff line by line: file headers bold, hunk
// headers cyan, additions green, deletions red. Long lines are cut at the
// width rather than wrapped, since a wrapped line would lose its +/- column.
func renderDiff(diff string, width int, st *styles) string {
	lines := strings.Split(clean(diff), "\n")
	for i, l := range lines {
		style := diffStyle(l, st)
		lines[i] = style(clip(l, width))
	}
	return strings.Join(lines, "\n")
}

// diffStyle picks the style of one diff line. The headers are tested
// first: "--- a/x" and "+++ b/x" also start with "-" and "+".
func diffStyle(l string, st *styles) func(...string) string {
	switch {
	case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "),
		strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
		return st.DiffHeader.Render
	case strings.HasPrefix(l, "@@"):
		return st.DiffHunk.Render
	case strings.HasPrefix(l, "+"):
		return st.DiffAdd.Render
	case strings.HasPrefix(l, "-"):
		return st.DiffDel.Render
	}
	return unstyled
}
