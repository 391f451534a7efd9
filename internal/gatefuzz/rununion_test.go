package gatefuzz

import (
	"reflect"
	"testing"
)

// An error counts as often as the one run that reports it most: go build
// and go vet, or two translation units, reporting the same error are one;
// two alike errors in one run are two (a stale use's error on disk and
// the same words the edit adds), which a set of errors took for one.
func TestRunUnionCountsAsTheRunThatReportsMost(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs []map[string][]string
		want map[string][]string
	}{
		{"two runs, one error", []map[string][]string{{"t0": {"a"}}, {"t0": {"a"}}}, map[string][]string{"t0": {"a"}}},
		{"one run, two alike", []map[string][]string{{"t0": {"a", "a"}}}, map[string][]string{"t0": {"a", "a"}}},
		{"once, then twice", []map[string][]string{{"t0": {"a"}}, {"t0": {"a", "a", "b"}}}, map[string][]string{"t0": {"a", "a", "b"}}},
		{"projects apart", []map[string][]string{{"t0": {"a"}}, {"t1": {"a"}}}, map[string][]string{"t0": {"a"}, "t1": {"a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newRunUnion()
			for _, r := range tc.runs {
				u.add(r)
			}
			if !reflect.DeepEqual(u.errs, tc.want) {
				t.Errorf("got %v, want %v", u.errs, tc.want)
			}
		})
	}
}
