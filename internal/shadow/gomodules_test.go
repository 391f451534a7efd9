package shadow

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A module file's change is vetted in its own module and in every module
// that may build from that module's folder: one with a replace directive,
// or every one where a go.work joins them. A module that only requires
// another builds its published version.
func TestGoModulesThatMayReadAChangedModuleFile(t *testing.T) {
	const (
		plain    = "module example.com/m\n\ngo 1.22\n"
		replaces = "module example.com/m\n\ngo 1.22\n\nreplace example.com/lib => ./lib\n"
	)
	for _, tc := range []struct {
		name   string
		files  map[string]string
		change map[string]string // content; "" deletes
		want   []string
	}{
		{"a nested module's go.mod, the root requiring nothing of the workspace", map[string]string{"go.mod": plain, "lib/go.mod": "module example.com/lib\n"}, map[string]string{"lib/go.mod": "module example.com/lib\n\ngo 1.17\n"}, []string{"lib"}},
		{"a nested module's go.mod, the root replacing it", map[string]string{"go.mod": replaces, "lib/go.mod": "module example.com/lib\n"}, map[string]string{"lib/go.mod": "module example.com/lib\n\ngo 1.17\n"}, []string{".", "lib"}},
		{"the root's go.mod, a nested module replacing it", map[string]string{"go.mod": plain, "tool/go.mod": "module example.com/tool\n\nreplace example.com/m => ../\n"}, map[string]string{"go.mod": plain + "// edited\n"}, []string{".", "tool"}},
		{"a go.work joins every module", map[string]string{"go.mod": plain, "go.work": "go 1.22\n\nuse (\n\t.\n\t./lib\n\t./other\n)\n", "lib/go.mod": "module example.com/lib\n", "other/go.mod": "module example.com/other\n"}, map[string]string{"lib/go.mod": "module example.com/lib\n\ngo 1.17\n"}, []string{".", "lib", "other"}},
		{"a nested go.sum", map[string]string{"go.mod": plain, "lib/go.mod": "module example.com/lib\n", "lib/go.sum": ""}, map[string]string{"lib/go.sum": "x v1.0.0 h1:AAAA=\n"}, []string{"lib"}},
		{"a created module takes its folder from the root's", map[string]string{"go.mod": plain, "new/x.go": "package x\n"}, map[string]string{"new/go.mod": "module example.com/new\n"}, []string{".", "new"}},
		{"a deleted module's folder joins the module around it", map[string]string{"go.mod": plain, "a/go.mod": "module example.com/a\n", "a/lib/go.mod": "module example.com/lib\n"}, map[string]string{"a/lib/go.mod": ""}, []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, tc.files)
			snap := &Snapshot{Files: reach.Files{}}
			for rel := range tc.files {
				snap.Files[rel] = reach.FileStat{}
			}
			var changes []*changeset.Change
			for rel, content := range tc.change {
				_, exists := tc.files[rel]
				changes = append(changes, &changeset.Change{Path: rel, Content: []byte(content), Delete: content == "", BaseExists: exists})
			}
			abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
			var got []string
			for _, d := range goModules(snap, changes, dir, abs) {
				rel, _ := filepath.Rel(dir, d)
				got = append(got, filepath.ToSlash(rel))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("modules = %v, want %v", got, tc.want)
			}
		})
	}
}
