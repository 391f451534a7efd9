package tools

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/search"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// textSearchTools returns text_search over ripgrep and over the Go engine.
// rg is required: a machine without it fails here rather than skipping.
func textSearchTools(t *testing.T, root *workspace.Root) map[string]Tool {
	t.Helper()
	rg := search.New(root, search.Options{})
	if rg.Engine() != search.Ripgrep {
		t.Fatal("rg not found on PATH; it is required for these tests (apt-get install ripgrep)")
	}
	noRG := search.New(root, search.Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	return map[string]Tool{
		"ripgrep": Adapt(NewTextSearch(root, rg)),
		"go":      Adapt(NewTextSearch(root, noRG)),
	}
}

func TestTextSearch(t *testing.T) {
	outside := t.TempDir()
	root := newRoot(t, map[string]string{
		".gitignore":     "*.log\n",
		"a.go":           "func Foo() {}\n\nfunc Foobar() {}\n",
		"b/c.go":         "package b\nFoo := 1\n",
		"b/d.ts":         "const foo = 'a.b';\nconst bar = 'axb';\n",
		"ctx.txt":        "1\n2\nhit 3\n4\n5\n6\n7\n8\nhit 9\n10\n",
		"flags.txt":      "run with --files or -v\n",
		"debug.log":      "Foo in an ignored file\n",
		"img.png":        "\x89PNG\r\n\x1a\n\x00\x00Foo",
		"wide.txt":       strings.Repeat("x", 1000) + "needle" + strings.Repeat("y", 1000) + "\n",
		"many/1.txt":     "m\nm\n",
		"many/2.txt":     "m\n",
		"many/3.txt":     "m\nm\n",
		"huge/log.txt":   strings.Repeat("event\n", search.FileMatchBound+10),
		"huge/more.txt":  "event\n",
		"link-out":       "->" + outside,
		"link-file":      "->" + filepath.Join(outside, "x.txt"),
		"dir/nested.txt": "Foo\n",
		".git/config":    "[core]\n",
	})
	tests := []struct {
		name     string
		args     string
		wantErr  bool
		want     string   // the whole output, when given
		contains []string // pieces of the output
		absent   []string
	}{
		{
			name: "format",
			args: `{"pattern":"Foo","glob":"*.go"}`,
			want: "a.go:1:6: func Foo() {}\na.go:3:6: func Foobar() {}\n\nb/c.go:2:1: Foo := 1\n\n3 matches in 2 files\n",
		},
		{
			name: "context lines",
			args: `{"pattern":"hit","path":"ctx.txt","context_lines":2}`,
			want: "ctx.txt-1- 1\nctx.txt-2- 2\nctx.txt:3:1: hit 3\nctx.txt-4- 4\nctx.txt-5- 5\n--\n" +
				"ctx.txt-7- 7\nctx.txt-8- 8\nctx.txt:9:1: hit 9\nctx.txt-10- 10\n\n2 matches in 1 file\n",
		},
		{
			name:     "regex dot",
			args:     `{"pattern":"a.b","path":"b"}`,
			contains: []string{"b/d.ts:1:14: const foo = 'a.b';", "b/d.ts:2:14: const bar = 'axb';", "2 matches in 1 file"},
		},
		{
			name:     "literal dot",
			args:     `{"pattern":"a.b","path":"b","literal":true}`,
			contains: []string{"b/d.ts:1:14:", "1 match in 1 file"},
			absent:   []string{"axb"},
		},
		{
			name:     "case-insensitive",
			args:     `{"pattern":"FOO\\b","case_insensitive":true,"glob":"**/*.ts"}`,
			contains: []string{"b/d.ts:1:7: const foo", "1 match in 1 file"},
		},
		{
			name:     "cap",
			args:     `{"pattern":"^m$","path":"many","max_results":2}`,
			contains: []string{"many/1.txt:1:1: m\nmany/1.txt:2:1: m\n\n... showing first 2 of 5 matches (2 more files); narrow with path or glob, or raise max_results (up to 1000)\n"},
		},
		{
			name:     "capped file",
			args:     `{"pattern":"^event$","path":"huge","max_results":1}`,
			contains: []string{"\n... showing first 1 of at least 10,001 matches (1 more file; counting stops at 10,000 lines per file); narrow with path or glob, or raise max_results (up to 1000)\n"},
		},
		{
			name: "single file",
			args: `{"pattern":"Foo","path":"dir/nested.txt"}`,
			want: "dir/nested.txt:1:1: Foo\n\n1 match in 1 file\n",
		},
		{
			name:     "ignored and binary files are skipped",
			args:     `{"pattern":"Foo"}`,
			contains: []string{"a.go:1:6:", "dir/nested.txt:1:1:", "4 matches in 3 files"},
			absent:   []string{"debug.log", "img.png"},
		},
		{
			name: "flag-like pattern --files",
			args: `{"pattern":"--files"}`,
			want: "flags.txt:1:10: run with --files or -v\n\n1 match in 1 file\n",
		},
		{
			name: "flag-like pattern -v",
			args: `{"pattern":"-v"}`,
			want: "flags.txt:1:21: run with --files or -v\n\n1 match in 1 file\n",
		},
		{
			name:     "long line trimmed",
			args:     `{"pattern":"needle"}`,
			contains: []string{"wide.txt:1:1001: …" + strings.Repeat("x", 100) + "needle" + strings.Repeat("y", 194) + "…\n"},
		},
		{
			name:     "no matches",
			args:     `{"pattern":"zzz","path":"b","glob":"*.go"}`,
			contains: []string{`no matches for "zzz" in b (files matching *.go)`, "regular expression", "case-sensitive"},
		},
		{name: "invalid regex", args: `{"pattern":"("}`, wantErr: true, contains: []string{`invalid regular expression "("`, "literal=true"}},
		{name: "line break", args: `{"pattern":"a\\nb"}`, wantErr: true, contains: []string{"would match a line break"}},
		{name: "literal line break", args: `{"pattern":"a\nb","literal":true}`, wantErr: true, contains: []string{"would match a line break"}},
		{name: "invalid glob", args: `{"pattern":"x","glob":"[a"}`, wantErr: true, contains: []string{`invalid glob "[a"`}},
		{name: "dot-dot", args: `{"pattern":"x","path":".."}`, wantErr: true, contains: []string{"outside the workspace"}},
		{name: "absolute outside", args: `{"pattern":"x","path":"/etc"}`, wantErr: true, contains: []string{"outside the workspace"}},
		{name: "symlink out", args: `{"pattern":"x","path":"link-out"}`, wantErr: true, contains: []string{"outside the workspace"}},
		{name: "file symlink out", args: `{"pattern":"x","path":"link-file"}`, wantErr: true, contains: []string{"outside the workspace"}},
		{name: "missing", args: `{"pattern":"x","path":"nope"}`, wantErr: true, contains: []string{"nope does not exist"}},
		{name: "binary named", args: `{"pattern":"Foo","path":"img.png"}`, wantErr: true, contains: []string{"img.png is a binary file"}},
		{name: "inside .git", args: `{"pattern":"x","path":".git"}`, wantErr: true, contains: []string{".git: the .git directory is never searched"}},
		{name: "empty pattern", args: `{"pattern":""}`, wantErr: true},
		{name: "max_results too big", args: `{"pattern":"x","max_results":5000}`, wantErr: true, contains: []string{"max_results"}},
		{name: "context_lines too big", args: `{"pattern":"x","context_lines":11}`, wantErr: true, contains: []string{"context_lines"}},
	}
	tools := textSearchTools(t, root)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var outputs []string
			for _, engine := range []string{"ripgrep", "go"} {
				res := call(t, tools[engine], tt.args)
				if res.IsError != tt.wantErr {
					t.Fatalf("%s: IsError = %v, want %v; output:\n%s", engine, res.IsError, tt.wantErr, res.Output)
				}
				if tt.want != "" && res.Output != tt.want {
					t.Errorf("%s: output\n%s\nwant\n%s", engine, res.Output, tt.want)
				}
				for _, c := range tt.contains {
					if !strings.Contains(res.Output, c) {
						t.Errorf("%s: output lacks %q:\n%s", engine, c, res.Output)
					}
				}
				for _, a := range tt.absent {
					if strings.Contains(res.Output, a) {
						t.Errorf("%s: output has %q:\n%s", engine, a, res.Output)
					}
				}
				if !res.IsError {
					d, ok := res.Data.(TextSearchData)
					if !ok || d.Engine != engine {
						t.Errorf("%s: data %#v", engine, res.Data)
					}
				}
				outputs = append(outputs, res.Output)
			}
			if !tt.wantErr && outputs[0] != outputs[1] {
				t.Errorf("engines disagree:\nripgrep:\n%s\ngo:\n%s", outputs[0], outputs[1])
			}
		})
	}
}

