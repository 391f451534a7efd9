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

// A nested pyright project's configuration is among the Python edits.
func TestPythonEditsANestedProjectsConfiguration(t *testing.T) {
	for i := range 400 {
		tr := Generate(Python{}, 7, i)
		if !slices.Contains(tr.Tags, "py/edit-nested-config") {
			continue
		}
		if _, ok := tr.Edit[nestedDir+"/pyrightconfig.json"]; !ok {
			t.Fatalf("trial %d is tagged a configuration edit but does not change it: %v", i, tr.Edit)
		}
		return
	}
	t.Error("no trial of 400 edits a nested pyright project's configuration")
}

// The Rust edits reach the manifests and create modules.
func TestRustEditsReachManifestsAndCreateModules(t *testing.T) {
	seen := map[string]bool{}
	for i := range 400 {
		tr := Generate(Rust{}, 7, i)
		for _, tag := range tr.Tags {
			seen[tag] = true
		}
		if slices.Contains(tr.Tags, "rust/edit-create-module") {
			if c := tr.Edit["base/src/made.rs"]; c == nil || tr.Project["base/src/made.rs"] != "" {
				t.Fatalf("trial %d creates no module: %v", i, tr.Edit.Paths())
			}
		}
	}
	for _, tag := range []string{"rust/edit-create-module", "rust/edit-lints", "rust/edit-edition"} {
		if !seen[tag] {
			t.Errorf("no trial of 400 is tagged %s", tag)
		}
	}
}
