package search

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// BenchmarkSearch searches Go's own source tree, $(go env GOROOT)/src, a
// large real tree, three ways: rg run bare (the baseline: the same flags
// without --json, its output discarded), the ripgrep engine and the Go
// engine. scripts/bench-search.sh turns the numbers into a table.
func BenchmarkSearch(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	root, err := workspace.New(filepath.Join(strings.TrimSpace(string(out)), "src"))
	if err != nil {
		b.Fatal(err)
	}
	es := engines(b, root)
	queries := []struct {
		name string
		o    Query
	}{
		{"regex", Query{Pattern: `func New[A-Z]\w*\(`}},
		{"literal", Query{Pattern: "errors.New(", Literal: true}},
		{"literal-i", Query{Pattern: "ERRORS.NEW(", Literal: true, CaseInsensitive: true}},
		{"regex-noliteral", Query{Pattern: `[A-Z][a-z]+[0-9]{4}\b`}},
	}
	for _, q := range queries {
		b.Run(q.name+"/rg-bare", func(b *testing.B) {
			p, err := es["ripgrep"].plan(q.o)
			if err != nil {
				b.Fatal(err)
			}
			args := append(ripgrepFlags(), ripgrepArgs(p, "")...)
			for b.Loop() {
				cmd := exec.Command(es["ripgrep"].rg, args...)
				cmd.Dir = root.Dir()
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, name := range []string{"ripgrep", "go"} {
			b.Run(q.name+"/"+name, func(b *testing.B) {
				var res *Result
				for b.Loop() {
					res, err = es[name].Search(context.Background(), q.o)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(res.TotalMatches), "matches")
			})
		}
	}
}
