package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// engines returns a ripgrep searcher and a Go searcher for root. rg is
// required: CI installs it, and a missing rg must fail rather than skip.
func engines(t testing.TB, root *workspace.Root) map[string]*Searcher {
	t.Helper()
	rg := New(root, Options{})
	if rg.Engine() != Ripgrep {
		t.Fatal("rg not found on PATH; it is required for these tests (apt-get install ripgrep)")
	}
	return map[string]*Searcher{"ripgrep": rg, "go": goOnly(root)}
}

// goOnly returns a searcher that cannot find rg.
func goOnly(root *workspace.Root) *Searcher {
	return New(root, Options{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
}

func newRoot(t testing.TB, files map[string]string) *workspace.Root {
	t.Helper()
	root, err := workspace.New(testfs.Tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// agreeTree exercises every rule that decides which files are searched.
func agreeTree() map[string]string {
	return map[string]string{
		".gitignore":         "*.log\nbuild/\n!build/keep.txt\n!keep.log\n/rooted.txt\n",
		".git/HEAD":          "hit: .git is never searched\n",
		".git/info/exclude":  "excluded.txt\n",
		".anvil/ignore":      "secrets/\n/anchored.md\n",
		".ignore":            "dot-ignored.txt\n",
		".hidden.ts":         "const hit = 1;\n",
		"main.go":            "package main\n\n// hit: the main file\nfunc main() {}\nfunc NewThing() {}\n",
		"a.log":              "hit in an ignored log\n",
		"keep.log":           "hit in a kept log\n",
		"rooted.txt":         "hit\n",
		"excluded.txt":       "hit\n",
		"anchored.md":        "hit\n",
		"docs/anchored.md":   "hit: only the root one is ignored\n",
		"dot-ignored.txt":    "hit: .ignore files are not workspace rules\n",
		"build/out.js":       "hit\n",
		"build/keep.txt":     "hit\n",
		"secrets/key":        "hit\n",
		"src/.gitignore":     "gen/\n!important.log\n*.tmp\n",
		"src/gen/x.ts":       "hit\n",
		"src/important.log":  "hit\n",
		"src/other.log":      "hit\n",
		"src/b.tmp":          "hit\n",
		"src/lib/a.ts":       "export const a = 'hit';\nexport const b = 'a.b';\nexport const c = 'axb';\n",
		"src/lib/c.tmp":      "hit\n",
		"src/rooted.txt":     "hit: the root pattern is anchored\n",
		"other/b.tmp":        "hit: src/.gitignore does not reach here\n",
		"bin.dat":            "hit\x00\x01\x02",
		"late-nul.txt":       "hit\n" + strings.Repeat("x", 100<<10) + "\n\x00\n",
		"utf16.txt":          "\xff\xfeh\x00i\x00t\x00\n\x00",
		"crlf.txt":           "one hit\r\ntwo\r\n",
		"latin1.txt":         "caf\xe9 hit\n",
		"unicode.txt":        "café hit\nnaïve\n\u0663 digits\n",
		"link.txt":           "->main.go",
		"linkdir":            "->src",
		"sub/.git":           "gitdir: ../.git/modules/sub # hit\n",
		"sub/mod.go":         "hit\n",
		"nested/.git/HEAD":   "ref: refs/heads/main\n",
		"nested/n.log":       "hit: the root's *.log applies in a nested repository too\n",
		"nested/n.go":        "hit\n",
		"we[ir]d/.gitignore": "*.md\n",
		"we[ir]d/x.md":       "hit\n",
		"we[ir]d/y/z.md":     "hit\n",
		"we[ir]d/y/z.go":     "hit\n",
		"-dash/file.txt":     "hit --files -v\n",
		"empty.txt":          "",
		"blank.txt":          "\n\nx\n\n",
		"fold.txt":           "\u212Aelvin\n\u017Ftop\nERRORS.new(x)\n",
		"ctx.txt":            "1\n2\nhit 3\n4\n5\n6\nhit 7\nhit 8\n9\n10\n11\n12\n13\nhit 14\n",
	}
}

func TestSearchEnginesAgree(t *testing.T) {
	root := newRoot(t, agreeTree())
	es := engines(t, root)
	queries := []struct {
		name string
		o    Query
	}{
		{"root", Query{Pattern: "hit"}},
		{"subdir", Query{Pattern: "hit", Path: "src"}},
		{"deeper", Query{Pattern: "hit", Path: "src/lib"}},
		{"ignored dir named", Query{Pattern: "hit", Path: "build"}},
		{"nested repo", Query{Pattern: "hit", Path: "nested"}},
		{"glob chars in dir", Query{Pattern: "hit", Path: "we[ir]d/y"}},
		{"dash dir", Query{Pattern: "hit", Path: "-dash"}},
		{"single file", Query{Pattern: "hit", Path: "main.go"}},
		{"symlinked dir", Query{Pattern: "hit", Path: "linkdir/lib"}},
		{"regex dot", Query{Pattern: "a.b"}},
		{"literal dot", Query{Pattern: "a.b", Literal: true}},
		{"case", Query{Pattern: "HIT", CaseInsensitive: true}},
		{"literal case", Query{Pattern: "Hit 3", Literal: true, CaseInsensitive: true}},
		{"case folds beyond ASCII", Query{Pattern: "kelvin|STOP", CaseInsensitive: true}},
		{"literal case folds beyond ASCII", Query{Pattern: "kelvin", Literal: true, CaseInsensitive: true}},
		{"case regex", Query{Pattern: `errors\.NEW\(\w\)`, CaseInsensitive: true}},
		{"context", Query{Pattern: "hit", ContextLines: 2, Path: "ctx.txt"}},
		{"context everywhere", Query{Pattern: "hit", ContextLines: 1}},
		{"cap", Query{Pattern: "hit", MaxResults: 3}},
		{"cap with context", Query{Pattern: "hit", MaxResults: 2, ContextLines: 3, Path: "ctx.txt"}},
		{"name glob", Query{Pattern: "hit", Glob: "*.go"}},
		{"braces glob", Query{Pattern: "hit", Glob: "*.{go,ts}"}},
		{"path glob", Query{Pattern: "hit", Glob: "src/**/*.ts"}},
		{"glob under path", Query{Pattern: "hit", Path: "src", Glob: "lib/*"}},
		{"glob on missing dir", Query{Pattern: "hit", Glob: "nope/**"}},
		{"flag-like --files", Query{Pattern: "--files"}},
		{"flag-like -v", Query{Pattern: "-v"}},
		{"unicode word", Query{Pattern: `caf\w hit`}},
		{"unicode digit", Query{Pattern: `^\d digits`}},
		{"anchors", Query{Pattern: `^hit \d+$`}},
		{"no match across lines", Query{Pattern: `hit\s+two`}},
		{"alternation", Query{Pattern: `NewThing|naïve`}},
		{"regex with literal", Query{Pattern: `func New[A-Z]\w*\(`}},
		{"empty match", Query{Pattern: `x*`, Path: "ctx.txt"}},
		{"empty lines", Query{Pattern: `^$`}},
		{"end of line before CR", Query{Pattern: `hit$`}},
		{"word boundary", Query{Pattern: `\bhit\b`, Glob: "*.txt"}},
		{"no match", Query{Pattern: "zzz-nothing"}},
	}
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			var results []*Result
			for _, name := range []string{"ripgrep", "go"} {
				res, err := es[name].Search(context.Background(), q.o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if res.Engine.String() != name {
					t.Fatalf("engine %v, want %s", res.Engine, name)
				}
				res.Engine = 0
				results = append(results, res)
			}
			if !reflect.DeepEqual(results[0], results[1]) {
				t.Errorf("engines disagree\nripgrep: %s\ngo:      %s", jsonOf(results[0]), jsonOf(results[1]))
			}
		})
	}
}

func jsonOf(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// TestFileSetIsWalk checks both engines against the workspace walk itself:
// the files with matches are exactly the walked text files holding "hit".
func TestSearchFileSetIsWalk(t *testing.T) {
	root := newRoot(t, agreeTree())
	for _, start := range []string{".", "src", "build", "nested", "we[ir]d"} {
		p, _ := root.Resolve(start)
		var want []string
		err := root.Walk(context.Background(), p, workspace.WalkOptions{}, func(e workspace.Entry) error {
			if e.Mode.Type() != 0 {
				return nil
			}
			data, err := os.ReadFile(e.Abs)
			if err == nil && bytes.Contains(data, []byte("hit")) && bytes.IndexByte(data, 0) < 0 {
				want = append(want, e.Rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		for name, s := range engines(t, root) {
			res, err := s.Search(context.Background(), Query{Pattern: "hit", Path: start, MaxResults: MaxResultsLimit})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range res.Matches {
				got = append(got, m.Path)
			}
			got = slices.Compact(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s from %s:\n got %q\nwant %q", name, start, got, want)
			}
		}
	}
}

func TestSearchResults(t *testing.T) {
	root := newRoot(t, agreeTree())
	tests := []struct {
		name string
		o    Query
		want []Match
	}{
		{
			name: "context lines are shared out",
			o:    Query{Pattern: "hit", Path: "ctx.txt", ContextLines: 2},
			want: []Match{
				{Path: "ctx.txt", Line: 3, Column: 1, Text: "hit 3", Before: []Line{{1, "1"}, {2, "2"}}, After: []Line{{4, "4"}, {5, "5"}}},
				{Path: "ctx.txt", Line: 7, Column: 1, Text: "hit 7", Before: []Line{{6, "6"}}},
				{Path: "ctx.txt", Line: 8, Column: 1, Text: "hit 8", After: []Line{{9, "9"}, {10, "10"}}},
				{Path: "ctx.txt", Line: 14, Column: 1, Text: "hit 14", Before: []Line{{12, "12"}, {13, "13"}}},
			},
		},
		{
			name: "column, CRLF and Latin-1",
			o:    Query{Pattern: "hit", Glob: "{crlf,latin1}.txt"},
			want: []Match{
				{Path: "crlf.txt", Line: 1, Column: 5, Text: "one hit"},
				{Path: "latin1.txt", Line: 1, Column: 6, Text: "caf\uFFFD hit"},
			},
		},
		{
			name: "regex dot",
			o:    Query{Pattern: "a.b", Path: "src/lib/a.ts"},
			want: []Match{
				{Path: "src/lib/a.ts", Line: 2, Column: 19, Text: "export const b = 'a.b';"},
				{Path: "src/lib/a.ts", Line: 3, Column: 19, Text: "export const c = 'axb';"},
			},
		},
		{
			name: "literal dot",
			o:    Query{Pattern: "a.b", Literal: true, Path: "src/lib/a.ts"},
			want: []Match{{Path: "src/lib/a.ts", Line: 2, Column: 19, Text: "export const b = 'a.b';"}},
		},
		{
			name: "case-insensitive",
			o:    Query{Pattern: "NEWTHING", CaseInsensitive: true},
			want: []Match{{Path: "main.go", Line: 5, Column: 6, Text: "func NewThing() {}"}},
		},
		{
			name: "case folding beyond ASCII",
			o:    Query{Pattern: "KELVIN|stop", CaseInsensitive: true, Path: "fold.txt"},
			want: []Match{
				{Path: "fold.txt", Line: 1, Column: 1, Text: "\u212Aelvin"},
				{Path: "fold.txt", Line: 2, Column: 1, Text: "\u017Ftop"},
			},
		},
		{
			name: "case-insensitive literal",
			o:    Query{Pattern: "errors.NEW(", Literal: true, CaseInsensitive: true, Path: "fold.txt"},
			want: []Match{{Path: "fold.txt", Line: 3, Column: 1, Text: "ERRORS.new(x)"}},
		},
		{
			name: "flag-like pattern",
			o:    Query{Pattern: "--files"},
			want: []Match{{Path: "-dash/file.txt", Line: 1, Column: 5, Text: "hit --files -v"}},
		},
	}
	for _, tt := range tests {
		for name, s := range engines(t, root) {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				res, err := s.Search(context.Background(), tt.o)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(res.Matches, tt.want) {
					t.Errorf("got  %s\nwant %s", jsonOf(res.Matches), jsonOf(tt.want))
				}
			})
		}
	}
}

func TestSearchMaxResults(t *testing.T) {
	files := map[string]string{}
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "d/e.txt"} {
		files[f] = strings.Repeat("match\n", 5)
	}
	root := newRoot(t, files)
	for name, s := range engines(t, root) {
		res, err := s.Search(context.Background(), Query{Pattern: "match", MaxResults: 7})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches) != 7 || res.TotalMatches != 20 || res.TotalFiles != 4 || !res.Truncated || res.Stopped {
			t.Errorf("%s: %d shown, %d matches in %d files, truncated %v, stopped %v",
				name, len(res.Matches), res.TotalMatches, res.TotalFiles, res.Truncated, res.Stopped)
		}
		last := res.Matches[6]
		if last.Path != "b.txt" || last.Line != 2 {
			t.Errorf("%s: last shown %s:%d, want b.txt:2 (sorted by path, then line)", name, last.Path, last.Line)
		}
	}
}

func TestSearchMatchBound(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("match\n", 400)
	}
	root := newRoot(t, files)
	for name, s := range engines(t, root) {
		s.bound = 500
		res, err := s.Search(context.Background(), Query{Pattern: "match", MaxResults: 10})
		if err != nil {
			t.Fatal(err)
		}
		// Workers finish the file in hand, so a few files more than the
		// bound may be counted, never the whole tree.
		if !res.Stopped || res.TotalMatches < 500 || res.TotalMatches > 10*400 || len(res.Matches) != 10 {
			t.Errorf("%s: stopped %v after %d matches, %d shown", name, res.Stopped, res.TotalMatches, len(res.Matches))
		}
	}
}

func TestSearchFileBound(t *testing.T) {
	root := newRoot(t, map[string]string{
		"a.txt": strings.Repeat("m\n", FileMatchBound+2000),
		"b.txt": "m\nm\n",
	})
	var results []*Result
	for _, name := range []string{"ripgrep", "go"} {
		res, err := engines(t, root)[name].Search(context.Background(), Query{Pattern: "m", MaxResults: 3, ContextLines: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Capped || res.Stopped || res.TotalMatches != FileMatchBound+2 || res.TotalFiles != 2 {
			t.Errorf("%s: capped %v, stopped %v, %d matches in %d files", name, res.Capped, res.Stopped, res.TotalMatches, res.TotalFiles)
		}
		res.Engine = 0
		results = append(results, res)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Errorf("engines disagree\nripgrep: %s\ngo:      %s", jsonOf(results[0]), jsonOf(results[1]))
	}
}

func TestSearchErrors(t *testing.T) {
	outside := t.TempDir()
	files := map[string]string{"a.txt": "x\n", "link-out": "->" + outside, "sub/b.txt": "x\n"}
	root := newRoot(t, files)
	tests := []struct {
		name    string
		o       Query
		check   func(error) bool
		message string // in the error of both engines
	}{
		{"unclosed group", Query{Pattern: "("}, isPatternError, "("},
		{"bad repetition", Query{Pattern: "*a"}, isPatternError, "*a"},
		{"bad range", Query{Pattern: "[z-a]"}, isPatternError, "z-a"},
		{"line break", Query{Pattern: `a\nb`}, isLineBreak, `\n`},
		{"literal line break", Query{Pattern: "a\nb", Literal: true}, isLineBreak, `\n`},
		{"dot-dot", Query{Pattern: "x", Path: ".."}, isOutside, ""},
		{"absolute outside", Query{Pattern: "x", Path: "/etc"}, isOutside, ""},
		{"symlink out", Query{Pattern: "x", Path: "link-out"}, isOutside, ""},
		{".git", Query{Pattern: "x", Path: ".git/config"}, isPathError, ".git"},
		{"missing", Query{Pattern: "x", Path: "nope"}, func(err error) bool { return errors.Is(err, os.ErrNotExist) }, ""},
		{"bad glob", Query{Pattern: "x", Glob: "[a"}, isGlobError, ""},
		{"glob leaves path", Query{Pattern: "x", Glob: "../*.go"}, isGlobError, ""},
	}
	for _, tt := range tests {
		for name, s := range engines(t, root) {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				_, err := s.Search(context.Background(), tt.o)
				if err == nil || !tt.check(err) {
					t.Fatalf("err = %v (%T)", err, err)
				}
				if !strings.Contains(err.Error(), tt.message) {
					t.Errorf("err = %v, want it to mention %q", err, tt.message)
				}
			})
		}
	}
}

func isPatternError(err error) bool {
	var pe *PatternError
	return errors.As(err, &pe) && pe.Msg != ""
}

func isLineBreak(err error) bool {
	var pe *PatternError
	return errors.As(err, &pe) && pe.LineBreak
}

func isGlobError(err error) bool {
	var ge *GlobError
	return errors.As(err, &ge)
}

func isPathError(err error) bool {
	var pe *workspace.PathError
	return errors.As(err, &pe)
}

func isOutside(err error) bool { return isPathError(err) && errors.Is(err, workspace.ErrOutside) }

func TestSearchCancelled(t *testing.T) {
	root := newRoot(t, map[string]string{"a.txt": "x\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, s := range engines(t, root) {
		if _, err := s.Search(ctx, Query{Pattern: "x"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
	}
}

func TestSearchIgnoreFileTemporary(t *testing.T) {
	// The ignore file handed to rg lives in the temp dir and is removed.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := newRoot(t, map[string]string{".gitignore": "*.log\n", "a.txt": "x\n"})
	if _, err := New(root, Options{}).Search(context.Background(), Query{Pattern: "x"}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "anvil-rg-ignore-*")); len(left) != 0 {
		t.Errorf("left behind: %q", left)
	}
}
