package reach

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGoPackagesReaching(t *testing.T) {
	base := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a.go":      "package a\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n",
		"c/c.go":      "package c\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/b\"\n)\n\nfunc C( {\n", // does not parse past its imports
		"d/d.go":      "package d\n\nimport \"example.com/m/e\"\n",
		"e/e.go":      "package e\n",
		"main.go":     "package main\n\nimport \"example.com/m/c\"\n",
		"x/x_test.go": "package x_test\n\nimport \"example.com/m\"\n",
	}
	for _, tc := range []struct {
		name    string
		extra   map[string]string
		changed []string
		want    []string // nil: not known
	}{
		{"through importers, a file that does not parse after its imports", nil, []string{"a/a.go"}, []string{".", "a", "b", "c", "x"}},
		{"a package nothing imports", nil, []string{"d/d.go"}, []string{"d"}},
		{"imports that do not read reach everything", map[string]string{"f/f.go": "package f\n\nimport (\n\t\"example.com/m/e\n"}, []string{"d/d.go"}, []string{"d", "f"}},
		{"an import of another module may come back", map[string]string{"g/g.go": "package g\n\nimport \"github.com/x/y\"\n"}, []string{"d/d.go"}, []string{"d", "g"}},
		{"a vendored change", map[string]string{"vendor/github.com/x/y/y.go": "package y\n"}, []string{"vendor/github.com/x/y/y.go"}, nil},
		{"a change that is not Go source", nil, []string{"go.mod"}, nil},
		{"a second module, its packages importing each other", map[string]string{"sub/go.mod": "module example.com/sub\n", "sub/s/s.go": "package s\n\nimport \"example.com/sub/t\"\n", "sub/t/t.go": "package t\n"}, []string{"sub/t/t.go"}, []string{"sub/s", "sub/t"}},
		{"a second module's change reaches none of the first's", map[string]string{"sub/go.mod": "module example.com/sub\n", "sub/t/t.go": "package t\n"}, []string{"sub/t/t.go"}, []string{"sub/t"}},
		{"a second module that imports the first's path may import anything", map[string]string{"sub/go.mod": "module example.com/sub\n", "sub/s/s.go": "package s\n\nimport \"example.com/m/a\"\n"}, []string{"a/a.go"}, []string{".", "a", "b", "c", "sub/s", "x"}},
		{"a second module with a replace directive", map[string]string{"sub/go.mod": "module example.com/sub\n\nreplace example.com/m => ../\n"}, []string{"a/a.go"}, nil},
		{"a second go.mod that declares no module", map[string]string{"sub/go.mod": "go 1.22\n"}, []string{"a/a.go"}, nil},
		{"a module under testdata is none of the go command's", map[string]string{"a/testdata/mod/go.mod": "module example.com/t\n", "a/testdata/mod/t.go": "package t\n\nimport \"example.com/m/a\"\n"}, []string{"a/a.go"}, []string{".", "a", "b", "c", "x"}},
		{"a change the go command leaves out", map[string]string{"a/testdata/t.go": "package t\n"}, []string{"a/testdata/t.go"}, nil},
		{"a go.work", map[string]string{"go.work": "go 1.22\n\nuse .\n"}, []string{"a/a.go"}, nil},
		{"a replace directive", map[string]string{"go.mod": "module example.com/m\n\nreplace example.com/x => ./x\n"}, []string{"a/a.go"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			all := maps.Clone(base)
			maps.Copy(all, tc.extra)
			for rel, content := range all {
				abs := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := GoPackagesReaching(dir, tc.changed)
			if tc.want == nil {
				if ok {
					t.Fatalf("known (%v), want not known", got)
				}
				return
			}
			if !ok {
				t.Fatal("not known")
			}
			if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
				t.Errorf("got %v, want %v", keys, tc.want)
			}
		})
	}
}
