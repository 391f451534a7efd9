package batch

import (
	"maps"
	"slices"
	"testing"
)

// After a changed-tree run, the files whose build may be of other than
// the disk's content: a run that built every unit leaves its own
// changes only; any other keeps every file it rewrote.
func TestSettleKeepsWhatMayBeBuiltFromAChange(t *testing.T) {
	for _, tc := range []struct {
		name     string
		before   []string
		changes  []string
		complete bool
		want     []string
	}{
		{"a first run", nil, []string{"a.rs"}, true, []string{"a.rs"}},
		{"a complete run rebuilt the earlier change from the disk", []string{"a.rs"}, []string{"b.rs"}, true, []string{"b.rs"}},
		{"a stopped run may not have", []string{"a.rs"}, []string{"b.rs"}, false, []string{"a.rs", "b.rs"}},
		{"the same file again", []string{"a.rs"}, []string{"a.rs"}, true, []string{"a.rs"}},
		{"a complete run of no change", []string{"a.rs", "b.rs"}, nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Checker{written: map[string]bool{}}
			for _, p := range tc.before {
				c.written[p] = true
			}
			var changes []Change
			for _, p := range tc.changes {
				changes = append(changes, Change{Path: p, Content: []byte("x")})
			}
			c.settle(changes, tc.complete)
			if got := slices.Sorted(maps.Keys(c.written)); !slices.Equal(got, tc.want) {
				t.Errorf("written %v, want %v", got, tc.want)
			}
		})
	}
}
