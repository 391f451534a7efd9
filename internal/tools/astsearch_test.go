package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/workspace"
)

const astTSSample = `import { Pool } from "pg";

export const handleRequest = async (req: Request) => {
  return db.query("SELECT 1");
};

export abstract class Repo {
  abstract find(id: string): Promise<void>;
  handleError(err: Error) {
    console.error(err);
  }
}
`

const astGoSample = `package store

import "strings"

type Store struct{ data map[string]string }

func (s *Store) Get(key string) string {
	return s.data[strings.ToLower(key)]
}

func handleSignal() {}
`

const astPySample = `import os

class Service:
    @staticmethod
    def handle_event(event):
        return os.getenv(event)
`

const astRustSample = `pub struct Cache;

impl Cache {
    pub fn get(&self) -> u32 { helper() }
}

fn helper() -> u32 { 1 }
`

// astTool builds ast_search over a new workspace holding files, and
// returns the tool and the workspace.
func astTool(t *testing.T, files map[string]string) (Tool, *workspace.Root) {
	t.Helper()
	root := newRoot(t, files)
	p := syntax.New(syntax.Options{})
	t.Cleanup(p.Close)
	return Adapt(NewASTSearch(root, p)), root
}

func TestASTSearch(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package s\nfunc Secret() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tool, root := astTool(t, map[string]string{
		".gitignore":       "generated/\n",
		"src/server.ts":    astTSSample,
		"src/store.go":     astGoSample,
		"src/service.py":   astPySample,
		"src/cache.rs":     astRustSample,
		"generated/api.ts": "export function handleGenerated() {}\n",
		"README.md":        "function notCode() {}\n",
		"bin/blob.go":      "package blob\x00\x01\x02func Hidden() {}\n",
		"out":              "->" + outside,
	})
	// A file over the 2 MB parse limit, in a directory of its own.
	var big strings.Builder
	for i := 0; big.Len() <= 2<<20; i++ {
		fmt.Fprintf(&big, "export function generated%d(): number { return %d; }\n", i, i)
	}
	if err := os.MkdirAll(filepath.Join(root.Dir(), "huge"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root.Dir(), "huge", "big.ts"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root.Dir(), "huge", "small.ts"), []byte("function tiny() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		args    string
		want    []string // lines the output must contain, in order
		absent  []string // substrings the output must not contain
		wantErr string
	}{
		{
			name: "functions across languages",
			args: `{"kind":"functions","path":"src"}`,
			want: []string{
				"src/cache.rs:7 function helper  fn helper() -> u32",
				"src/server.ts:3 function handleRequest  export const handleRequest = async (req: Request) =>",
				"src/store.go:11 function handleSignal  func handleSignal()",
				"3 functions in src (4 files parsed)",
			},
		},
		{
			name:   "gitignored file not reported",
			args:   `{"kind":"functions"}`,
			want:   []string{"src/server.ts:3 function handleRequest"},
			absent: []string{"handleGenerated", "generated/api.ts"},
		},
		{
			name: "name glob",
			args: `{"kind":"functions","name":"handle*"}`,
			want: []string{
				"src/server.ts:3 function handleRequest",
				"src/store.go:11 function handleSignal",
				"2 functions in . (",
			},
			absent: []string{"helper"},
		},
		{
			name: "method by Type.method",
			args: `{"kind":"methods","name":"Store.Get"}`,
			want: []string{"src/store.go:7 method (*Store).Get  func (s *Store) Get(key string) string", "1 method in"},
		},
		{
			name: "method by bare name across languages",
			args: `{"kind":"methods","name":"[gGh]*"}`,
			want: []string{
				"src/cache.rs:4 method Cache::get  pub fn get(&self) -> u32",
				"src/server.ts:9 method Repo.handleError  handleError(err: Error)",
				"src/service.py:5 method Service.handle_event  @staticmethod def handle_event(event):",
				"src/store.go:7 method (*Store).Get",
			},
			absent: []string{"Repo.find"},
		},
		{
			name: "calls by callee glob",
			args: `{"kind":"calls","name":"*.query"}`,
			want: []string{`src/server.ts:4 call db.query  db.query("SELECT 1")`, "1 call in"},
		},
		{
			name: "one file",
			args: `{"kind":"classes","path":"src/server.ts"}`,
			want: []string{"src/server.ts:7 class Repo  export abstract class Repo", "1 class in src/server.ts (1 file parsed)"},
		},
		{
			name:   "language filter",
			args:   `{"kind":"imports","language":"go"}`,
			want:   []string{`src/store.go:3 import strings  import "strings"`},
			absent: []string{"pg", "os"},
		},
		{
			name: "raw query in one language",
			args: `{"query":"(method_declaration name: (field_identifier) @name)","language":"go"}`,
			want: []string{"src/store.go:7:17 @name field_identifier  Get", "1 result in"},
		},
		{
			name: "raw query compiled where it can be",
			args: `{"query":"(function_declaration name: (identifier) @fn)","path":"src"}`,
			want: []string{
				"src/store.go:11:6 @fn identifier  handleSignal",
				"note: the query does not compile for python, rust, so those files were not searched",
			},
		},
		{
			name:    "invalid query",
			args:    `{"query":"(function_declaration"}`,
			wantErr: "does not compile for any searched language",
		},
		{
			name:    "query with a node type the language lacks",
			args:    `{"query":"(function_definition) @f","language":"go"}`,
			wantErr: `go: invalid node type "function_definition" at 1:2 (offset 1)`,
		},
		{
			name:    "query on a file whose grammar refuses it",
			args:    `{"query":"(function_definition) @f","path":"src/store.go"}`,
			wantErr: "the query does not compile for go:\ngo: invalid node type",
		},
		{
			name: "query on one file",
			args: `{"query":"(call_expression function: (member_expression) @callee)","path":"src/server.ts"}`,
			want: []string{"src/server.ts:4:10 @callee member_expression  db.query", "src/server.ts:10:5 @callee member_expression  console.error", "2 results in src/server.ts (1 file parsed)"},
		},
		{name: "kind and query", args: `{"kind":"functions","query":"(identifier) @x"}`, wantErr: "not both"},
		{name: "neither kind nor query", args: `{"path":"src"}`, wantErr: "give kind"},
		{name: "name with query", args: `{"query":"(identifier) @x","name":"x"}`, wantErr: "name only filters kind searches"},
		{name: "unknown kind", args: `{"kind":"widgets"}`, wantErr: "invalid arguments"},
		{name: "bad glob", args: `{"kind":"functions","name":"[abc"}`, wantErr: "invalid name pattern"},
		{name: "outside via ..", args: `{"kind":"functions","path":".."}`, wantErr: "outside the workspace"},
		{name: "outside absolute", args: fmt.Sprintf(`{"kind":"functions","path":%q}`, outside), wantErr: "outside the workspace"},
		{name: "symlink out", args: `{"kind":"functions","path":"out/secret.go"}`, wantErr: "outside the workspace"},
		{name: "missing file", args: `{"kind":"functions","path":"src/nope.ts"}`, wantErr: "does not exist"},
		{name: "unsupported file", args: `{"kind":"functions","path":"README.md"}`, wantErr: "not in a supported language"},
		{name: "file in another language", args: `{"kind":"functions","path":"src/store.go","language":"python"}`, wantErr: "is go, not the requested language"},
		{
			name:   "binary file skipped",
			args:   `{"kind":"functions","path":"bin"}`,
			want:   []string{"no functions found in bin (0 files parsed)", "skipped 1 file (binary): bin/blob.go"},
			absent: []string{"Hidden"},
		},
		{
			name:   "huge file skipped with a note",
			args:   `{"kind":"functions","path":"huge"}`,
			want:   []string{"huge/small.ts:1 function tiny", "skipped 1 file (over 2 MB): huge/big.ts"},
			absent: []string{"generated0"},
		},
		{name: "huge file named", args: `{"kind":"functions","path":"huge/big.ts"}`, wantErr: "over the 2 MB limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, tool, tc.args)
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Output, tc.wantErr) {
					t.Fatalf("want tool error containing %q, got IsError=%v:\n%s", tc.wantErr, res.IsError, res.Output)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected tool error:\n%s", res.Output)
			}
			rest := res.Output
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, res.Output)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tc.absent {
				if strings.Contains(res.Output, a) {
					t.Errorf("output contains %q:\n%s", a, res.Output)
				}
			}
		})
	}
}

