package reach

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/tsdecl"
)

// The emit is asked about a file within the size bound whose last emit
// was not far from complete; one far from complete is asked about again
// after retryAfter changes, and from then on while it is complete.
func TestTheEmitIsAskedWhereItMayNarrow(t *testing.T) {
	small := []byte("export const a: number = 1;\n")
	large := []byte(strings.Repeat("export const a: number = 1;\n", maxEmitBytes/20))
	tests := []struct {
		name    string
		base    []byte
		content []byte
		learned []int // diagnostics of earlier emits of the file, in order
		want    bool
	}{
		{"a small file", small, small, nil, true},
		{"a file above the bound before the change", large, small, nil, false},
		{"a file above the bound after the change", small, large, nil, false},
		{"one export needing inference last time", small, small, []int{1}, true},
		{"many exports needing inference last time", small, small, []int{farFromComplete}, false},
		{"complete again since", small, small, []int{farFromComplete + 5, 0}, true},
	}
	var odds emitOdds
	odds.learn("src/a.ts", tsdecl.Result{Diagnostics: farFromComplete})
	c := &changeset.Change{Path: "src/a.ts", Base: small, BaseExists: true, Content: small}
	for i := 0; i < retryAfter; i++ {
		if odds.worthAsking(c) {
			t.Fatalf("asked again after %d changes, want %d", i, retryAfter)
		}
	}
	if !odds.worthAsking(c) {
		t.Fatalf("not asked again after %d changes", retryAfter)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var odds emitOdds
			for _, n := range tt.learned {
				odds.learn("src/a.ts", tsdecl.Result{Complete: n == 0, Diagnostics: n})
			}
			c := &changeset.Change{Path: "src/a.ts", Base: tt.base, BaseExists: true, Content: tt.content}
			if got := odds.worthAsking(c); got != tt.want {
				t.Errorf("worthAsking = %v, want %v", got, tt.want)
			}
		})
	}
}
