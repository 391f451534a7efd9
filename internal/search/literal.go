package search

import (
	"bytes"
	"strings"
)

// finder looks for one literal string. Rather than bytes.Index, which scans
// for the string's first byte and gets nowhere when that byte is common in
// code ("e" of errors.New), it scans for the rarest-looking byte of the
// string and checks the whole string around each hit, as ripgrep does.
type finder struct {
	lit  []byte
	rare int // index in lit of the byte scanned for
}

func newFinder(lit []byte) finder {
	f := finder{lit: lit}
	for i := range lit {
		if byteTier(lit[i]) > byteTier(lit[f.rare]) {
			f.rare = i
		}
	}
	return f
}

// index returns the offset of the first occurrence of f.lit in s, or -1.
func (f finder) index(s []byte) int {
	n := len(f.lit)
	if n < 2 {
		return bytes.Index(s, f.lit)
	}
	c := f.lit[f.rare]
	for pos := f.rare; pos < len(s); {
		i := bytes.IndexByte(s[pos:], c)
		if i < 0 {
			return -1
		}
		start := pos + i - f.rare
		if start+n > len(s) {
			return -1
		}
		if bytes.Equal(s[start:start+n], f.lit) {
			return start
		}
		pos += i + 1
	}
	return -1
}

// byteTier ranks how rare a byte is in source code and prose, from 0 (very
// common) to 3. It is a rough, fixed guess; any choice is correct, some are
// faster.
func byteTier(c byte) int {
	switch {
	case c == ' ' || c == '\t' || c == '\n':
		return 0
	case c >= 'a' && c <= 'z':
		if strings.IndexByte("etaoinsrhldcu", c) >= 0 {
			return 0
		}
		return 1
	case c == '.' || c == ',' || c == '(' || c == ')' || c == ';' || c == '"' ||
		c == '/' || c == '=' || c == '*' || c == '_' || c == '-' || c == '\'':
		return 1
	case c < 0x80:
		return 2
	default:
		return 3
	}
}
