package search

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
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
		b:       fileBuilder{limit: p.maxResults, context: p.context},
	}
}

// rgEvent is the part of an rg JSON message this package reads.
type rgEvent struct {
	Type string `json:"type"`
	Data struct {
		Path         rgData     `json:"path"`
		Lines        rgData     `json:"lines"`
		LineNumber   int        `json:"line_number"`
		Submatches   firstStart `json:"submatches"`
		BinaryOffset *int64     `json:"binary_offset"`
	} `json:"data"`
}

// rgData is rg's encoding of bytes that may not be UTF-8.
type rgData struct {
	Text  *string `json:"text"`
	Bytes []byte  `json:"bytes"` // base64 in the JSON
}

func (d rgData) raw() []byte {
	if d.Text != nil {
		return []byte(*d.Text)
	}
	return d.Bytes
}

// firstStart decodes rg's submatches array to the start of the first one,
// without building the array: a line can hold thousands.
type firstStart struct {
	n  int
	ok bool
}

func (f *firstStart) UnmarshalJSON(b []byte) error {
	// "start": cannot occur inside a JSON string, where every quote is
	// escaped, so its first occurrence is the first submatch's field.
	i := bytes.Index(b, []byte(`"start":`))
	if i < 0 {
		return nil
	}
	if err := json.Unmarshal(numberAt(b[i+len(`"start":`):]), &f.n); err != nil {
		return err
	}
	f.ok = true
	return nil
}

func numberAt(b []byte) []byte {
	end := 0
	for end < len(b) && b[end] >= '0' && b[end] <= '9' {
		end++
	}
	return b[:end]
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
			big = newKeyScan()
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
		var ev rgEvent
		if err := unmarshal(line, big, &ev); err != nil {
			return err
		}
		path := strings.TrimPrefix(string(ev.Data.Path.raw()), "./")
		r.keep = r.glob == nil || r.glob.match(path)
		r.b.reset(path)
	case "match":
		if !r.keep {
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
		var ev rgEvent
		if err := unmarshal(line, big, &ev); err != nil {
			return err
		}
		// rg stops reading a file at its first NUL byte, after printing the
		// matches before it. The Go engine drops such a file whole, and so
		// does this.
		if ev.Data.BinaryOffset == nil {
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

func unmarshal(line []byte, big *keyScan, ev *rgEvent) error {
	if big != nil {
		return fmt.Errorf("ripgrep printed a %d MB begin or end message", len(line)>>20)
	}
	return json.Unmarshal(line, ev)
}

// lineEvent decodes a match or context message: the line number, the
// 1-based column of the first match (1 when rg gives none) and the text of
// the line without its "\n".
func (r *eventReader) lineEvent(line []byte, big *keyScan) (n, col int, text []byte, err error) {
	if big != nil {
		return r.bigLineEvent(line, big)
	}
	var ev rgEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		return 0, 0, nil, err
	}
	col = 1
	if ev.Data.Submatches.ok {
		col = ev.Data.Submatches.n + 1
	}
	return ev.Data.LineNumber, col, bytes.TrimSuffix(ev.Data.Lines.raw(), []byte("\n")), nil
}

// bigLineEvent is lineEvent for a message cut at r.maxLine bytes.
func (r *eventReader) bigLineEvent(prefix []byte, big *keyScan) (n, col int, text []byte, err error) {
	if len(big.vals) == 0 {
		return 0, 0, nil, fmt.Errorf("no line number in a %d MB message", len(prefix)>>20)
	}
	n, col = big.vals[0], 1
	if len(big.vals) > 1 {
		col = big.vals[1] + 1
	}
	text, complete := partialText(prefix)
	text = bytes.TrimSuffix(text, []byte("\n"))
	if !complete && col-1+clipWidth > len(text) {
		text = fmt.Appendf(nil, "[line too long to show; the match is at byte %d]", col)
	}
	return n, col, text, nil
}

// partialText decodes as much of the "lines" field as prefix holds.
func partialText(prefix []byte) (text []byte, complete bool) {
	for _, key := range []string{`"lines":{"text":"`, `"lines":{"bytes":"`} {
		i := bytes.Index(prefix, []byte(key))
		if i < 0 {
			continue
		}
		body := prefix[i+len(key):]
		j := 0
		for j < len(body) && body[j] != '"' {
			step := 1
			if body[j] == '\\' {
				step = 2
				if j+1 < len(body) && body[j+1] == 'u' {
					step = 6
				}
			}
			if j+step > len(body) {
				break
			}
			j += step
		}
		complete = j < len(body) && body[j] == '"'
		if strings.Contains(key, "bytes") {
			raw := body[:j/4*4]
			out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
			m, _ := base64.StdEncoding.Decode(out, raw)
			return out[:m], complete
		}
		var s string
		quoted := append(append([]byte{'"'}, body[:j]...), '"')
		if json.Unmarshal(quoted, &s) != nil {
			return nil, false
		}
		return []byte(s), complete
	}
	return nil, false
}

// keyScan finds the numbers after "line_number": and then "start": in a
// message read in pieces. Neither key can occur inside a JSON string.
type keyScan struct {
	k       int // index of the key sought
	matched int // bytes of it matched so far
	inNum   bool
	num     int
	vals    []int
}

func newKeyScan() *keyScan { return &keyScan{} }

func (ks *keyScan) feed(p []byte) {
	scanKeys := [...]string{`"line_number":`, `"start":`}
	for _, c := range p {
		if ks.k >= len(scanKeys) {
			return
		}
		if ks.inNum {
			if c >= '0' && c <= '9' {
				ks.num = ks.num*10 + int(c-'0')
				continue
			}
			ks.vals = append(ks.vals, ks.num)
			ks.k, ks.matched, ks.num, ks.inNum = ks.k+1, 0, 0, false
			continue
		}
		key := scanKeys[ks.k]
		switch {
		case c == key[ks.matched]:
			ks.matched++
			ks.inNum = ks.matched == len(key)
		case c == '"':
			ks.matched = 1 // each key has quotes only at its ends
		default:
			ks.matched = 0
		}
	}
}
