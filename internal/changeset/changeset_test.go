package changeset

import (
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
