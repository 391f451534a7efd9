package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestListFiles(t *testing.T) {
	outside := t.TempDir()
	root := newRoot(t, map[string]string{
		".gitignore":          "node_modules/\n*.log\n!keep.log\n",
		".anvil/ignore":       "vendor/\n",
		"src/a.ts":            "",
		"src/b.tsx":           "",
		"src/lib/c.ts":        "",
		"src/lib/d.go":        "",
		"src/lib/.gitignore":  "gen/\n",
		"src/lib/gen/x.ts":    "",
		"node_modules/m/i.js": "",
		"vendor/v.go":         "",
		"debug.log":           "",
		"keep.log":            "",
		"README.md":           "",
		"out":                 "->" + outside,
	})
	list := Adapt(NewListFiles(root))
	tests := []struct {
		name    string
		args    string
		want    []string
		wantErr string
	}{
		{name: "everything", args: `{}`, want: []string{".anvil/", ".anvil/ignore", ".gitignore", "README.md", "keep.log", "out", "src/", "src/a.ts", "src/b.tsx", "src/lib/", "src/lib/.gitignore", "src/lib/c.ts", "src/lib/d.go"}},
		{name: "depth 1", args: `{"max_depth":1}`, want: []string{".anvil/", ".gitignore", "README.md", "keep.log", "out", "src/"}},
		{name: "subdir", args: `{"path":"src/lib"}`, want: []string{"src/lib/.gitignore", "src/lib/c.ts", "src/lib/d.go"}},
		{name: "recursive glob", args: `{"pattern":"**/*.ts"}`, want: []string{"src/a.ts", "src/lib/c.ts"}},
		{name: "base-name glob", args: `{"pattern":"*.ts"}`, want: []string{"src/a.ts", "src/lib/c.ts"}},
		{name: "braces", args: `{"pattern":"**/*.{ts,tsx}"}`, want: []string{"src/a.ts", "src/b.tsx", "src/lib/c.ts"}},
		{name: "glob relative to path", args: `{"path":"src","pattern":"lib/*"}`, want: []string{"src/lib/.gitignore", "src/lib/c.ts", "src/lib/d.go"}},
		{name: "no match", args: `{"pattern":"*.rs"}`, want: []string{}},
		{name: "ignored dir named explicitly", args: `{"path":"node_modules"}`, want: []string{"node_modules/m/", "node_modules/m/i.js"}},
		{name: "a file", args: `{"path":"README.md"}`, wantErr: "is a file"},
		{name: "missing", args: `{"path":"nope"}`, wantErr: "does not exist"},
		{name: "outside", args: `{"path":".."}`, wantErr: "outside the workspace"},
		{name: "symlink out", args: `{"path":"out"}`, wantErr: "outside the workspace"},
		{name: "bad glob", args: `{"pattern":"src/[a"}`, wantErr: "invalid pattern"},
		{name: "negative depth", args: `{"max_depth":-2}`, wantErr: "max_depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, list, tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Output, tt.wantErr) {
					t.Fatalf("want error %q, got IsError=%v:\n%s", tt.wantErr, res.IsError, res.Output)
				}
				return
			}
			if res.IsError {
				t.Fatal(res.Output)
			}
			got := []string{}
			for _, e := range res.Data.(ListFilesData).Entries {
				p := e.Path
				if e.Type == "dir" {
					p += "/"
				}
				got = append(got, p)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if len(got) > 0 && res.Output != strings.Join(got, "\n")+"\n" {
				t.Errorf("output does not list the entries one per line:\n%s", res.Output)
			}
		})
	}
}

func TestListFilesCap(t *testing.T) {
	root := newRoot(t, nil)
	for i := range 612 {
		os.WriteFile(filepath.Join(root.Dir(), fmt.Sprintf("f%04d.txt", i)), nil, 0o644)
	}
	res := call(t, Adapt(NewListFiles(root)), `{}`)
	d := res.Data.(ListFilesData)
	if len(d.Entries) != listMaxEntries || d.Total != 612 || d.More != 112 {
		t.Fatalf("entries=%d total=%d more=%d", len(d.Entries), d.Total, d.More)
	}
	if !strings.HasSuffix(res.Output, "... and 112 more; narrow with path, pattern or max_depth\n") {
		t.Errorf("missing 'more' line:\n%s", res.Output[len(res.Output)-120:])
	}
}
