package changeset

import (
	"errors"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

func str(s string) *string { return &s }

func TestLoad(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"a.ts":    "let a = 1;\n",
		"crlf.ts": "a\r\nb\r\n",
		"bin.dat": "x\x00y",
		"d/x.ts":  "",
	})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := Load(root, []Spec{
		{Path: "a.ts", Content: str("let a = 2;\n")},
		{Path: "new/b.ts", Content: str("export {};\n")},
		{Path: "d/x.ts", Delete: true},
		{Path: "crlf.ts", Content: str("a\nb\nc\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.Paths(), ","); got != "a.ts,crlf.ts,d/x.ts,new/b.ts" {
		t.Fatalf("paths %s", got)
	}
	a, _ := set.Get("a.ts")
	if string(a.Base) != "let a = 1;\n" || !a.BaseExists || a.Created() || a.Unchanged() {
		t.Errorf("a.ts: %+v", a)
	}
	b, _ := set.Get("new/b.ts")
	if !b.Created() || b.BaseExists {
		t.Errorf("new/b.ts should be created: %+v", b)
	}
	c, _ := set.Get("crlf.ts")
	if string(c.Content) != "a\r\nb\r\nc\r\n" {
		t.Errorf("CRLF not kept: %q", c.Content)
	}

	bad := []struct {
		spec Spec
		want string
	}{
		{Spec{Path: "../x.ts", Content: str("")}, "outside the workspace"},
		{Spec{Path: "a.ts"}, "exactly one of content and delete"},
		{Spec{Path: "a.ts", Content: str(""), Delete: true}, "exactly one of content and delete"},
		{Spec{Path: "missing.ts", Delete: true}, "does not exist"},
		{Spec{Path: "d", Content: str("")}, "is a directory"},
		{Spec{Path: "bin.dat", Content: str("")}, "binary file"},
		{Spec{Path: "", Content: str("")}, "path is required"},
		{Spec{Path: ".", Content: str("")}, "not a file"},
	}
	for _, tt := range bad {
		if _, err := Load(root, []Spec{tt.spec}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.spec, err, tt.want)
		}
	}
	if _, err := Load(root, []Spec{{Path: "a.ts", Content: str("1")}, {Path: "./a.ts", Content: str("2")}}); err == nil || !strings.Contains(err.Error(), "more than once") {
		t.Errorf("duplicate: %v", err)
	}
}

// Input that would reach the user's files changed is refused.
func TestParseRefusesWhatWouldChange(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"invalid UTF-8", "{\"changes\": [{\"path\": \"a\", \"content\": \"\xff\"}]}", "not valid UTF-8"},
		{"a lone high surrogate", `{"changes": [{"path": "a", "content": "x\ud800y"}]}`, "lone UTF-16 surrogate"},
		{"a lone low surrogate", `{"changes": [{"path": "a", "content": "\udc00"}]}`, "lone UTF-16 surrogate"},
		{"a duplicate key", `{"changes": [{"path": "a", "content": "1", "content": "2"}]}`, `"content" appears twice`},
		{"trailing data", `{"changes": [{"path": "a", "content": "1"}]} {"changes": []}`, "data after the document"},
		{"an unknown field", `{"changes": [{"path": "a", "contents": "1"}]}`, "unknown field"},
		{"no changes", `{"changes": []}`, "no changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	specs, err := Parse([]byte(`{"changes": [{"path": "a", "content": "\ud83d\ude00 \u00e9\\n"}]}`))
	if err != nil || *specs[0].Content != "😀 é\\n" {
		t.Fatalf("a valid pair and escapes: %q, %v", *specs[0].Content, err)
	}
}

func TestLineEndingsPerLine(t *testing.T) {
	for _, tc := range []struct{ name, base, content, want string }{
		{"all CRLF", "a\r\nb\r\n", "a\nb\nc\n", "a\r\nb\r\nc\r\n"},
		{"mixed, kept per line", "a\r\nb\nc\r\n", "a\nb\nc\nd\n", "a\r\nb\nc\r\nd\r\n"},
		{"mixed, a line inserted after an LF line", "a\r\nb\nc\r\n", "a\nb\nnew\nc\n", "a\r\nb\nnew\nc\r\n"},
		{"content with its own CRLF", "a\r\nb\n", "x\r\ny\n", "x\r\ny\n"},
		{"LF base", "a\nb\n", "a\nb\nc\n", "a\nb\nc\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Change{Base: []byte(tc.base), BaseExists: true, Content: []byte(tc.content)}
			c.MatchLineEndings()
			if string(c.Content) != tc.want {
				t.Errorf("got %q, want %q", c.Content, tc.want)
			}
		})
	}
}

func TestLoadRefusesProtectedAndStale(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"a.ts": "1\n", ".git/config": "[core]\n", ".anvil/config.toml": "", "sub/.git": "gitdir: x\n"})
	root, _ := workspace.New(dir)
	for _, p := range []string{".git/config", ".git/hooks/pre-commit", ".anvil/config.toml", "sub/.git", "vendor/.GIT/x"} {
		if _, err := Load(root, []Spec{{Path: p, Content: str("x")}}); err == nil || !strings.Contains(err.Error(), "never writes there") {
			t.Errorf("%s: err = %v, want it refused", p, err)
		}
	}
	_, err := Load(root, []Spec{{Path: "a.ts", Content: str("2\n"), BaseSHA256: Hash([]byte("0\n"))}, {Path: "b.ts", Content: str("x"), BaseSHA256: Absent}})
	var stale *StaleError
	if !errors.As(err, &stale) || strings.Join(stale.Paths, ",") != "a.ts" {
		t.Fatalf("err = %v, want a.ts stale and b.ts fine", err)
	}
	if _, err := Load(root, []Spec{{Path: "a.ts", Content: str("2\n"), BaseSHA256: Hash([]byte("1\n"))}}); err != nil {
		t.Fatalf("a matching base: %v", err)
	}
}
