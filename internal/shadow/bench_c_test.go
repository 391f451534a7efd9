package shadow

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// BenchmarkValidateC times the C/C++ check (docs/benchmarks.md, "C and
// C++"): a cold first check, a warm one-file check of a source (clangd),
// a warm header change whose includers are compiled in a shadow tree, and
// the project's own commands for the same edits (make of the one object;
// gcc -fsyntax-only of the header's includers), written to disk.
func BenchmarkValidateC(b *testing.B) {
	for _, p := range []struct {
		name             string
		setup            func(b *testing.B) string
		source           string // gains an error
		header, from, to string
		object           []string // the project's command for the source's object
		includers        []string // the header's translation units
		flags            []string
	}{
		{name: "c-small", setup: func(b *testing.B) string {
			dir := testfs.Copy(b, fixture("c"))
			absoluteCompileCommands(b, dir)
			return dir
		}, source: "src/standalone.c", header: "include/shapes.h", from: "int x;", to: "int xx;",
			object: []string{"make", "-s", "build/standalone.o"}, includers: []string{"src/main.c", "src/report.c", "src/shapes.c"}, flags: []string{"-Iinclude", "-Wall"}},
		{name: "tree-sitter", setup: func(b *testing.B) string { return treeSitterRuntime(b) },
			source: "src/alloc.c", header: "src/tree_cursor.h", from: "TSSymbol root_alias_symbol;", to: "TSSymbol root_alias;",
			object:    []string{"gcc", "-std=c11", "-Iinclude", "-Isrc", "-O2", "-c", "src/alloc.c", "-o", "src/alloc.o"},
			includers: []string{"src/get_changed_ranges.c", "src/lib.c", "src/parser.c", "src/query.c", "src/tree.c", "src/tree_cursor.c", "src/wasm_store.c"},
			flags:     []string{"-std=c11", "-Iinclude", "-Isrc", "-O2"}},
	} {
		b.Run(p.name, func(b *testing.B) {
			dir := p.setup(b)
			root, err := workspace.New(dir)
			if err != nil {
				b.Fatal(err)
			}
			source, header := readFile(b, dir, p.source), readFile(b, dir, p.header)
			n := 0
			bad := func() string { n++; return source + fmt.Sprintf("\nint bad_%d(void) { return \"x\" * %d; }\n", n, n) }
			b.Run("cold", func(b *testing.B) {
				var samples []time.Duration
				for b.Loop() {
					env := newBenchEnv(b, root, "clangd", nil)
					set := changeSet(b, root, p.source, bad())
					start := time.Now()
					res := env.validate(b, set)
					samples = append(samples, time.Since(start))
					expectNewIn(b, res, p.source)
					b.StopTimer()
					env.close()
					b.StartTimer()
				}
				reportPercentiles(b, samples)
			})
			warm := newBenchEnv(b, root, "clangd", nil)
			b.Cleanup(warm.close)
			b.Run("warm-source", func(b *testing.B) {
				expectNewIn(b, warm.validate(b, changeSet(b, root, p.source, bad())), p.source)
				var samples []time.Duration
				for b.Loop() {
					set := changeSet(b, root, p.source, bad())
					start := time.Now()
					res := warm.validate(b, set)
					samples = append(samples, time.Since(start))
					expectNewIn(b, res, p.source)
				}
				reportPercentiles(b, samples)
			})
			b.Run("warm-header", func(b *testing.B) {
				changed := strings.Replace(header, p.from, p.to, 1)
				var samples []time.Duration
				for b.Loop() {
					set := changeSet(b, root, p.header, changed)
					start := time.Now()
					res := warm.validate(b, set)
					samples = append(samples, time.Since(start))
					if res.Verdict != Rejected {
						b.Fatalf("header change: %s", describe(res))
					}
				}
				reportPercentiles(b, samples)
			})
			// The project's own commands, over the change written to disk.
			run := func(b *testing.B, argv ...string) {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				cmd.Run() // the edits have errors: the status is not judged
			}
			b.Run("make-object", func(b *testing.B) {
				var samples []time.Duration
				for b.Loop() {
					write(b, dir, p.source, bad())
					start := time.Now()
					run(b, p.object...)
					samples = append(samples, time.Since(start))
				}
				write(b, dir, p.source, source)
				reportPercentiles(b, samples)
			})
			b.Run("gcc-includers", func(b *testing.B) {
				write(b, dir, p.header, strings.Replace(header, p.from, p.to, 1))
				var samples []time.Duration
				for b.Loop() {
					start := time.Now()
					for _, u := range p.includers {
						run(b, append(append([]string{"gcc"}, p.flags...), "-fsyntax-only", u)...)
					}
					samples = append(samples, time.Since(start))
				}
				write(b, dir, p.header, header)
				reportPercentiles(b, samples)
			})
		})
	}
}

func write(b *testing.B, dir, rel, content string) {
	b.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}
