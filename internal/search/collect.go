package search

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Lines longer than clipWidth bytes are shown as a window of that size
// starting about clipLead bytes before the match: enough to read the code
// around it, while a minified file cannot flood the answer.
const (
	clipWidth = 300
	clipLead  = 100
)

// fileBuilder turns the stream of matching and context lines of one file,
// in line order, into Matches. Both engines feed it, so they agree on how
// context lines are shared out. Only the first limit matches of a file can
// be among the first limit of the whole search (results are sorted by path,
// then line), so later ones are only counted.
type fileBuilder struct {
	limit   int
	context int
	path    string
	matches []Match
	count   int
	pending []Line // context lines since the last match: before-context candidates
}

func (b *fileBuilder) reset(path string) {
	b.path = path
	b.matches = nil
	b.count = 0
	b.pending = b.pending[:0]
}

// full reports whether the file has all the matches it can keep.
func (b *fileBuilder) full() bool { return len(b.matches) >= b.limit }

// wantsContext reports whether a context line arriving now would be kept:
// before the file is full, or as after-context of its last kept match.
func (b *fileBuilder) wantsContext() bool { return !b.full() || b.count == len(b.matches) }

// addMatch records a matching line; col is 1-based.
func (b *fileBuilder) addMatch(line, col int, text []byte) {
	b.count++
	if b.full() {
		b.pending = b.pending[:0]
		return
	}
	m := Match{Path: b.path, Line: line, Column: col, Text: clip(text, col-1)}
	for _, l := range b.pending {
		if l.Number >= line-b.context && l.Number < line {
			m.Before = append(m.Before, l)
		}
	}
	b.pending = b.pending[:0]
	b.matches = append(b.matches, m)
}

// addContext records a context line.
func (b *fileBuilder) addContext(line int, text []byte) {
	if n := len(b.matches); n > 0 && b.count == n {
		last := &b.matches[n-1]
		if line > last.Line && line <= last.Line+b.context {
			last.After = append(last.After, Line{Number: line, Text: clip(text, 0)})
			return
		}
	}
	if b.full() || b.context == 0 {
		return
	}
	if len(b.pending) == b.context {
		b.pending = append(b.pending[:0], b.pending[1:]...)
	}
	b.pending = append(b.pending, Line{Number: line, Text: clip(text, 0)})
}

// collector gathers per-file results into the final answer. It keeps only
// candidates for the first limit matches, so its memory does not grow with
// the number of matches found. It is used from one goroutine.
type collector struct {
	limit   int
	kept    []Match
	worst   string // once kept is full: the path of its last match
	total   int
	files   int
	stopped bool // the search reached its match bound
	capped  bool // a file reached FileMatchBound
}

func newCollector(limit int) *collector { return &collector{limit: limit} }

// add records one file's matches (at most limit of them) and its count of
// matching lines.
func (c *collector) add(matches []Match, count int) {
	if count == 0 {
		return
	}
	if count >= FileMatchBound {
		c.capped = true
	}
	c.total += count
	c.files++
	c.kept = append(c.kept, matches...)
	if len(c.kept) >= 2*c.limit {
		c.compact()
	}
}

// wants reports whether a file at path could have matches among the first
// limit; when not, its matches need only be counted.
func (c *collector) wants(path string) bool {
	return c.worst == "" || path <= c.worst
}

func (c *collector) compact() {
	slices.SortFunc(c.kept, func(a, b Match) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	if len(c.kept) >= c.limit {
		clear(c.kept[c.limit:]) // let the dropped texts be collected
		c.kept = c.kept[:c.limit]
		c.worst = c.kept[c.limit-1].Path
	}
}

func (c *collector) finish(res *Result) {
	c.compact()
	res.Matches = c.kept
	if res.Matches == nil {
		res.Matches = []Match{}
	}
	res.TotalMatches = c.total
	res.TotalFiles = c.files
	res.Truncated = c.total > len(c.kept)
	res.Stopped = c.stopped
	res.Capped = c.capped
}

// clip returns line as valid UTF-8 without its "\r", cut to a window around
// byte offset at when it is long.
func clip(line []byte, at int) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) <= clipWidth {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	start := min(max(at-clipLead, 0), len(line)-clipWidth)
	end := start + clipWidth
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	var s strings.Builder
	if start > 0 {
		s.WriteString("…")
	}
	s.WriteString(strings.ToValidUTF8(string(line[start:end]), "\uFFFD"))
	if end < len(line) {
		s.WriteString("…")
	}
	return s.String()
}
