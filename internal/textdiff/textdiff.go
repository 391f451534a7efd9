// Package textdiff renders unified diffs, git style. The line alignment
// comes from go-udiff's LCS; the hunks are formatted here because go-udiff
// v0.4.1 numbers the new side of a hunk wrongly when an earlier hunk joined
// two nearby edits (it skips the equal lines between them), which shows
// users diffs that do not apply.
package textdiff

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// Unified returns the unified diff from old to new, labelled from and to
// ("a/x.ts", "b/x.ts", or "/dev/null"), or "" when they are equal.
func Unified(from, to, old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	diffs := lcs.DiffLines(a, b)
	if len(diffs) == 0 {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	// Group the edits into hunks: edits closer than 2*Context lines share
	// one, with the equal lines between them as context.
	for i := 0; i < len(diffs); {
		j := i
		for j+1 < len(diffs) && diffs[j+1].Start-diffs[j].End <= 2*Context {
			j++
		}
		writeHunk(&out, a, b, diffs[i:j+1])
		i = j + 1
	}
	return out.String()
}

func writeHunk(out *strings.Builder, a, b []string, ds []lcs.Diff) {
	first, last := ds[0], ds[len(ds)-1]
	aStart := max(first.Start-Context, 0)
	aEnd := min(last.End+Context, len(a))
	// The new side lines up with the old one outside the edits.
	bStart := first.ReplStart - (first.Start - aStart)
	bEnd := last.ReplEnd + (aEnd - last.End)
	fmt.Fprintf(out, "@@ -%s +%s @@\n", span(aStart, aEnd-aStart), span(bStart, bEnd-bStart))
	pos := aStart
	for _, d := range ds {
		for ; pos < d.Start; pos++ {
			writeLine(out, ' ', a[pos])
		}
		for k := d.Start; k < d.End; k++ {
			writeLine(out, '-', a[k])
		}
		for k := d.ReplStart; k < d.ReplEnd; k++ {
			writeLine(out, '+', b[k])
		}
		pos = d.End
	}
	for ; pos < aEnd; pos++ {
		writeLine(out, ' ', a[pos])
	}
}

// span formats a hunk range: 1-based start and length, "start" alone for
// one line, and the line before for an empty range, as diff does.
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func writeLine(out *strings.Builder, kind byte, line string) {
	out.WriteByte(kind)
	out.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		out.WriteString("\n\\ No newline at end of file\n")
	}
}

func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
