package compiledb

import (
	"regexp"
	"strings"
)

// The preprocessor finds a directive only after translation phases 1–3
// (C11 5.1.1.2): a backslash before a newline joins two lines, a
// comment is one space, and `%:` (a digraph, always on) or `??=` (a
// trigraph, on under gcc's ISO modes such as -std=c11) spells `#`. So
// `/* the types */ #include "x.h"`, `%:include "x.h"` and
// `#inc\<newline>lude "x.h"` are includes, which a reading of raw lines
// misses (measured: gcc -M lists x.h for each). IncludeSpecs reads both
// the raw lines and the lines after those phases, and takes every
// include either finds: a reading that is wrong about a phase (a raw
// string literal holding "/*") can only add an include, never hide one
// the raw lines show.

// includeLine matches an #include (#include_next, #import) directive;
// group 1 is what follows it.
var includeLine = regexp.MustCompile(`(?m)^[ \t\f\v]*(?:#|%:)[ \t\f\v]*(?:include|include_next|import)\b[ \t\f\v]*([^\n]*)`)

// IncludeSpecs returns src's includes, each "x.h" or <x.h> with its
// delimiters, or the directive's text when it names no file (a macro).
func IncludeSpecs(src []byte) []string {
	var out []string
	seen := map[string]bool{}
	// gcc and clang skip a UTF-8 byte order mark before the first line
	// (measured: gcc -M lists the first line's include).
	text := strings.TrimPrefix(string(src), "\ufeff")
	for _, text := range []string{text, phased(text)} {
		for _, m := range includeLine.FindAllStringSubmatch(text, -1) {
			spec := includeSpec(m[1])
			if !seen[spec] {
				seen[spec] = true
				out = append(out, spec)
			}
		}
	}
	return out
}

// includeSpec reduces a directive's operand to "x.h" or <x.h>, or returns
// it trimmed when it is neither.
func includeSpec(rest string) string {
	rest = strings.TrimSpace(rest)
	if len(rest) > 0 {
		closer := map[byte]byte{'"': '"', '<': '>'}[rest[0]]
		if closer != 0 {
			if i := strings.IndexByte(rest[1:], closer); i >= 0 {
				return rest[:i+2]
			}
		}
	}
	return rest
}

// directiveTrigraphs are the trigraphs a directive can be spelled with:
// ??= for # and ??/ for the backslash of a line splice.
var directiveTrigraphs = strings.NewReplacer("??=", "#", "??/", `\`)

// splice is a line splice: a backslash, blanks gcc allows before the
// newline (with a warning), and the newline.
var splice = regexp.MustCompile(`\\[ \t\f\v]*\r?\n`)

// phased returns src after translation phases 1–3 as far as directives
// need them: trigraphs ??= and ??/ read as # and \, line splices
// joined, each comment one space. A string or character literal ends at
// its line's end at the latest, so a quote the reading takes wrongly
// misleads it for one line.
func phased(src string) string {
	src = directiveTrigraphs.Replace(src)
	src = splice.ReplaceAllString(src, "")
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return b.String() + " "
			}
			b.WriteByte(' ')
			i += 2 + end + 2
		case strings.HasPrefix(src[i:], "//"):
			b.WriteByte(' ')
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				return b.String()
			}
			i += end
		case c == '"' || c == '\'':
			j := literalEnd(src, i)
			b.WriteString(src[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// literalEnd returns the index after the string or character literal
// that starts at src[i]: its closing quote, or its line's end.
func literalEnd(src string, i int) int {
	quote := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if j+1 < len(src) && src[j+1] != '\n' {
				j++
			}
		case quote:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(src)
}
