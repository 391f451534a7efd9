package search

import (
	"github.com/anvil-dev/anvil/internal/workspace"

	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
)

// scanBufSize is the Go engine's read size. Most source files fit in one
// read; bigger files are searched a buffer at a time, so memory stays flat
// whatever their size (only a single line longer than the buffer grows it).
const scanBufSize = 256 << 10

// errBound stops a search that has counted as many matches as it may.
var errBound = errors.New("search: match bound reached")

// scanner searches one file at a time for the Go engine. Each worker owns
// one, and its buffer is reused from file to file.
type scanner struct {
	m       *matcher
	context int
	buf     []byte
	b       fileBuilder
	counted *atomic.Int64 // matches counted by every worker of the search
	bound   int64
	told    int // matches of the current file already added to counted

	// Per file: the last line handed to the builder, and the line through
	// which after-context is still wanted.
	emitted    int
	afterUntil int
}

func newScanner(m *matcher, p *plan, counted *atomic.Int64, bound int) *scanner {
	return &scanner{
		m:       m,
		context: p.context,
		b:       fileBuilder{limit: p.maxResults, context: p.context},
		counted: counted,
		bound:   int64(bound),
	}
}

// fileResult is what one file contributes to a search.
type fileResult struct {
	matches []Match
	count   int
}

// file searches the file at rel in root. A file that cannot be read (or
// opened inside the root) contributes nothing, as in ripgrep with
// --no-messages.
func (s *scanner) file(ctx context.Context, root *workspace.Root, rel string) (fileResult, error) {
	f, err := openFile(root, rel)
	if err != nil {
		return fileResult{}, nil
	}
	defer f.Close()
	return s.read(ctx, f, rel)
}

// read searches what r holds. A read error, or a NUL byte (a binary file),
// leaves nothing. The error is errBound when the search as a whole should
// stop, with the matches found so far, or ctx's error.
func (s *scanner) read(ctx context.Context, r io.Reader, rel string) (fileResult, error) {
	s.b.reset(rel)
	s.emitted, s.afterUntil, s.told = 0, 0, 0
	if cap(s.buf) > 4*scanBufSize || s.buf == nil {
		s.buf = make([]byte, scanBufSize) // drop a buffer grown for one huge line
	}
	binary, err := s.scan(ctx, r)
	switch {
	case err == errBound:
	case ctx.Err() != nil:
		return fileResult{}, ctx.Err()
	case binary || err != nil:
		return fileResult{}, nil
	}
	return fileResult{matches: s.b.matches, count: s.b.count}, err
}

// scan reads f a buffer at a time and searches the complete lines of each,
// keeping the last context lines before the unsearched rest so that a match
// at the start of the next buffer can show them.
func (s *scanner) scan(ctx context.Context, f io.Reader) (binary bool, err error) {
	buf := s.buf
	n := 0     // bytes held in buf
	start := 0 // first unsearched byte; earlier bytes are look-behind lines
	line := 1  // number of the line starting at start
	counting := false
	for eof := false; !eof; {
		if n == len(buf) {
			bigger := make([]byte, 2*len(buf))
			copy(bigger, buf[:n])
			buf, s.buf = bigger, bigger
		}
		for n < len(buf) {
			k, rerr := f.Read(buf[n:])
			if bytes.IndexByte(buf[n:n+k], 0) >= 0 {
				return true, nil
			}
			n += k
			if rerr == io.EOF {
				eof = true
				break
			}
			if rerr != nil {
				return false, rerr
			}
		}
		end := n
		if !eof {
			nl := bytes.LastIndexByte(buf[start:n], '\n')
			if nl < 0 {
				continue // one line fills the buffer: grow it
			}
			end = start + nl + 1
		}
		if counting {
			s.countRest(buf[:end], start)
		} else {
			line, counting = s.region(buf[:end], start, line)
		}
		if err := s.report(); err != nil {
			return false, err
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if s.b.count >= FileMatchBound {
			return false, nil // as far as rg's --max-count lets it read
		}
		keep := end
		for i := 0; i < s.context && keep > 0; i++ {
			keep = bytes.LastIndexByte(buf[:keep-1], '\n') + 1
		}
		n = copy(buf, buf[keep:n])
		start = end - keep
	}
	return false, nil
}

// region searches the complete lines in buf[start:], the first of which is
// number line, and returns the number of the line after them. counting is
// true once the file has all the matches it can keep and owes no more
// context: from then on its matches need only be counted.
func (s *scanner) region(buf []byte, start, line int) (next int, counting bool) {
	pos := start
	cur, curLine := start, line // a line start and its number
	afterOff := start           // start of line s.emitted+1 while after-context is owed
	for pos < len(buf) {
		if s.b.full() && s.emitted >= s.afterUntil {
			s.countRest(buf, pos)
			return 0, true
		}
		ls, le, col, ok := s.m.next(buf, pos)
		if !ok {
			break
		}
		curLine += bytes.Count(buf[cur:ls], []byte{'\n'})
		cur = ls
		s.flushAfter(buf, &afterOff, ls)
		s.emitBefore(buf, ls, curLine)
		s.b.addMatch(curLine, col, buf[ls:le])
		s.emitted = curLine
		if s.b.count == len(s.b.matches) { // kept: its after-context is wanted
			s.afterUntil = curLine + s.context
		}
		afterOff = le + 1
		pos = le + 1
	}
	s.flushAfter(buf, &afterOff, len(buf))
	return curLine + bytes.Count(buf[cur:], []byte{'\n'}), false
}

// emitBefore hands the builder the context lines before the match at ls,
// number line, that it has not had yet.
func (s *scanner) emitBefore(buf []byte, ls, line int) {
	from := max(line-s.context, s.emitted+1, 1)
	p := ls
	steps := 0
	for ; steps < line-from && p > 0; steps++ {
		p = bytes.LastIndexByte(buf[:p-1], '\n') + 1
	}
	for k := line - steps; k < line; k++ {
		e := p + bytes.IndexByte(buf[p:ls], '\n')
		s.b.addContext(k, buf[p:e])
		p = e + 1
	}
}

// flushAfter hands the builder the after-context lines owed that start at
// *off and lie before limit.
func (s *scanner) flushAfter(buf []byte, off *int, limit int) {
	for s.emitted < s.afterUntil && *off < limit {
		e := bytes.IndexByte(buf[*off:limit], '\n')
		end := limit
		if e >= 0 {
			end = *off + e
		}
		s.emitted++
		s.b.addContext(s.emitted, buf[*off:end])
		*off = end + 1
	}
}

// countRest counts the matching lines of buf[pos:] without looking at them,
// up to FileMatchBound for the file (rg's --max-count).
func (s *scanner) countRest(buf []byte, pos int) {
	for pos < len(buf) && s.b.count < FileMatchBound {
		_, le, _, ok := s.m.next(buf, pos)
		if !ok {
			return
		}
		s.b.count++
		pos = le + 1
	}
}

// report adds the file's new matches to the search's count and says whether
// the search must stop.
func (s *scanner) report() error {
	if d := s.b.count - s.told; d > 0 {
		s.told = s.b.count
		if s.counted.Add(int64(d)) >= s.bound {
			return errBound
		}
	}
	return nil
}
