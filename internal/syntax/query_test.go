package syntax

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestSyntaxQueryErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		lang   Language
		query  string
		kind   string
		offset int
		msg    string // substring of Error()
	}{
		{"unknown node type", Go, "(function_definition) @f", "node type", 1, `invalid node type "function_definition" at 1:2`},
		{"unknown field", Go, "(function_declaration nme: (identifier))", "field", 22, `invalid field "nme"`},
		{"unbalanced parens", Python, "(function_definition", "syntax", 20, "syntax error"},
		{"second line", Rust, "(function_item)\n(bogus_item) @x", "node type", 17, "at 2:2"},
		{"impossible pattern", TypeScript, "(identifier (identifier))", "structure", 12, "structure error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := NewQuery(tc.lang, tc.query)
			if err == nil {
				q.Close()
				t.Fatal("query compiled")
			}
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("error %T %v, want *QueryError", err, err)
			}
			if qe.Kind != tc.kind || qe.Offset != tc.offset || qe.Language != tc.lang {
				t.Errorf("got kind %q offset %d lang %v; want %q %d %v", qe.Kind, qe.Offset, qe.Language, tc.kind, tc.offset, tc.lang)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Error() = %q, want it to contain %q", err.Error(), tc.msg)
			}
		})
	}
}

func TestSyntaxSymbolQueriesCompile(t *testing.T) {
	t.Parallel()
	for _, l := range Languages() {
		q, err := NewQuery(l, symbolQuery(l))
		if err != nil {
			t.Errorf("%s symbol query: %v", l, err)
			continue
		}
		q.Close()
	}
}

func TestSyntaxMatch(t *testing.T) {
	ctx := context.Background()
	p := New(Options{})
	defer p.Close()
	src, err := os.ReadFile("testdata/ts/service.ts")
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewQuery(TypeScript, `(method_definition name: (property_identifier) @name (#match? @name "^(save|find)$")) @method`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()

	caps, total, err := p.Match(ctx, q, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 4 || len(caps) != 4 {
		t.Fatalf("got %d captures (total %d), want 4: %+v", len(caps), total, caps)
	}
	first := caps[0]
	if first.Name != "method" || first.NodeType != "method_definition" || first.Line != 35 || first.Column != 3 || first.EndLine != 37 {
		t.Errorf("first capture = %+v", first)
	}
	if !strings.HasPrefix(first.Text, "async save(item: T): Promise<void> { await this.pool.query(") {
		t.Errorf("capture text not on one line: %q", first.Text)
	}
	if caps[1].Name != "name" || caps[1].Text != "save" {
		t.Errorf("second capture = %+v", caps[1])
	}

	limited, total, err := p.Match(ctx, q, src, 1)
	if err != nil || len(limited) != 1 || total != 4 {
		t.Fatalf("limit 1: %d captures, total %d, %v", len(limited), total, err)
	}
}
