package search

import (
	"bytes"
	"math/rand/v2"
	"regexp/syntax"
	"testing"
)

func TestSearchUnicodeClasses(t *testing.T) {
	tests := []struct{ in, want string }{
		{`foo`, `foo`},
		{`\d+`, `\p{Nd}+`},
		{`\w`, `[` + uniWord + `]`},
		{`\W`, `[^` + uniWord + `]`},
		{`\s\S`, `[` + uniSpace + `][^` + uniSpace + `]`},
		{`\D`, `\P{Nd}`},
		{`[\w-]`, `[` + uniWord + `-]`},
		{`[^\d\s]`, `[^` + uniDigit + uniSpace + `]`},
		{`[\W_]`, `[\W_]`}, // cannot be written in Go: stays ASCII
		{`\\w`, `\\w`},
		{`[]\w]`, `[]` + uniWord + `]`},
		{`[^]\d]`, `[^]` + uniDigit + `]`},
		{`[[:alpha:]\d]`, `[[:alpha:]` + uniDigit + `]`},
		{`\Q\w\E\w`, `\Q\w\E[` + uniWord + `]`},
		{`\p{Greek}\b`, `\p{Greek}\b`},
		{`x\`, `x\`},
	}
	for _, tt := range tests {
		if got := unicodeClasses(tt.in); got != tt.want {
			t.Errorf("unicodeClasses(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if _, err := syntax.Parse(unicodeClasses(tt.in), syntax.Perl); err != nil && tt.in != `x\` {
			t.Errorf("unicodeClasses(%q) does not parse: %v", tt.in, err)
		}
	}
}

func TestSearchRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		lit     string
		plain   bool
	}{
		{`foo`, "foo", true},
		{`func New[A-Z]\w*\(`, "func New", false},
		{`(?i)foo`, "foo", false},
		{`(?i)Foo(?-i)Bar`, "foobar", false},
		{`(?i)kelvin`, "elvin", false},
		{`(?i)café`, "caf", false},
		{`a+bcd`, "bcd", false},
		{`(hello)+ x`, " x", false}, // x looks rarer than any letter of hello
		{`x?yz`, "yz", false},
		{`foo|bar`, "", false},
		{`\d+\.\d+`, ".", false},
		{`(?:abc){2}`, "abcabc", false},
		{``, "", true},
	}
	for _, tt := range tests {
		m, err := compile(&plan{pattern: tt.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(m.lit.lit); got != tt.lit || (m.re == nil) != tt.plain {
			t.Errorf("%q: literal %q (plain %v), want %q (plain %v)", tt.pattern, got, m.re == nil, tt.lit, tt.plain)
		}
	}
}

func TestSearchRootRelative(t *testing.T) {
	tests := []struct{ line, dir, want string }{
		{"*.log", ".", "*.log"},
		{"/build", ".", "/build"},
		{"*.log", "src", "/src/**/*.log"},
		{"!keep.log", "src", "!/src/**/keep.log"},
		{"gen/", "src", "/src/**/gen/"},
		{"/gen/", "src/lib", "/src/lib/gen/"},
		{"a/b", "src", "/src/a/b"},
		{"**/x", "src", "/src/**/x"},
		{`\#hash`, "src", `/src/**/\#hash`},
		{"*.md", "we[ir]d", `/we\[ir\]d/**/*.md`},
		{"/", "src", ""},
	}
	for _, tt := range tests {
		if got := rootRelative(tt.line, tt.dir); got != tt.want {
			t.Errorf("rootRelative(%q, %q) = %q, want %q", tt.line, tt.dir, got, tt.want)
		}
	}
}

func TestSearchNameGlob(t *testing.T) {
	tests := []struct {
		glob string
		want string
		ok   bool
	}{
		{"*.go", "*.go", true},
		{"*.{ts,tsx}", "*.{ts,tsx}", true},
		{"src/**/*_test.go", "*_test.go", true},
		{"src/**", "", false},
		{"a/{b/c,d}.go", "", false},
		{`\*.go`, "", false},
		{"*.{,go}", "", false},
	}
	for _, tt := range tests {
		g := &globFilter{pattern: tt.glob}
		if got, ok := g.nameGlob(); got != tt.want || ok != tt.ok {
			t.Errorf("nameGlob(%q) = %q, %v; want %q, %v", tt.glob, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSearchFinder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "aAeNn(. "[rng.IntN(8)]
		}
		return b
	}
	for range 2000 {
		s, lit := word(rng.IntN(40)), word(rng.IntN(5))
		if got, want := newFinder(lit, false).index(s), bytes.Index(s, lit); got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", s, lit, got, want)
		}
		if got, want := newFinder(lit, true).index(s), bytes.Index(bytes.ToLower(s), bytes.ToLower(lit)); got != want {
			t.Fatalf("fold index(%q, %q) = %d, want %d", s, lit, got, want)
		}
	}
}
