package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkShadowSetup times making and throwing away a view of a tree in
// which a command can write, against tree size: a shadow tree (the run of
// "true" in it, process start included, and the helper's own setup
// time), beside a copy (cp -r, cp --reflink=auto, which is a plain copy
// where the file system cannot clone) and a git worktree.
//
//	go test -run '^$' -bench BenchmarkShadowSetup -benchtime 5x ./internal/sandbox
func BenchmarkShadowSetup(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			src := benchTree(b, n)
			b.Run("shadow", func(b *testing.B) {
				var setup time.Duration
				for b.Loop() {
					res, err := Run(context.Background(), Spec{Seal: hostSeal(), Root: src, Env: env(), Argv: []string{"true"},
						Changes: []Change{{Path: "d0000/f00000.txt", Content: []byte("changed\n")}}})
					if err != nil || res.ExitCode != 0 {
						b.Fatalf("%v %+v", err, res)
					}
					setup += res.Setup
				}
				b.ReportMetric(float64(setup.Microseconds())/1000/float64(b.N), "setup-ms")
			})
			copyCase := func(name string, make func(dst string) *exec.Cmd, remove func(dst string) *exec.Cmd) {
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						dst := filepath.Join(b.TempDir(), "copy")
						if out, err := make(dst).CombinedOutput(); err != nil {
							b.Fatalf("%v\n%s", err, out)
						}
						if out, err := remove(dst).CombinedOutput(); err != nil {
							b.Fatalf("%v\n%s", err, out)
						}
					}
				})
			}
			rm := func(dst string) *exec.Cmd { return exec.Command("rm", "-rf", dst) }
			copyCase("cp-r", func(dst string) *exec.Cmd { return exec.Command("cp", "-r", src, dst) }, rm)
			copyCase("cp-reflink", func(dst string) *exec.Cmd { return exec.Command("cp", "-r", "--reflink=auto", src, dst) }, rm)
			if _, err := exec.LookPath("git"); err == nil {
				gitInit(b, src)
				copyCase("git-worktree",
					func(dst string) *exec.Cmd {
						return exec.Command("git", "-C", src, "worktree", "add", "-q", "--detach", dst)
					},
					func(dst string) *exec.Cmd {
						return exec.Command("git", "-C", src, "worktree", "remove", "--force", dst)
					})
			}
		})
	}
}

// benchTree is a tree of n small files in directories of 100, kept
// between runs in the temporary directory (making 100,000 files takes
// longer than the benchmark).
func benchTree(b *testing.B, n int) string {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("anvil-bench-tree-%d", n))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), []byte(fmt.Sprintf("file %d\n%0200d\n", i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func gitInit(b *testing.B, dir string) {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "tree"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
