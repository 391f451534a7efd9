package shadow

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// lineMap maps 0-based line numbers of an old text to the new text, so that
// a diagnostic from before a change can be compared with one after it even
// when lines were added or removed above it.
type lineMap struct {
	diffs []lcs.Diff // line-granular, in order
}

func newLineMap(old, new []byte) lineMap {
	if string(old) == string(new) {
		return lineMap{}
	}
	return lineMap{diffs: lcs.DiffLines(splitLines(string(old)), splitLines(string(new)))}
}

// Map returns the new line of old line l. A line inside a replaced region
// maps to the same offset in the replacement, clamped to it: a line edited
// in place (a rename) keeps its position.
func (m lineMap) Map(l int) int {
	delta := 0
	for _, d := range m.diffs {
		if l < d.Start {
			break
		}
		if l < d.End { // inside the replaced region
			off := l - d.Start
			if span := d.ReplEnd - d.ReplStart; off >= span {
				off = max(span-1, 0)
			}
			return d.ReplStart + off
		}
		// Old line d.End lines up with new line d.ReplEnd.
		delta = d.ReplEnd - d.End
	}
	return l + delta
}

func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