func TestASTSearchCapAndData(t *testing.T) {
	var src strings.Builder
	for i := range 250 {
		fmt.Fprintf(&src, "func f%03d() {}\n", i)
	}
	tool, _ := astTool(t, map[string]string{
		"b/many.go": "package b\n\n" + src.String(),
		"a.go":      "package a\n\nfunc First() {}\n",
	})
	res := call(t, tool, `{"kind":"functions"}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	data := res.Data.(ASTSearchData)
	if data.Total != 251 || len(data.Symbols) != astMaxResults || data.Files != 2 {
		t.Fatalf("total %d, listed %d, files %d; want 251, %d, 2", data.Total, len(data.Symbols), data.Files, astMaxResults)
	}
	// Sorted by path, then line.
	if s := data.Symbols[0]; s.Path != "a.go" || s.Name != "First" || s.Line != 3 || s.Column != 1 {
		t.Errorf("first symbol = %+v", s)
	}
	for i := 2; i < len(data.Symbols); i++ {
		if data.Symbols[i].Line <= data.Symbols[i-1].Line {
			t.Fatalf("symbols out of order at %d: %+v", i, data.Symbols[i])
		}
	}
	if !strings.Contains(res.Output, "... 51 more results not shown; narrow with name, path or language") {
		t.Errorf("no cap note:\n%s", res.Output[len(res.Output)-300:])
	}
	if lines := strings.Count(res.Output, "\n"); lines != astMaxResults+2 {
		t.Errorf("%d output lines, want %d results plus 2 summary lines", lines, astMaxResults)
	}
}

func TestASTSearchSchema(t *testing.T) {
	tool, _ := astTool(t, map[string]string{})
	schema := string(tool.InputSchema())
	for _, want := range []string{`"functions"`, `"calls"`, `"typescript"`, `"rust"`, `"enum"`} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %s: %s", want, schema)
		}
	}
	if strings.Contains(schema, `"required"`) {
		t.Errorf("no parameter should be required: %s", schema)
	}
}

func TestASTGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"handle*", "handleRequest", true},
		{"handle*", "onHandle", false},
		{"*http", "net/http", true},
		{"*.query", "this.db.query", true},
		{"Store.Get", "StoreXGet", false},
		{"use[A-Z]*", "useState", true},
		{"use[A-Z]*", "user", false},
		{"[!a]*", "abc", false},
		{"[]x]", "]", true},
		{"f?o", "foo", true},
		{`a\*`, "a*", true},
		{`a\*`, "ab", false},
		{"(*Store).Get", "(*Store).Get", true},
	}
	for _, tc := range tests {
		re, err := globRegexp(tc.glob)
		if err != nil {
			t.Errorf("globRegexp(%q): %v", tc.glob, err)
			continue
		}
		if got := re.MatchString(tc.name); got != tc.want {
			t.Errorf("glob %q on %q = %v, want %v", tc.glob, tc.name, got, tc.want)
		}
	}
}

// BenchmarkASTSearchFunctions runs the tool on every Go file in GOROOT's
// net/http, as the model would: walk, read, parse with the worker pool,
// filter. Cold uses a new Parser per search; warm reuses one.
func BenchmarkASTSearchFunctions(b *testing.B) {
	// GOROOT from the go command: runtime.GOROOT is deprecated.
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	root, err := workspace.New(filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http"))
	if err != nil {
		b.Skip(err)
	}
	args := json.RawMessage(`{"kind":"functions","name":"*"}`)
	run := func(b *testing.B, tool Tool) {
		res, err := tool.Call(context.Background(), args)
		if err != nil || res.IsError {
			b.Fatal(err, res.Output)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			p := syntax.New(syntax.Options{})
			run(b, Adapt(NewASTSearch(root, p)))
			p.Close()
		}
	})
	b.Run("warm", func(b *testing.B) {
		p := syntax.New(syntax.Options{})
		defer p.Close()
		tool := Adapt(NewASTSearch(root, p))
		run(b, tool)
		for b.Loop() {
			run(b, tool)
		}
	})
}
