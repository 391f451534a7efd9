package testrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// BenchmarkRunStage times the run stage end to end on a change that
// breaks a test: cold (the unchanged tree's run included, as on a first
// check) and warm (its result cached, as on every later check of the same
// tree), on zod 3 (its source and 545 vitest tests), a small Go module,
// and the real projects of TestRealProjectSuites (cobra, toolz,
// simplejson). With ANVIL_BENCH_REPORT set, the table goes to that file.
//
//	go test -run '^$' -bench BenchmarkRunStage -benchtime 3x ./internal/testrun
func BenchmarkRunStage(b *testing.B) {
	type project struct {
		name, file, from, to string
		setup                func(b testing.TB, dir string) []string
	}
	projects := []project{
		{"zod 3 (vitest)", "src/v3/types.ts", "if (input.data.length < check.value) {", "if (input.data.length <= check.value) {",
			func(b testing.TB, dir string) []string {
				testfs.Write(b, dir, zodProject(b))
				withVitest(b, dir)
				return nil
			}},
		{"go-small", "sorted.go", "xs[i-1] > xs[i]", "xs[i-1] < xs[i]",
			func(b testing.TB, dir string) []string { testfs.Write(b, dir, goProject); return nil }},
	}
	for _, p := range realRunProjects() {
		projects = append(projects, project{p.name, p.file, p.from, p.to, p.setup})
	}
	var rows []string
	for _, p := range projects {
		b.Run(p.name, func(b *testing.B) {
			dir := b.TempDir()
			env := p.setup(b, dir)
			_, root, _ := stageAt(b, dir, env...)
			home := b.TempDir()
			opts := Options{Policy: policyOf(root, append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}, env...), nil, nil)}
			content, err := os.ReadFile(filepath.Join(dir, p.file))
			if err != nil {
				b.Fatal(err)
			}
			broken := map[string]string{p.file: strings.Replace(string(content), p.from, p.to, 1)}
			var last *shadow.RunReport
			run := func(b *testing.B, s *Stage) time.Duration {
				set := setOf(b, root, broken)
				start := time.Now()
				if last = s.Run(context.Background(), set); last.Status != shadow.RunFailed {
					b.Fatalf("%+v", last)
				}
				return time.Since(start)
			}
			warm := New(root, opts)
			first := run(b, warm) // fills the caches: the unchanged tree's result, the build caches
			var cold, hot time.Duration
			b.Run("cold", func(b *testing.B) {
				for b.Loop() {
					cold = run(b, New(root, opts))
				}
			})
			b.Run("warm", func(b *testing.B) {
				for b.Loop() {
					hot = run(b, warm)
				}
			})
			rows = append(rows, fmt.Sprintf("| %s | `%s` | %d | %s | %s | %s |\n", p.name, last.Command, last.Tests, first.Round(100*time.Millisecond), cold.Round(100*time.Millisecond), hot.Round(100*time.Millisecond)))
		})
	}
	report := "| project | what runs | tests | first (cold caches) | cold (build caches warm) | warm |\n|---|---|---:|---:|---:|---:|\n" + strings.Join(rows, "")
	b.Log("\n" + report)
	if out := os.Getenv("ANVIL_BENCH_REPORT"); out != "" {
		_ = os.WriteFile(out, []byte(report), 0o644)
	}
}
