// Package depfile reads make-style dependency files: what a compiler
// writes to say which files it read for an output (cargo's dep-info,
// target/<profile>/deps/*.d; a C compiler's -MD -MF). They are the
// checkers' own record of their inputs, which package reach takes as
// facts over any list of Anvil's.
package depfile

import (
	"errors"
	"strings"
)

// Rule is one rule of a dependency file: its targets (the outputs) and
// prerequisites (the files read to make them).
type Rule struct {
	Targets, Prereqs []string
}

// ErrNotDepfile says the text is not a dependency file: a line with
// words that is neither a comment nor a rule.
var ErrNotDepfile = errors.New("not a make-style dependency file")

// Parse reads a dependency file. Continuation lines (a backslash before
// the newline) join; "#" starts a comment (cargo's "# env-dep:" lines);
// in a path, "\ " is a space, "\#" a "#", "$$" a "$", and any other
// backslash is itself (a Windows path). A rule's colon is the first one
// followed by a blank or the line's end, so "C:\x" stays a path. A file
// whose lines are not all rules, comments or blank is refused whole:
// half a list of inputs would be read as all of them.
func Parse(data []byte) ([]Rule, error) {
	var rules []Rule
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\\\n", " ")
	for line := range strings.SplitSeq(text, "\n") {
		words := split(line)
		if len(words) == 0 {
			continue
		}
		var r Rule
		colon := false
		for _, w := range words {
			switch {
			case colon:
				r.Prereqs = append(r.Prereqs, w.text)
			case w.colon:
				colon = true
				if w.text != "" {
					r.Targets = append(r.Targets, w.text)
				}
			default:
				r.Targets = append(r.Targets, w.text)
			}
		}
		if !colon || len(r.Targets) == 0 {
			return nil, ErrNotDepfile
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Prereqs returns every prerequisite of the rules, each once, in order.
func Prereqs(rules []Rule) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rules {
		for _, p := range r.Prereqs {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// word is a path of a line; colon marks the word that ends the targets
// (its text is what came before the colon, maybe nothing).
type word struct {
	text  string
	colon bool
}

// split returns the words of one logical line, up to a comment.
func split(line string) []word {
	var out []word
	var cur strings.Builder
	have := false
	flush := func(colon bool) {
		if have || colon {
			out = append(out, word{text: cur.String(), colon: colon})
		}
		cur.Reset()
		have = false
	}
	seenColon := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\\' && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '#' || line[i+1] == '\t'):
			cur.WriteByte(line[i+1])
			have = true
			i++
		case ch == '$' && i+1 < len(line) && line[i+1] == '$':
			cur.WriteByte('$')
			have = true
			i++
		case ch == '#':
			flush(false)
			return out
		case ch == ' ' || ch == '\t':
			flush(false)
		case ch == ':' && !seenColon && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t'):
			seenColon = true
			flush(true)
		default:
			cur.WriteByte(ch)
			have = true
		}
	}
	flush(false)
	return out
}

// Escape writes p as a dependency file names it, for tests and tools
// that write one.
func Escape(p string) string {
	r := strings.NewReplacer(" ", "\\ ", "\t", "\\\t", "#", "\\#", "$", "$$")
	return r.Replace(p)
}
