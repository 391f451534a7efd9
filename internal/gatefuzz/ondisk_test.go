package gatefuzz

import (
	"slices"
	"testing"
)

// Errors already on disk come in rounds of their own: none in the first
// block of a campaign's trials, some in the second, for every language
// that writes them; Rust writes none (cargo's run over the fuzzer's
// workspace would be incomplete for every project of the round).
func TestErrorsOnDiskComeInTheirRounds(t *testing.T) {
	for _, l := range []Language{TS{}, Python{}, Go{}, C{}, Rust{}} {
		count := func(from int) int {
			n := 0
			for i := from; i < from+onDiskBlock; i++ {
				if slices.Contains(Generate(l, 11, i).Tags, l.Name()+"/error-on-disk") {
					n++
				}
			}
			return n
		}
		first, second := count(0), count(onDiskBlock)
		if n := l.Name(); n == "ts" || n == "go" || n == "py" {
			unparsed := 0
			for i := onDiskBlock; i < 2*onDiskBlock; i++ {
				if slices.Contains(Generate(l, 11, i).Tags, n+"/unparsed-file-on-disk") {
					unparsed++
				}
			}
			if unparsed == 0 {
				t.Errorf("%s: no trial of the second block holds a file that does not parse", n)
			}
		}
		if first != 0 {
			t.Errorf("%s: %d trials of the first block hold an error on disk", l.Name(), first)
		}
		if _, writes := l.(Rust); writes {
			if second != 0 {
				t.Errorf("rust: %d trials hold an error on disk", second)
			}
		} else if second == 0 {
			t.Errorf("%s: no trial of the second block holds an error on disk", l.Name())
		}
	}
}
