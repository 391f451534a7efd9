package search

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// maxEventLine bounds the part of one line of rg's JSON output held in
// memory. A longer line (a match in a line of many megabytes, or one with
// millions of submatches) is read through: its line number and column are
// still found, its text only as far as the kept part reaches.
const maxEventLine = 8 << 20

// eventReader turns rg's --json output into collector input. rg prints each
// file's events together (begin, then match and context lines in order,
// then end), whatever its thread count.
type eventReader struct {
	br      *bufio.Reader
	glob    *globFilter
	col     *collector
	bound   int
	maxLine int
	b       fileBuilder
	limit   int  // matches kept per file
	keep    bool // the current file passes the glob filter
	summary bool // rg finished its search and printed its summary
	line    []byte
}

func newEventReader(r io.Reader, p *plan, col *collector, bound int) *eventReader {
	return &eventReader{
		br:      bufio.NewReaderSize(r, 64<<10),
		glob:    p.glob,
		col:     col,
		bound:   bound,
		maxLine: maxEventLine,
		limit:   p.maxResults,
		b:       fileBuilder{limit: p.maxResults, context: p.context},
	}
}

// run reads events until rg's output ends or the match bound is reached.
func (r *eventReader) run() error {
	for {
		line, big, err := r.readLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := r.event(line, big); err != nil {
			return err
		}
		if r.col.stopped {
			return nil
		}
	}
}

// readLine returns the next line of output. When it is longer than
// r.maxLine, the line is cut and big holds what was found in all of it.
func (r *eventReader) readLine() (line []byte, big *keyScan, err error) {
	r.line = r.line[:0]
	for {
		seg, err := r.br.ReadSlice('\n')
		switch {
		case big != nil:
			big.feed(seg)
		case len(r.line)+len(seg) > r.maxLine:
			big = &keyScan{}
			big.feed(r.line)
			big.feed(seg)
			r.line = append(r.line, seg[:r.maxLine-len(r.line)]...)
		default:
			r.line = append(r.line, seg...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(r.line) == 0:
			return nil, nil, io.EOF
		case err != nil && err != io.EOF:
			return nil, nil, err
		}
		return r.line, big, nil
	}
}

// event handles one line of output.
func (r *eventReader) event(line []byte, big *keyScan) error {
	switch eventType(line) {
	case "begin":
		raw, complete := dataField(line, "path")
		if !complete || big != nil {
			return fmt.Errorf("unreadable ripgrep message %.100q", line)
		}
		path := strings.TrimPrefix(string(raw), "./")
		r.keep = r.glob == nil || r.glob.match(path)
		r.b.reset(path)
		r.b.limit = r.limit
		if !r.col.wants(path) {
			r.b.limit = 0 // only counted: no need to decode its lines
		}
	case "match":
		// With context lines, rg reports matching lines in the trailing
		// context of its --max-count'th match as matches too.
		if !r.keep || r.b.count >= FileMatchBound {
			return nil
		}
		if r.b.full() {
			r.b.count++ // not kept: no need to decode it
		} else {
			n, col, text, err := r.lineEvent(line, big)
			if err != nil {
				return err
			}
			r.b.addMatch(n, col, text)
		}
		if r.col.total+r.b.count >= r.bound {
			r.col.add(r.b.matches, r.b.count)
			r.col.stopped = true
			r.keep = false
		}
	case "context":
		if !r.keep || !r.b.wantsContext() {
			return nil
		}
		n, _, text, err := r.lineEvent(line, big)
		if err != nil {
			return err
		}
		r.b.addContext(n, text)
	case "end":
		if !r.keep {
			return nil
		}
		r.keep = false
		// rg stops reading a file at its first NUL byte, after printing the
		// matches before it, and gives the NUL's offset here. The Go engine
		// drops such a file whole, and so does this.
		const key = `"binary_offset":`
		i := bytes.Index(line, []byte(key))
		if i < 0 {
			return fmt.Errorf("unreadable ripgrep message %.100q", line)
		}
		if bytes.HasPrefix(line[i+len(key):], []byte("null")) {
			r.col.add(r.b.matches, r.b.count)
		}
	case "summary":
		r.summary = true
	}
	return nil
}

// eventType reads the "type" field, which rg always prints first.
func eventType(line []byte) string {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return ""
	}
	rest := line[len(prefix):]
	if i := bytes.IndexByte(rest, '"'); i >= 0 {
		return string(rest[:i])
	}
	return ""
}

// lineEvent decodes a match or context message: the line number, the
// 1-based column of the first match (1 when rg gives none) and the text of
// the line without its "\n". Rather than decoding the whole message, which
// for a match lists every submatch, it picks the three fields out; that
// also works for a message cut short at r.maxLine (big then holds what was
// found in all of it).
func (r *eventReader) lineEvent(line []byte, big *keyScan) (n, col int, text []byte, err error) {
	var vals []int
	if big != nil {
		vals = big.vals
	} else {
		vals = lineFields(line)
	}
	if len(vals) == 0 {
		return 0, 0, nil, fmt.Errorf("no line number in ripgrep message %.100q", line)
	}
	n, col = vals[0], 1
	if len(vals) > 1 {
		col = vals[1] + 1
	}
	text, complete := dataField(line, "lines")
	text = bytes.TrimSuffix(text, []byte("\n"))
	if !complete && col-1+clipWidth > len(text) {
		text = fmt.Appendf(nil, "[line too long to show; the match is at byte %d]", col)
	}
	return n, col, text, nil
}
