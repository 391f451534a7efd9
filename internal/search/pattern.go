package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// matcher finds matching lines for the Go engine. Every match is confined to
// one line, as in ripgrep: the buffer is searched as a whole (no per-line
// work for lines that cannot match) and a candidate is checked against its
// own line.
type matcher struct {
	re  *regexp.Regexp // nil when the pattern is a plain literal
	lit finder         // the literal, or a string every match contains (may be empty)
}

// compile builds the matcher for p, rejecting what ripgrep rejects.
func compile(p *plan) (*matcher, error) {
	if p.literal {
		if strings.Contains(p.pattern, "\n") {
			return nil, newlineError(p.pattern)
		}
		if !p.fold {
			return &matcher{lit: newFinder([]byte(p.pattern), false)}, nil
		}
		return compileRegexp(p.pattern, "(?i)"+regexp.QuoteMeta(p.pattern))
	}
	// Parse the pattern as written first, so that error messages quote it
	// rather than the rewritten form.
	if _, err := syntax.Parse(p.pattern, syntax.Perl); err != nil {
		return nil, &PatternError{Pattern: p.pattern, Msg: regexpMessage(err)}
	}
	flags := "(?m)"
	if p.fold {
		flags = "(?mi)"
	}
	return compileRegexp(p.pattern, flags+unicodeClasses(p.pattern))
}

// compileRegexp compiles expr, which is pattern rewritten for Go.
func compileRegexp(pattern, expr string) (*matcher, error) {
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Msg: regexpMessage(err)}
	}
	if hasNewline(tree) {
		return nil, newlineError(pattern)
	}
	tree = tree.Simplify()
	if lit, ok := plainLiteral(tree); ok {
		return &matcher{lit: newFinder([]byte(lit), false)}, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Msg: regexpMessage(err)}
	}
	lit, fold := requiredLiteral(tree)
	return &matcher{re: re, lit: newFinder([]byte(lit), fold)}, nil
}

func newlineError(pattern string) error {
	return &PatternError{Pattern: pattern, Msg: `a line break ("\n") cannot be matched: matches never span lines`, LineBreak: true}
}

// regexpMessage drops Go's "error parsing regexp: " prefix, which the
// caller's own wording replaces.
func regexpMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// hasNewline reports whether re contains a literal line break, which
// ripgrep refuses outside multiline mode. Classes may contain one: a line
// never does, so they match the same either way.
func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasNewline(sub) {
			return true
		}
	}
	return false
}

// plainLiteral reports whether re matches exactly one case-sensitive string.
func plainLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || hasRuneError(re.Rune) {
			return "", false
		}
		return string(re.Rune), true
	case syntax.OpEmptyMatch:
		return "", true
	}
	return "", false
}

// requiredLiteral returns a string that every match of re contains, the
// rarest-looking it finds, or "" if it finds none. Searching for it with a [finder] skips
// most of a file without running the regexp at all. With fold set, the
// string is lower-case and may occur in any ASCII case: it comes from a
// case-insensitive part of the pattern.
func requiredLiteral(re *syntax.Regexp) (lit string, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		l, f, _ := literalOf(re)
		return l, f
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best, run piece
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				if l, f, whole := literalOf(sub); whole {
					run = run.join(piece{l, f})
					continue
				}
			}
			best, run = best.better(run), piece{}
			best = best.better(requiredPiece(sub))
		}
		best = best.better(run)
		return best.lit, best.fold
	}
	return "", false
}

func requiredPiece(re *syntax.Regexp) piece {
	l, f := requiredLiteral(re)
	return piece{l, f}
}

// piece is a required string and whether it is matched ignoring ASCII case.
type piece struct {
	lit  string
	fold bool
}

func (a piece) join(b piece) piece {
	if a.fold || b.fold {
		return piece{strings.ToLower(a.lit + b.lit), true}
	}
	return piece{a.lit + b.lit, false}
}

// better returns the piece that is likely to be rarer in text: the one
// whose rarest byte is rarer, then the longer.
func (a piece) better(b piece) piece {
	ra, rb := newFinder([]byte(a.lit), a.fold).rareRank(), newFinder([]byte(b.lit), b.fold).rareRank()
	if rb > ra || (rb == ra && len(b.lit) > len(a.lit)) {
		return b
	}
	return a
}

// literalOf returns the string an OpLiteral matches, or with whole false
// the longest part of it usable as a required string. A case-insensitive
// part is usable only when ASCII case is all its folding can change: not
// with k and s, which also match the Kelvin sign and the long s, nor with
// letters beyond ASCII.
func literalOf(re *syntax.Regexp) (lit string, fold, whole bool) {
	if hasRuneError(re.Rune) {
		return "", false, false
	}
	if re.Flags&syntax.FoldCase == 0 {
		return string(re.Rune), false, true
	}
	var best piece
	start := 0
	for i := 0; i <= len(re.Rune); i++ {
		if i < len(re.Rune) && asciiFold(re.Rune[i]) {
			continue
		}
		best = best.better(piece{strings.ToLower(string(re.Rune[start:i])), true})
		start = i + 1
	}
	return best.lit, true, len(best.lit) == len(re.Rune)
}

// asciiFold reports whether every rune that r matches case-insensitively
// is ASCII.
func asciiFold(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasRuneError reports whether runes hold U+FFFD, which Go's regexp also
// matches for an invalid byte: its UTF-8 form is then not a required string.
func hasRuneError(runes []rune) bool {
	for _, r := range runes {
		if r == utf8.RuneError {
			return true
		}
	}
	return false
}

// next finds the first matching line at or after pos, which is the start of
// a line in buf; buf ends at the end of a line. It returns the line's bounds (end excludes the "\n") and the
// 1-based column of the match.
func (m *matcher) next(buf []byte, pos int) (start, end, col int, ok bool) {
	if m.re == nil || len(m.lit.lit) > 0 {
		return m.nextByLiteral(buf, pos)
	}
	for pos < len(buf) {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil {
			return 0, 0, 0, false
		}
		s, e := pos+loc[0], pos+loc[1]
		if s == len(buf) && buf[s-1] == '\n' {
			return 0, 0, 0, false // an empty match after the last line, as (?m)^$ finds
		}
		start, end = lineAt(buf, s)
		if e <= end {
			return start, end, s - start + 1, true
		}
		// The match runs into the next line, which ripgrep never allows;
		// the line may still match on its own.
		if loc := m.re.FindIndex(buf[start:end]); loc != nil {
			return start, end, loc[0] + 1, true
		}
		pos = end + 1
	}
	return 0, 0, 0, false
}

// nextByLiteral finds lines holding m.lit and, for a regexp, checks them.
func (m *matcher) nextByLiteral(buf []byte, pos int) (start, end, col int, ok bool) {
	for pos < len(buf) {
		i := m.lit.index(buf[pos:])
		if i < 0 {
			return 0, 0, 0, false
		}
		start, end = lineAt(buf, pos+i)
		if m.re == nil {
			return start, end, pos + i - start + 1, true
		}
		if loc := m.re.FindIndex(buf[start:end]); loc != nil {
			return start, end, loc[0] + 1, true
		}
		pos = end + 1
	}
	return 0, 0, 0, false
}

// lineAt returns the bounds of the line holding offset i.
func lineAt(buf []byte, i int) (start, end int) {
	start = bytes.LastIndexByte(buf[:i], '\n') + 1
	end = bytes.IndexByte(buf[i:], '\n')
	if end < 0 {
		return start, len(buf)
	}
	return start, i + end
}
