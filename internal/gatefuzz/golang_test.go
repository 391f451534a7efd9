package gatefuzz

import (
	"slices"
	"strings"
	"testing"
)

// Some Go projects are modules of their own, and their edits reach the
// go.mod: each kind of go.mod edit comes up within a campaign's first
// few hundred trials, and a project's go.mod names the module its own
// imports use.
func TestGoProjectsOfTheirOwnModuleEditIt(t *testing.T) {
	seen := map[string]int{}
	for i := range 400 {
		tr := Generate(Go{}, 7, i)
		for _, tag := range tr.Tags {
			seen[tag]++
		}
		mod, own := tr.Project["go.mod"]
		if own != slices.Contains(tr.Tags, "go/own-module") {
			t.Fatalf("trial %d: go.mod %v, tagged own-module %v", i, own, !own)
		}
		if own && !strings.HasPrefix(mod, "module example.com/fuzz/"+ProjectPlaceholder+"\n") {
			t.Fatalf("trial %d: go.mod names another module than its imports: %q", i, mod)
		}
	}
	for _, tag := range []string{"go/own-module", "go/edit-go-version", "go/edit-module-path", "go/edit-gomod-comment"} {
		if seen[tag] == 0 {
			t.Errorf("no trial of 400 is tagged %s", tag)
		}
	}
}
