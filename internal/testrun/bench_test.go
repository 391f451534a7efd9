package testrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// BenchmarkRunStage times the run stage end to end on a change that
// breaks a test: cold (the unchanged tree's run included, as on a first
// check) and warm (its result cached, as on every later check of the same
// tree), on zod 3 (its source and 545 vitest tests) and on a small Go
// module.
//
//	go test -run '^$' -bench BenchmarkRunStage -benchtime 3x ./internal/testrun
func BenchmarkRunStage(b *testing.B) {
	projects := []struct {
		name, file, from, to string
		files                func(b *testing.B) map[string]string
		setup                func(b *testing.B, dir string)
	}{
		{"zod", "src/v3/types.ts", "if (input.data.length < check.value) {", "if (input.data.length <= check.value) {",
			func(b *testing.B) map[string]string { return zodProject(b) }, func(b *testing.B, dir string) { withVitest(b, dir) }},
		{"go-small", "sorted.go", "xs[i-1] > xs[i]", "xs[i-1] < xs[i]",
			func(*testing.B) map[string]string { return goProject }, func(*testing.B, string) {}},
	}
	for _, p := range projects {
		b.Run(p.name, func(b *testing.B) {
			files := p.files(b)
			dir := testfs.Tree(b, files)
			p.setup(b, dir)
			root, err := workspace.New(dir)
			if err != nil {
				b.Fatal(err)
			}
			home := b.TempDir()
			opts := Options{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GOCACHE=" + filepath.Join(home, "go-build"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}}
			broken := map[string]string{p.file: strings.Replace(files[p.file], p.from, p.to, 1)}
			run := func(b *testing.B, s *Stage) {
				set := setOf(b, root, broken)
				if rep := s.Run(context.Background(), set); rep.Status != "failed" {
					b.Fatalf("%+v", rep)
				}
			}
			warm := New(root, opts)
			run(b, warm) // fills the caches: the unchanged tree's result, the build caches
			b.Run("cold", func(b *testing.B) {
				for b.Loop() {
					run(b, New(root, opts))
				}
			})
			b.Run("warm", func(b *testing.B) {
				for b.Loop() {
					run(b, warm)
				}
			})
		})
	}
}
