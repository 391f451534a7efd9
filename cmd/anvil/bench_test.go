package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anvil-dev/anvil/internal/corpus"
	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// BenchmarkCheck times what a user or another agent waits for: 'anvil
// check' end to end, the process's start included, with servers of its
// own (cold) and through a warm daemon; and check_changes over one MCP
// session. Every iteration checks new text: a line with a type error in
// one file, under a fresh name.
//
//	go test -run '^$' -bench BenchmarkCheck -benchtime 20x ./cmd/anvil
func BenchmarkCheck(b *testing.B) {
	projects := []struct {
		name, target string
		setup        func(b *testing.B) string
	}{
		{"ts-1000", "src/f07/m23.ts", func(b *testing.B) string { return testfs.Tree(b, corpus.TSProject()) }},
		{"zod", "src/v3/locales/en.ts", func(b *testing.B) string {
			dir := b.TempDir()
			src := filepath.Join(testCorpus().NPMPackage(b, "zod@3.25.76"), "src", "v3")
			files := map[string]string{
				"package.json": `{"name": "zod-corpus", "private": true, "type": "module"}`,
				"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
					"target": "es2022", "skipLibCheck": true, "lib": ["es2022", "dom"]}, "include": ["src"], "exclude": ["src/**/tests/**", "src/**/benchmarks/**"]}`,
			}
			for p, c := range testfs.Snapshot(b, src) {
				if strings.HasSuffix(p, ".ts") {
					files["src/v3/"+p] = c
				}
			}
			testfs.Write(b, dir, files)
			return dir
		}},
	}
	for _, p := range projects {
		b.Run(p.name, func(b *testing.B) {
			dir := p.setup(b)
			e := newBenchEnv(b)
			base, err := os.ReadFile(filepath.Join(dir, p.target))
			if err != nil {
				b.Fatal(err)
			}
			run := 0
			changeSet := func() string {
				run++
				content := string(base) + fmt.Sprintf("\nexport const anvilBench%d_%d: number = \"oops\";\n", time.Now().UnixNano()%1e6, run)
				cs, _ := json.Marshal(map[string]any{"changes": []map[string]any{{"path": p.target, "content": content}}})
				f := filepath.Join(b.TempDir(), "cs.json")
				if err := os.WriteFile(f, cs, 0o644); err != nil {
					b.Fatal(err)
				}
				return f
			}
			check := func(b *testing.B, extra ...string) {
				f := changeSet()
				args := append([]string{"check", "-C", dir}, extra...)
				cmd := exec.Command(filepath.Join(binDir, "anvil"), append(args, f)...)
				cmd.Env = e.environ()
				out, err := cmd.CombinedOutput()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitRejected || !bytes.Contains(out, []byte("rejected")) {
					b.Fatalf("anvil check: %v\n%s", err, out)
				}
			}
			b.Run("cold", func(b *testing.B) {
				var samples []time.Duration
				for b.Loop() {
					start := time.Now()
					check(b, "--no-daemon")
					samples = append(samples, time.Since(start))
				}
				percentiles(b, samples)
			})
			b.Run("daemon-warm", func(b *testing.B) {
				defer e.stop(b)
				check(b) // starts the daemon and its servers, untimed
				var samples []time.Duration
				for b.Loop() {
					start := time.Now()
					check(b)
					samples = append(samples, time.Since(start))
				}
				percentiles(b, samples)
				b.ReportMetric(float64(e.daemonRSS(b))/1024, "daemon-RSS-MiB")
			})
			b.Run("mcp-warm", func(b *testing.B) {
				defer e.stop(b)
				cmd := exec.Command(filepath.Join(binDir, "anvil"), "mcp", "-C", dir)
				cmd.Env = e.environ()
				ctx := context.Background()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				call := func() {
					var args map[string]any
					data, _ := os.ReadFile(changeSet())
					_ = json.Unmarshal(data, &args)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "check_changes", Arguments: args})
					if err != nil || res.IsError {
						b.Fatalf("check_changes: %v %+v", err, res)
					}
					if v, _ := res.StructuredContent.(map[string]any); v["verdict"] != "rejected" {
						b.Fatalf("check_changes: verdict %v", v["verdict"])
					}
				}
				call() // warms the servers, untimed
				var samples []time.Duration
				for b.Loop() {
					start := time.Now()
					call()
					samples = append(samples, time.Since(start))
				}
				percentiles(b, samples)
			})
		})
	}
}

// benchEnv is a benchmark's own state, config and daemon, with the
// user's installed servers.
type benchEnv struct{ vars []string }

func newBenchEnv(b *testing.B) *benchEnv {
	home := b.TempDir()
	run, err := os.MkdirTemp("", "anvil-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(run) })
	return &benchEnv{vars: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ANVIL_STATE_DIR=" + filepath.Join(home, "state"),
		"ANVIL_TOOLS_DIR=" + servers.DefaultToolsDir(os.Getenv), "XDG_RUNTIME_DIR=" + run,
	}}
}

func (e *benchEnv) environ() []string { return e.vars }

func (e *benchEnv) stop(b *testing.B) {
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "serve", "stop")
	cmd.Env = e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Errorf("anvil serve stop: %v\n%s", err, out)
	}
}

// daemonRSS is the resident memory of the daemon and its servers, KiB.
func (e *benchEnv) daemonRSS(b *testing.B) int64 {
	return proc.TreeRSS(e.daemonStatus(b).PID)
}

// serverNames names the servers the daemon runs for the workspace at ws.
func (e *benchEnv) serverNames(tb testing.TB, ws string) []string {
	real, _ := filepath.EvalSymlinks(ws)
	var names []string
	for _, w := range e.daemonStatus(tb).Workspaces {
		if w.Dir == ws || w.Dir == real {
			for _, s := range w.Servers {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// daemonStatus is the daemon's status (anvil serve status --json).
func (e *benchEnv) daemonStatus(tb testing.TB) daemon.Status {
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "serve", "status", "--json")
	cmd.Env = e.vars
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("anvil serve status: %v", err)
	}
	var st daemon.Status
	if err := json.Unmarshal(out, &st); err != nil {
		tb.Fatal(err)
	}
	return st
}

// awaitQuiet waits, at most bound, until the daemon does no background
// work for the workspace at ws (the unchanged tree's answers, TypeScript
// 7's proof), as during a model's first long turn; it returns how long
// that took, or bound.
func (e *benchEnv) awaitQuiet(tb testing.TB, ws string, bound time.Duration) time.Duration {
	start := time.Now()
	real, _ := filepath.EvalSymlinks(ws)
	for time.Since(start) < bound {
		busy := false
		for _, w := range e.daemonStatus(tb).Workspaces {
			busy = busy || ((w.Dir == ws || w.Dir == real) && len(w.Background) > 0)
		}
		if !busy {
			return time.Since(start)
		}
		time.Sleep(250 * time.Millisecond)
	}
	return bound
}

func percentiles(b *testing.B, samples []time.Duration) {
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		return s[max(0, min(int(math.Ceil(q*float64(len(s))))-1, len(s)-1))]
	}
	b.ReportMetric(float64(rank(0.5))/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(rank(0.9))/float64(time.Millisecond), "p90-ms")
}
