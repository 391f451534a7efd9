package search

import (
	"bytes"
	"strings"
)

// finder looks for one literal string. Rather than bytes.Index, which scans
// for the string's first byte and gets nowhere when that byte is common in
// code ("e" of errors.New), it scans for the rarest-looking byte of the
// string and checks the whole string around each hit, as ripgrep does.
// With fold set, letters match in either ASCII case.
type finder struct {
	lit  []byte // lower-case when fold is set
	fold bool
	rare int // index in lit of the byte scanned for
}

func newFinder(lit []byte, fold bool) finder {
	f := finder{lit: lit, fold: fold}
	if fold {
		f.lit = bytes.ToLower(lit)
	}
	for i := range f.lit {
		if f.rank(f.lit[i]) > f.rank(f.lit[f.rare]) {
			f.rare = i
		}
	}
	return f
}

// rareRank returns the rank of the byte f scans for (see byteRank); -1 for
// an empty literal.
func (f finder) rareRank() int {
	if len(f.lit) == 0 {
		return -1
	}
	return f.rank(f.lit[f.rare])
}

func (f finder) rank(c byte) int {
	if f.fold && c >= 'a' && c <= 'z' {
		return min(byteRank(c), byteRank(c-'a'+'A'))
	}
	return byteRank(c)
}

// index returns the offset of the first occurrence of f.lit in s, or -1.
func (f finder) index(s []byte) int {
	n := len(f.lit)
	if n < 2 && !f.fold {
		return bytes.Index(s, f.lit)
	}
	if n == 0 {
		return 0
	}
	lower := f.lit[f.rare]
	upper := lower
	if f.fold && lower >= 'a' && lower <= 'z' {
		upper = lower - 'a' + 'A'
	}
	// nextLower and nextUpper cache where each case of the byte occurs next,
	// so that a common case does not make the search rescan for a rare one.
	nextLower, nextUpper := -2, -2
	for pos := f.rare; pos < len(s); {
		if nextLower != -1 && nextLower < pos {
			nextLower = indexFrom(s, pos, lower)
		}
		if upper != lower && nextUpper != -1 && nextUpper < pos {
			nextUpper = indexFrom(s, pos, upper)
		}
		i := nextLower
		if upper != lower && nextUpper >= 0 && (i < 0 || nextUpper < i) {
			i = nextUpper
		}
		if i < 0 {
			return -1
		}
		start := i - f.rare
		if start+n > len(s) {
			return -1
		}
		if f.equal(s[start : start+n]) {
			return start
		}
		pos = i + 1
	}
	return -1
}

// indexFrom returns the offset in s of the first c at or after pos, or -1.
func indexFrom(s []byte, pos int, c byte) int {
	if i := bytes.IndexByte(s[pos:], c); i >= 0 {
		return pos + i
	}
	return -1
}

func (f finder) equal(b []byte) bool {
	if !f.fold {
		return bytes.Equal(b, f.lit)
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != f.lit[i] {
			return false
		}
	}
	return true
}

// commonBytes lists bytes from the most to the least common in source
// code, roughly. byteRank uses it to pick the byte a finder scans for; any
// choice is correct, a rare one is faster.
const commonBytes = " \te\ntrnioasl\rcdu.()pmf\",gh=b/_y{}:vkw*x;SETRNCIA0O1-2D'LP[]FM&<>!+#|3456789BGHUVWXYZJKQ%?@^~$\\`"

// byteRank returns how rare c is likely to be; higher is rarer.
func byteRank(c byte) int {
	if i := strings.IndexByte(commonBytes, c); i >= 0 {
		return i
	}
	return len(commonBytes)
}
