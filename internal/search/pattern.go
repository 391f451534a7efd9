package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
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
			return &matcher{lit: newFinder([]byte(p.pattern))}, nil
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
		return &matcher{lit: newFinder([]byte(lit))}, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Msg: regexpMessage(err)}
	}
	return &matcher{re: re, lit: newFinder([]byte(requiredLiteral(tree)))}, nil
}

func newlineError(pattern string) error {
	return &PatternError{Pattern: pattern, Msg: `a line break ("\n") cannot be matched: matches never span lines`}
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

// requiredLiteral returns the longest case-sensitive string that every match
// of re contains, or "" if it finds none. Searching for it with bytes.Index
// skips most of a file without running the regexp at all.
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		lit, _ := plainLiteral(re)
		return lit
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, sub := range re.Sub {
			if lit, ok := plainLiteral(sub); ok && sub.Op == syntax.OpLiteral {
				run += lit
				continue
			}
			best = longer(best, run)
			run = ""
			best = longer(best, requiredLiteral(sub))
		}
		return longer(best, run)
	}
	return ""
}

func longer(a, b string) string {
	if len(b) > len(a) {
		return b
	}
	return a
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
