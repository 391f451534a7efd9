package compiledb

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxResponseFile bounds a response file read, and maxResponseDepth the
// response files one names in turn.
const (
	maxResponseFile  = 1 << 20
	maxResponseDepth = 8
)

// withResponseFiles returns args with each @file replaced by the words it
// holds, as gcc reads them (reading is not running: the compiler they are
// for runs only as the policy allows). A response file outside the
// compilation's directory, unreadable, past its bound or too deep stays
// as it was, and searchUnread says so.
func (c Command) withResponseFiles(args []string, depth int) []string {
	var out []string
	for _, a := range args {
		words, ok := c.responseFile(a, depth)
		if !ok {
			out = append(out, a)
			continue
		}
		out = append(out, c.withResponseFiles(words, depth+1)...)
	}
	return out
}

// responseFile reads the words of the response file a names, if it is one
// that may be read.
func (c Command) responseFile(a string, depth int) ([]string, bool) {
	if !strings.HasPrefix(a, "@") || len(a) == 1 || depth >= maxResponseDepth {
		return nil, false
	}
	p := a[1:]
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Dir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	dir, derr := filepath.EvalSymlinks(c.Dir)
	if err != nil || derr != nil || !strings.HasPrefix(real, dir+string(filepath.Separator)) {
		return nil, false
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxResponseFile+1))
	if err != nil || len(data) > maxResponseFile {
		return nil, false
	}
	return responseFileWords(string(data)), true
}

// responseFileWords splits a response file into words as gcc does, which
// is not as a shell does: whitespace (a carriage return and a form feed
// too) ends a word outside quotes; a backslash takes the next character
// as it is, inside single or double quotes as well, a newline included
// (no line continuation); quotes group and are dropped; a quote left open
// runs to the end of the file. A file of whitespace alone holds no words.
// TestResponseFileWordsAreGCCs holds this against gcc itself.
func responseFileWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord, escaped := false, false
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case escaped:
			cur.WriteByte(ch)
			escaped = false
		case ch == '\\':
			escaped, inWord = true, true
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case isResponseSpace(ch):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// isResponseSpace reports whether gcc takes ch as space between the words
// of a response file (C's isspace in the C locale).
func isResponseSpace(ch byte) bool {
	switch ch {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
