package search

import "strings"

// Unicode forms of the Perl classes. ripgrep's \d, \s and \w are
// Unicode-aware while Go's are ASCII-only, so the Go engine rewrites them:
// \d is the decimal digits, \s the White_Space property, \w an approximation
// of Unicode's word characters (letters, letter numbers, marks, digits,
// connectors and the joiners; Go has no Alphabetic property). \b stays ASCII:
// Go cannot express a Unicode word boundary.
const (
	uniDigit = `\p{Nd}`
	uniSpace = `\t-\r \x{85}\p{Z}`
	uniWord  = `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}`
)

// unicodeClasses rewrites the Perl classes in pattern to their Unicode forms.
// It tracks escapes, bracket classes and \Q...\E quoting so that only real
// class escapes change. A negated class inside brackets ([\W_]) cannot be
// written in Go's syntax and stays ASCII.
func unicodeClasses(pattern string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			n := pattern[i+1]
			if rep, ok := perlClass(n, inClass); ok {
				b.WriteString(rep)
				i++
				continue
			}
			if n == 'Q' && !inClass {
				end := strings.Index(pattern[i+2:], `\E`)
				if end < 0 {
					b.WriteString(pattern[i:])
					return b.String()
				}
				b.WriteString(pattern[i : i+2+end+2])
				i += 2 + end + 1
				continue
			}
			b.WriteByte(c)
			b.WriteByte(n)
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A leading ^ negates and a leading ] is a literal: both are
			// part of the opening, not the class's end.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && strings.HasPrefix(pattern[i:], "[:"):
			end := strings.Index(pattern[i+2:], ":]")
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(pattern[i : i+2+end+2])
			i += 2 + end + 1
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// perlClass returns the Unicode replacement for the escape \n, or false to
// keep it as written.
func perlClass(n byte, inClass bool) (string, bool) {
	switch n {
	case 'd':
		return uniDigit, true
	case 'D':
		return `\P{Nd}`, true
	case 's':
		return bracket(uniSpace, inClass), true
	case 'w':
		return bracket(uniWord, inClass), true
	case 'S':
		return `[^` + uniSpace + `]`, !inClass
	case 'W':
		return `[^` + uniWord + `]`, !inClass
	}
	return "", false
}

func bracket(items string, inClass bool) string {
	if inClass {
		return items
	}
	return "[" + items + "]"
}
