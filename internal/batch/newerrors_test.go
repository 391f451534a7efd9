package batch

import (
	"slices"
	"testing"
)

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after []string
		want          []string
	}{
		{"none before", nil, []string{"a.ts: 2322: x"}, []string{"a.ts: 2322: x"}},
		{"kept", []string{"a.ts: 2322: x"}, []string{"a.ts: 2322: x"}, nil},
		{"fixed", []string{"a.ts: 2322: x"}, nil, nil},
		{"a second identical one is new", []string{"a.ts: 2322: x"}, []string{"a.ts: 2322: x", "a.ts: 2322: x"}, []string{"a.ts: 2322: x"}},
		{"another file", []string{"a.ts: 2322: x"}, []string{"b.ts: 2322: x"}, []string{"b.ts: 2322: x"}},
	} {
		if got := NewErrors(tc.before, tc.after); !slices.Equal(got, tc.want) {
			t.Errorf("%s: NewErrors = %q, want %q", tc.name, got, tc.want)
		}
	}
}
