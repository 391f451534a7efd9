package syntax

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The benchmarks run on real, large inputs found on the machine: the Go
// standard library, and for TypeScript the example parser shipped in the
// grammar module plus any TypeScript compiler installed for the language
// server. Where none is found they fall back to repeating the testdata.

// benchInput is a named source to parse.
type benchInput struct {
	name string
	lang Language
	srcs [][]byte
}

func (in benchInput) size() int64 {
	var n int64
	for _, s := range in.srcs {
		n += int64(len(s))
	}
	return n
}

// netHTTPDir returns GOROOT's src/net/http. GOROOT comes from the go
// command: runtime.GOROOT is deprecated, and empty in a -trimpath build.
func netHTTPDir(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http")
}

// goInputs returns the non-test Go files of net/http in GOROOT.
func goInputs(b *testing.B) benchInput {
	b.Helper()
	dir := netHTTPDir(b)
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	in := benchInput{name: "go-net-http", lang: Go}
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") {
			continue
		}
		src, err := os.ReadFile(m)
		if err != nil {
			b.Fatal(err)
		}
		in.srcs = append(in.srcs, src)
	}
	if len(in.srcs) == 0 {
		b.Skipf("no Go sources under %s", dir)
	}
	return in
}

// tsInputs returns large TypeScript files: implementation code and
// declaration files.
func tsInputs(b *testing.B) []benchInput {
	b.Helper()
	var out []benchInput
	if dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/tree-sitter/tree-sitter-typescript").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(dir)), "examples", "parser.ts")
		if src, err := os.ReadFile(p); err == nil {
			out = append(out, benchInput{name: "ts-parser.ts", lang: TypeScript, srcs: [][]byte{src}})
		}
	}
	home, _ := os.UserHomeDir()
	for _, lib := range []string{
		filepath.Join(home, ".local/share/anvil/tools/ts-legacy/node_modules/typescript/lib"),
		filepath.Join(home, ".local/share/anvil/tools/node/node_modules/typescript/lib"),
		"/usr/lib/node_modules/typescript/lib",
	} {
		in := benchInput{name: "ts-d.ts", lang: TypeScript}
		for _, f := range []string{"typescript.d.ts", "lib.dom.d.ts"} {
			if src, err := os.ReadFile(filepath.Join(lib, f)); err == nil {
				in.srcs = append(in.srcs, src)
			}
		}
		if len(in.srcs) > 0 {
			out = append(out, in)
			break
		}
	}
	if len(out) == 0 {
		sample, err := os.ReadFile("testdata/ts/service.ts")
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, benchInput{name: "ts-generated", lang: TypeScript, srcs: [][]byte{bytes.Repeat(sample, 200)}})
	}
	return out
}

// BenchmarkSyntaxParse measures raw parsing throughput, without the cache.
func BenchmarkSyntaxParse(b *testing.B) {
	inputs := append(tsInputs(b), goInputs(b))
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			p := New(Options{})
			defer p.Close()
			st, err := p.state(in.lang)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(in.size())
			for b.Loop() {
				for _, src := range in.srcs {
					t, err := p.parse(st, src)
					if err != nil {
						b.Fatal(err)
					}
					p.closeTree(t)
				}
			}
		})
	}
}

// BenchmarkSyntaxSymbols measures parsing plus symbol extraction of every
// kind, with caching disabled.
func BenchmarkSyntaxSymbols(b *testing.B) {
	ctx := context.Background()
	inputs := append(tsInputs(b), goInputs(b))
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			p := New(Options{MaxSymbolBytes: 1}) // nothing fits: every call parses
			defer p.Close()
			b.SetBytes(in.size())
			for b.Loop() {
				for _, src := range in.srcs {
					if _, err := p.Symbols(ctx, in.lang, src); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkSyntaxFunctionsDir is a `functions` search over every Go file in
// net/http, tests included, read from disk each time: cold with a new
// Parser per search, warm with one that has seen the files.
func BenchmarkSyntaxFunctionsDir(b *testing.B) {
	ctx := context.Background()
	dir := netHTTPDir(b)
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(files) == 0 {
		b.Skipf("no Go sources under %s", dir)
	}
	search := func(b *testing.B, p *Parser) int {
		n := 0
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			syms, err := p.Symbols(ctx, Go, src)
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range syms {
				if s.Kind == Function {
					n++
				}
			}
		}
		return n
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			p := New(Options{})
			search(b, p)
			p.Close()
		}
	})
	b.Run("warm", func(b *testing.B) {
		p := New(Options{})
		defer p.Close()
		want := search(b, p)
		for b.Loop() {
			if got := search(b, p); got != want {
				b.Fatalf("warm search found %d functions, cold %d", got, want)
			}
		}
		b.ReportMetric(float64(want), "functions")
		b.ReportMetric(float64(len(files)), "files")
	})
}