func TestTextSearchData(t *testing.T) {
	root := newRoot(t, map[string]string{"a.txt": "one\ntwo hit\nthree\n"})
	for engine, tool := range textSearchTools(t, root) {
		res := call(t, tool, `{"pattern":"hit","context_lines":1}`)
		got, err := json.Marshal(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"matches":[{"path":"a.txt","line":2,"column":5,"text":"two hit",`+
			`"before":[{"line":1,"text":"one"}],"after":[{"line":3,"text":"three"}]}],`+
			`"total_matches":1,"total_files":1,"truncated":false,"stopped":false,"capped":false,"engine":%q}`, engine)
		if string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", engine, got, want)
		}
	}
}

func TestTextSearchSchema(t *testing.T) {
	root := newRoot(t, map[string]string{"a.txt": "x\n"})
	var schema struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Minimum *float64 `json:"minimum"`
			Maximum *float64 `json:"maximum"`
		} `json:"properties"`
	}
	tool := textSearchTools(t, root)["go"]
	if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	if strings.Join(schema.Required, ",") != "pattern" {
		t.Errorf("required = %q, want only pattern", schema.Required)
	}
	for _, name := range []string{"pattern", "path", "glob", "literal", "case_insensitive", "max_results", "context_lines"} {
		if _, ok := schema.Properties[name]; !ok {
			t.Errorf("schema lacks %s", name)
		}
	}
	if m := schema.Properties["max_results"].Maximum; m == nil || *m != search.MaxResultsLimit {
		t.Errorf("max_results maximum = %v", m)
	}
}
