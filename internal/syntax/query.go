package syntax

import (
	"context"
	"fmt"
	"unicode"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Query is a compiled tree-sitter query for one language. The caller owns it
// and must Close it. A Query may be used by several goroutines at once.
type Query struct {
	lang  Language
	q     *sitter.Query
	names []string
}

// QueryError describes a query that does not compile for a language.
type QueryError struct {
	Language Language
	// Kind is tree-sitter's error class: "syntax", "node type", "field",
	// "capture", "predicate", "structure" (an impossible pattern) or
	// "language".
	Kind string
	// Offset is the byte offset of the error in the query; Line and Column
	// are 1-based.
	Offset, Line, Column int
	// Message is the offending name, or for syntax and structure errors the
	// query line with a caret under the error.
	Message string
}

func (e *QueryError) Error() string {
	switch e.Kind {
	case "node type", "field", "capture":
		return fmt.Sprintf("%s: invalid %s %q at %d:%d (offset %d)", e.Language, e.Kind, e.Message, e.Line, e.Column, e.Offset)
	case "language":
		return fmt.Sprintf("%s: %s", e.Language, e.Message)
	default:
		return fmt.Sprintf("%s: %s error at %d:%d (offset %d):\n%s", e.Language, e.Kind, e.Line, e.Column, e.Offset, e.Message)
	}
}

// NewQuery compiles source, in tree-sitter's query language, for l. A query
// that does not compile returns a [*QueryError].
func NewQuery(l Language, source string) (*Query, error) {
	if !l.valid() {
		return nil, fmt.Errorf("syntax: unsupported language %d", int(l))
	}
	q, qerr := sitter.NewQuery(l.grammar(), source)
	if qerr != nil {
		return nil, &QueryError{
			Language: l,
			Kind:     queryErrorKind(qerr.Kind),
			Offset:   int(qerr.Offset),
			Line:     int(qerr.Row) + 1,
			Column:   int(qerr.Column) + 1,
			Message:  qerr.Message,
		}
	}
	return &Query{lang: l, q: q, names: q.CaptureNames()}, nil
}

func queryErrorKind(k sitter.QueryErrorKind) string {
	switch k {
	case sitter.QueryErrorNodeType:
		return "node type"
	case sitter.QueryErrorField:
		return "field"
	case sitter.QueryErrorCapture:
		return "capture"
	case sitter.QueryErrorPredicate:
		return "predicate"
	case sitter.QueryErrorStructure:
		return "structure"
	case sitter.QueryErrorLanguage:
		return "language"
	default:
		return "syntax"
	}
}

// Language returns the language q was compiled for.
func (q *Query) Language() Language { return q.lang }

// Close frees the compiled query.
func (q *Query) Close() {
	if q.q != nil {
		q.q.Close()
		q.q = nil
	}
}

// Capture is one node captured by a query.
type Capture struct {
	Name     string `json:"name"`      // the capture name, without "@"
	NodeType string `json:"node_type"` // the grammar's node type
	// Text is the node's source on one line, whitespace collapsed and cut
	// at about 160 characters.
	Text string `json:"text"`
	// Line and Column (1-based, bytes) locate the node's start; EndLine its
	// last line.
	Line    int `json:"line"`
	Column  int `json:"column"`
	EndLine int `json:"end_line"`
}

// Match runs q over src and returns up to limit captures (all if limit <= 0)
// in match order, with the total number found. A node captured under the
// same name by several matches is reported once. The parse tree comes from,
// and goes to, the Parser's cache.
func (p *Parser) Match(ctx context.Context, q *Query, src []byte, limit int) ([]Capture, int, error) {
	if err := p.begin(); err != nil {
		return nil, 0, err
	}
	defer p.life.RUnlock()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	st, err := p.state(q.lang)
	if err != nil {
		return nil, 0, err
	}
	_, t, err := p.tree(st, makeKey(q.lang, src), src)
	if err != nil {
		return nil, 0, err
	}
	defer p.closeTree(t)

	qc := sitter.NewQueryCursor()
	defer qc.Close()
	type seenKey struct {
		id    uintptr
		index uint32
	}
	seen := make(map[seenKey]bool)
	var caps []Capture
	total := 0
	ms := qc.Matches(q.q, t.RootNode(), src)
	for m := ms.Next(); m != nil; m = ms.Next() {
		// A broad query ("(identifier) @x") can match hundreds of
		// thousands of nodes; stay responsive to cancellation.
		if total%4096 == 4095 && ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		for _, c := range m.Captures {
			n := c.Node
			k := seenKey{n.Id(), c.Index}
			if seen[k] {
				continue
			}
			seen[k] = true
			total++
			if limit > 0 && len(caps) >= limit {
				continue
			}
			start, end := n.StartPosition(), n.EndPosition()
			caps = append(caps, Capture{
				Name:     q.names[c.Index],
				NodeType: n.Kind(),
				Text:     oneLine(src[n.StartByte():n.EndByte()]),
				Line:     int(start.Row) + 1,
				Column:   int(start.Column) + 1,
				EndLine:  int(end.Row) + 1,
			})
		}
	}
	return caps, total, nil
}

// maxSignature is the longest signature or capture text reported, in
// runes; longer ones are cut and end in "…".
const maxSignature = 160

// oneLine collapses runs of whitespace in b to single spaces (none just
// inside parentheses and square brackets), trims it and
// cuts it to maxSignature runes. It stops reading once it has enough, so a
// node spanning a whole file costs no more than a short one.
func oneLine(b []byte) string {
	out := make([]rune, 0, min(len(b), maxSignature+1))
	space := false
	for len(b) > 0 && len(out) <= maxSignature {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if unicode.IsSpace(r) {
			space = len(out) > 0
			continue
		}
		if space {
			// A line break inside brackets leaves no space behind:
			// "f(\n\ta,\n)" reads "f(a,)".
			if prev := out[len(out)-1]; prev != '(' && prev != '[' && r != ')' && r != ']' {
				out = append(out, ' ')
			}
			space = false
		}
		out = append(out, r) // an invalid byte decodes as U+FFFD
	}
	if len(out) > maxSignature {
		out = append(out[:maxSignature-1], '…')
	}
	return string(out)
}
