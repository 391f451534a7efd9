package syntax

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestSyntaxLanguageForPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want Language
		ok   bool
	}{
		{"a.ts", TypeScript, true},
		{"lib/a.mts", TypeScript, true},
		{"a.cts", TypeScript, true},
		{"types.d.ts", TypeScript, true},
		{"App.tsx", TSX, true},
		{"a.js", JavaScript, true},
		{"App.jsx", JavaScript, true},
		{"a.mjs", JavaScript, true},
		{"a.cjs", JavaScript, true},
		{"main.go", Go, true},
		{"app.py", Python, true},
		{"stub.pyi", Python, true},
		{"lib.rs", Rust, true},
		{"UPPER.GO", Go, true},
		{"README.md", 0, false},
		{"Makefile", 0, false},
	}
	for _, tc := range tests {
		got, ok := LanguageForPath(tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("LanguageForPath(%q) = %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSyntaxParseKindAndLanguage(t *testing.T) {
	t.Parallel()
	for _, k := range Kinds() {
		for _, s := range []string{k.String(), k.Plural(), strings.ToUpper(k.Plural())} {
			if got, ok := ParseKind(s); !ok || got != k {
				t.Errorf("ParseKind(%q) = %v, %v; want %v", s, got, ok, k)
			}
		}
	}
	if _, ok := ParseKind("widgets"); ok {
		t.Error("ParseKind(widgets) succeeded")
	}
	for _, l := range Languages() {
		if got, ok := ParseLanguage(l.String()); !ok || got != l {
			t.Errorf("ParseLanguage(%q) = %v, %v", l, got, ok)
		}
	}
}

func TestSyntaxOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"  func f(\n\ta int,\n\tb int,\n) error  ", "func f(a int, b int,) error"},
		{"x\t\t=\r\n  1", "x = 1"},
		{"a\xffb", "a\uFFFDb"},
		{strings.Repeat("é", 200), strings.Repeat("é", maxSignature-1) + "…"},
		{strings.Repeat("a", maxSignature), strings.Repeat("a", maxSignature)},
	}
	for _, tc := range tests {
		if got := oneLine([]byte(tc.in)); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSyntaxCacheHitAndClose(t *testing.T) {
	ctx := context.Background()
	p := New(Options{})
	src := []byte("package a\n\nfunc F() {}\n")

	first, err := p.Symbols(ctx, Go, src)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	if s.Misses != 1 || s.Hits != 0 || s.Entries != 1 || s.LiveTrees != 1 {
		t.Fatalf("after first parse: %+v, want 1 miss, 1 entry, 1 live tree", s)
	}
	second, err := p.Symbols(ctx, Go, append([]byte(nil), src...))
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Hits != 1 || s.Misses != 1 {
		t.Fatalf("identical content: %+v, want a hit", s)
	}
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Fatalf("cached symbols differ:\n%v\n%v", first, second)
	}
	// Callers get copies: changing one must not change the cache.
	second[0].Name = "changed"
	third, _ := p.Symbols(ctx, Go, src)
	if third[0].Name == "changed" {
		t.Fatal("Symbols returned the cached slice itself")
	}
	// The same bytes in another language are another parse.
	if _, err := p.Symbols(ctx, Rust, src); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Misses != 2 || s.Entries != 2 {
		t.Fatalf("other language: %+v, want a second miss", s)
	}
	// A raw query reuses the cached tree through a copy that it frees.
	q, err := NewQuery(Go, "(function_declaration name: (identifier) @name)")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if _, _, err := p.Match(ctx, q, src, 0); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.LiveTrees != 2 || s.Hits != 3 {
		t.Fatalf("after Match: %+v, want a hit and only the 2 cached trees alive", s)
	}

	p.Close()
	if s := p.Stats(); s.LiveTrees != 0 || s.Entries != 0 || s.Trees != 0 {
		t.Fatalf("after Close: %+v, want no trees", s)
	}
	if _, err := p.Symbols(ctx, Go, src); !errors.Is(err, ErrClosed) {
		t.Fatalf("Symbols after Close: %v, want ErrClosed", err)
	}
	p.Close() // idempotent
}

func TestSyntaxCacheBounds(t *testing.T) {
	ctx := context.Background()
	src := func(i int) []byte { return fmt.Appendf(nil, "package a\n\nfunc F%d() {}\n", i) }
	size := len(src(0))

	p := New(Options{MaxEntries: 3})
	defer p.Close()
	for i := range 10 {
		if _, err := p.Symbols(ctx, Go, src(i)); err != nil {
			t.Fatal(err)
		}
	}
	if s := p.Stats(); s.Entries != 3 || s.Trees != 3 || s.LiveTrees != 3 {
		t.Fatalf("after 10 files with MaxEntries 3: %+v", s)
	}

	// Trees have their own, smaller budget; symbols outlive them.
	q, err := NewQuery(Go, "(function_declaration) @f")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	small := New(Options{MaxTreeBytes: size})
	defer small.Close()
	for i := range 2 {
		if _, err := small.Symbols(ctx, Go, src(i)); err != nil {
			t.Fatal(err)
		}
	}
	if s := small.Stats(); s.Entries != 2 || s.Trees != 1 || s.LiveTrees != 1 || s.Misses != 2 {
		t.Fatalf("two files, one tree's budget: %+v", s)
	}
	if _, err := small.Symbols(ctx, Go, src(0)); err != nil {
		t.Fatal(err)
	}
	if s := small.Stats(); s.Hits != 1 || s.Misses != 2 {
		t.Fatalf("symbols of a file whose tree was evicted: %+v, want a hit without parsing", s)
	}
	if _, _, err := small.Match(ctx, q, src(0), 0); err != nil {
		t.Fatal(err)
	}
	if s := small.Stats(); s.Misses != 3 || s.Trees != 1 || s.Entries != 2 || s.LiveTrees != 1 {
		t.Fatalf("query on a file whose tree was evicted: %+v, want a reparse that displaces the other tree", s)
	}

	none := New(Options{MaxSymbolBytes: 64})
	defer none.Close()
	big := []byte("package a\n\n" + strings.Repeat("func f() {}\n", 20))
	if _, err := none.Symbols(ctx, Go, big); err != nil {
		t.Fatal(err)
	}
	if s := none.Stats(); s.Entries != 0 || s.LiveTrees != 0 {
		t.Fatalf("source over MaxSymbolBytes was cached: %+v", s)
	}
}

// TestSyntaxConcurrentEviction hammers a tiny cache from many goroutines so
// that trees are evicted while others use copies of them; run with -race.
func TestSyntaxConcurrentEviction(t *testing.T) {
	ctx := context.Background()
	p := New(Options{MaxEntries: 3, MaxTreeBytes: 64})
	q, err := NewQuery(Go, "(call_expression function: (identifier) @fn)")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				src := fmt.Appendf(nil, "package a\n\nfunc f%d() { g%d() }\n", (g+i)%5, (g+i)%5)
				syms, err := p.Symbols(ctx, Go, src)
				if err != nil || len(syms) == 0 {
					errs <- fmt.Errorf("symbols: %v %v", syms, err)
					return
				}
				caps, total, err := p.Match(ctx, q, src, 0)
				if err != nil || total != 1 || caps[0].Text != fmt.Sprintf("g%d", (g+i)%5) {
					errs <- fmt.Errorf("match: %v %d %v", caps, total, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	p.Close()
	if n := p.Stats().LiveTrees; n != 0 {
		t.Fatalf("%d trees leaked", n)
	}
}

func TestSyntaxCancelled(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Symbols(ctx, Go, []byte("package a")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Symbols with a cancelled context: %v", err)
	}
}
