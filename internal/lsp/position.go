package lsp

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// LSP positions count UTF-16 code units; Anvil reports and edits by byte.
// These helpers convert between the two over a document's text.

// Offset returns the byte offset of pos in text. Positions past the end of a
// line clamp to the line's end, and lines past the end clamp to len(text), as
// the specification asks of clients.
func Offset(text []byte, pos Position) int {
	start := lineStart(text, pos.Line)
	if start < 0 {
		return len(text)
	}
	units := 0
	for i := start; i < len(text); {
		if units >= pos.Character || text[i] == '\n' || (text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n') {
			return i
		}
		r, size := utf8.DecodeRune(text[i:])
		units += utf16.RuneLen(r)
		if units > pos.Character { // inside a surrogate pair: stay before it
			return i
		}
		i += size
	}
	return len(text)
}

// PositionAt returns the LSP position of a byte offset in text.
func PositionAt(text []byte, offset int) Position {
	offset = min(max(offset, 0), len(text))
	line, start := 0, 0
	for i := 0; i < offset; i++ {
		if text[i] == '\n' {
			line++
			start = i + 1
		}
	}
	units := 0
	for i := start; i < offset; {
		r, size := utf8.DecodeRune(text[i:])
		units += utf16.RuneLen(r)
		i += size
	}
	return Position{Line: line, Character: units}
}

// ByteColumn returns the 1-based byte column of pos within its line, the
// unit Anvil shows (as ripgrep and tree-sitter do).
func ByteColumn(text []byte, pos Position) int {
	off := Offset(text, pos)
	start := lineStart(text, pos.Line)
	if start < 0 {
		return pos.Character + 1
	}
	return off - start + 1
}

// Line returns 0-based line n of text without its line ending ("\n" or
// "\r\n"), and whether text has that line.
func Line(text []byte, n int) (string, bool) {
	start := lineStart(text, n)
	if start < 0 || n < 0 {
		return "", false
	}
	line := text[start:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return string(bytes.TrimSuffix(line, []byte("\r"))), true
}

// ByteOffset returns the offset of a 0-based line and 1-based byte column
// in text, clamped to the text.
func ByteOffset(text []byte, line, column int) int {
	start := lineStart(text, line)
	if start < 0 {
		return len(text)
	}
	return min(start+max(column, 1)-1, len(text))
}

// lineStart returns the byte offset where line begins, or -1 past the end.
func lineStart(text []byte, line int) int {
	if line == 0 {
		return 0
	}
	n := 0
	for i, b := range text {
		if b == '\n' {
			n++
			if n == line {
				return i + 1
			}
		}
	}
	return -1
}

// ApplyEdits applies non-overlapping text edits to text and returns the
// result. Edits are applied from the end so earlier offsets stay valid.
func ApplyEdits(text []byte, edits []TextEdit) []byte {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		spans[i] = span{Offset(text, e.Range.Start), Offset(text, e.Range.End), e.NewText}
	}
	// Stable order by start; for equal starts keep the server's order, which
	// the specification says is the order to insert in.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].start < spans[j-1].start; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	out := make([]byte, 0, len(text))
	last := 0
	for _, s := range spans {
		if s.start < last { // overlapping edit: malformed, skip it
			continue
		}
		out = append(out, text[last:s.start]...)
		out = append(out, s.text...)
		last = max(s.end, s.start)
	}
	return append(out, text[last:]...)
}
