package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

// TestScannerBuffers checks the Go engine's buffer-at-a-time scan against a
// line-by-line reference, with buffers small enough that lines, matches and
// context cross buffer boundaries everywhere.
func TestSearchScannerBuffers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	patterns := []string{"ab", `a+b`, `^b`, `b$`, `x*`, `a.{0,3}b`, `\s+b`, `^$`, `^ *$`, `$`}
	for round := range 300 {
		content := randomText(rng)
		pattern := patterns[round%len(patterns)]
		p := &plan{pattern: pattern, maxResults: 1 + rng.IntN(6), context: rng.IntN(4)}
		m, err := compile(p)
		if err != nil {
			t.Fatal(err)
		}
		want := referenceScan(regexp.MustCompile(pattern), content, p)
		for _, size := range []int{1, 2, 3, 7, 16, 64, scanBufSize} {
			var counted atomic.Int64
			sc := newScanner(m, p, &counted, 1<<30)
			sc.buf = make([]byte, size)
			var r = bytes.NewReader(content)
			got, err := sc.read(context.Background(), iotest.HalfReader(r), "f")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("pattern %q, context %d, limit %d, buffer %d, text %q:\n got %s\nwant %s",
					pattern, p.context, p.maxResults, size, content, jsonOf(got.matches), jsonOf(want.matches))
			}
		}
	}
}

func randomText(rng *rand.Rand) []byte {
	var b bytes.Buffer
	for range rng.IntN(30) {
		for range rng.IntN(8) {
			b.WriteByte("ab x"[rng.IntN(4)])
		}
		b.WriteByte('\n')
	}
	if rng.IntN(2) == 0 {
		b.WriteString("ab") // no final newline
	}
	return b.Bytes()
}

// referenceScan feeds a fileBuilder one line at a time, the obvious way.
func referenceScan(re *regexp.Regexp, content []byte, p *plan) fileResult {
	lines := bytes.Split(content, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	cols := make([]int, len(lines))
	for i, l := range lines {
		if loc := re.FindIndex(l); loc != nil {
			cols[i] = loc[0] + 1
		}
	}
	near := func(i int) bool {
		for j := max(i-p.context, 0); j <= min(i+p.context, len(lines)-1); j++ {
			if cols[j] > 0 {
				return true
			}
		}
		return false
	}
	b := fileBuilder{limit: p.maxResults, context: p.context}
	b.reset("f")
	for i, l := range lines {
		switch {
		case cols[i] > 0:
			b.addMatch(i+1, cols[i], l)
		case near(i):
			b.addContext(i+1, l)
		}
	}
	return fileResult{matches: b.matches, count: b.count}
}

func TestSearchScannerBinary(t *testing.T) {
	for _, content := range []string{"hit\x00", "hit\n" + string(bytes.Repeat([]byte("x\n"), 1000)) + "\x00"} {
		m, _ := compile(&plan{pattern: "hit"})
		var counted atomic.Int64
		sc := newScanner(m, &plan{maxResults: 10}, &counted, 100)
		sc.buf = make([]byte, 64)
		got, err := sc.read(context.Background(), bytes.NewReader([]byte(content)), "f")
		if err != nil || got.count != 0 || got.matches != nil {
			t.Errorf("%q: got %+v, %v; want nothing", fmt.Sprintf("%.20s", content), got, err)
		}
	}
}
