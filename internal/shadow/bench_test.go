package shadow

// Benchmarks of Validator.Validate against the real language servers, with
// the batch command a user would otherwise run on the same change beside
// them. scripts/bench.sh runs them and prints the tables of
// docs/benchmarks.md.
//
// Names are BenchmarkValidate/<server>/<project>/<case>, where case is
//
//	cold         a fresh Anvil (server manager, import graph) and a fresh
//	             server: start, readiness and one check of an error edit
//	warm-error   one file gains a type error; the server is already running
//	warm-clean   one file gains a clean declaration
//	importers    an exported type is renamed in a file many others import
//	back-to-back warm-error again, each validation straight after the last
//	server-only  the server's own time for the warm-error edit: didChange
//	             on the open file until it shows the error, the yardstick
//	batch-error  the batch checker on the warm-error change, written to disk
//	batch-clean  the batch checker on the warm-clean change
//
// Every edit is new text (its names carry a per-run number and a counter),
// so no server or build cache, not even one kept from an earlier run, can
// hold its answer. Each validation's verdict
// is checked, so a benchmark never times a check that found nothing.
// Before each warm iteration but back-to-back ones, the server is given
// the time to finish the previous validation's work (untimed), as the
// model's turn between two validations would give it.
// Besides ns/op, the cases report p50-ms and p90-ms over their iterations;
// warm cases also report the RSS of the server's process tree afterwards.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/corpus"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/tsserver"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// benchProject is a project and the edits the benchmarks make to it.
type benchProject struct {
	name string
	// setup returns the directory of a project the benchmark may edit.
	setup func(b *testing.B) string
	// overrides adjust the server specs for the project (gopls offline).
	overrides []servers.Spec

	// target gains bad(tag) or ok(tag) as a last line in the single-file
	// cases; tag makes the names new.
	target  string
	bad, ok func(tag string) string

	// renameFile's exported type renameWord is renamed (the whole word,
	// everywhere in that file only), which breaks at least wantImporters
	// other files.
	renameFile, renameWord string
	wantImporters          int

	// batch is the command line of the batch checker, run in the project
	// directory; srv is the project's server, whose binary lies beside the
	// batch tool for the Node-based ones. env is added to its environment.
	batch func(b *testing.B, srv *servers.Server) []string
	env   []string
	// preexisting: the project has errors of its own, so the batch
	// checker fails on it unchanged and its exit status says nothing.
	preexisting bool
}

func tsLines(p *benchProject) {
	p.bad = func(tag string) string { return fmt.Sprintf("export const anvilBad%s: number = \"oops\";", tag) }
	p.ok = func(tag string) string { return fmt.Sprintf("export const anvilOk%s: number = 1;", tag) }
	// The TypeScript 7 tsc the server runs as, so the batch check uses the
	// same compiler.
	p.batch = func(b *testing.B, srv *servers.Server) []string {
		return []string{srv.Binary(), "--noEmit", "-p", "."}
	}
}

func goLines(p *benchProject) {
	p.bad = func(tag string) string { return fmt.Sprintf("var anvilBad%s int = \"oops\"", tag) }
	// Unexported, like most edits: the package's export data is unchanged.
	p.ok = func(tag string) string { return fmt.Sprintf("func anvilOK%s() int { return 1 }", tag) }
	// go vet type-checks every package, tests included, as gopls does, and
	// runs the vet analyzers, which gopls runs too.
	p.batch = func(b *testing.B, _ *servers.Server) []string {
		goTool, err := exec.LookPath("go")
		if err != nil {
			b.Fatalf("go: %v", err)
		}
		return []string{goTool, "vet", "./..."}
	}
	// The gopls source must load from the module cache alone.
	offline := []string{"GOPROXY=off", "GOFLAGS=-mod=mod"}
	p.env = offline
	p.overrides = []servers.Spec{{Name: "gopls", Env: offline}}
}

func pyLines(p *benchProject) {
	p.bad = func(tag string) string { return fmt.Sprintf("anvil_bad_%s: int = \"oops\"", tag) }
	p.ok = func(tag string) string { return fmt.Sprintf("anvil_ok_%s: int = 1", tag) }
	// The pyright CLI installed beside pyright-langserver.
	p.batch = func(b *testing.B, srv *servers.Server) []string {
		return []string{filepath.Join(filepath.Dir(srv.Binary()), "pyright")}
	}
}

func benchProjects() map[string][]*benchProject {
	tsSmall := &benchProject{name: "ts-small", target: "src/auth.ts", renameFile: "src/types.ts", renameWord: "User", wantImporters: 2,
		setup: func(b *testing.B) string { return testfs.Copy(b, fixture("ts")) }}
	ts1000 := &benchProject{name: "ts-1000", target: "src/f07/m23.ts", renameFile: "src/types.ts", renameWord: "User", wantImporters: corpus.TSTypesImporters,
		setup: func(b *testing.B) string { return generateTS(b) }}
	goSmall := &benchProject{name: "go-small", target: "auth/auth.go", renameFile: "types/types.go", renameWord: "User", wantImporters: 2,
		setup: func(b *testing.B) string { return testfs.Copy(b, fixture("go")) }}
	// file.Handle is used by 63 files in 11 packages of gopls.
	goplsSrc := &benchProject{name: "gopls-src", target: "internal/golang/hover.go", renameFile: "internal/file/file.go", renameWord: "Handle", wantImporters: 30,
		setup: copyGoplsSource}
	pySmall := &benchProject{name: "py-small", target: "app/auth.py", renameFile: "app/models.py", renameWord: "User", wantImporters: 2,
		setup: func(b *testing.B) string { return testfs.Copy(b, fixture("py")) }}
	py300 := &benchProject{name: "py-300", target: "shop/f07/m10.py", renameFile: "shop/models.py", renameWord: "User", wantImporters: pyModelImporters,
		setup: func(b *testing.B) string { return generatePy(b) }}
	for _, p := range []*benchProject{tsSmall, ts1000} {
		tsLines(p)
	}
	for _, p := range []*benchProject{goSmall, goplsSrc} {
		goLines(p)
	}
	for _, p := range []*benchProject{pySmall, py300} {
		pyLines(p)
	}
	real := realBenchProjects()
	return map[string][]*benchProject{
		"tsgo":     {tsSmall, ts1000, real["zod"]},
		"tsserver": {real["ts-1000-ts5"], real["rxjs"]},
		"gopls":    {goSmall, goplsSrc, real["cobra"]},
		"pyright":  {pySmall, py300, real["requests"]},
	}
}

func BenchmarkValidate(b *testing.B) {
	all := benchProjects()
	for _, server := range []string{"tsgo", "tsserver", "gopls", "pyright"} {
		b.Run(server, func(b *testing.B) {
			for _, p := range all[server] {
				b.Run(p.name, func(b *testing.B) { benchProjectCases(b, server, p) })
			}
		})
	}
}

func benchProjectCases(b *testing.B, server string, p *benchProject) {
	dir := p.setup(b)
	root, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	base := readFile(b, dir, p.target)
	renameBase := readFile(b, dir, p.renameFile)
	word := regexp.MustCompile(`\b` + p.renameWord + `\b`)
	// Every edit is new text, in this run and across runs: the servers
	// (gopls's file cache) and the go command cache results by content.
	run, edits := time.Now().UnixNano(), 0
	tag := func() string {
		edits++
		return fmt.Sprintf("%d_%d", run, edits)
	}
	bad := func() string { return base + "\n" + p.bad(tag()) + "\n" }
	ok := func() string { return base + "\n" + p.ok(tag()) + "\n" }
	rename := func() string { return word.ReplaceAllString(renameBase, p.renameWord+"V"+tag()) }

	// Cold runs first, each with a manager of its own, so the warm
	// manager below is the only server running afterwards.
	b.Run("cold", func(b *testing.B) {
		var samples []time.Duration
		for b.Loop() {
			env := newBenchEnv(b, root, server, p.overrides)
			set := changeSet(b, root, p.target, bad())
			start := time.Now()
			res := env.validate(b, set)
			samples = append(samples, time.Since(start))
			expectNewIn(b, res, p.target)
			b.StopTimer()
			env.close()
			b.StartTimer()
		}
		reportPercentiles(b, samples)
	})

	warm := newBenchEnv(b, root, server, p.overrides)
	b.Cleanup(warm.close)
	warmCase := func(name string, settle bool, edit func() (string, string), check func(b *testing.B, res *Result)) {
		b.Run(name, func(b *testing.B) {
			// One untimed validation of the same kind starts the server
			// and fills the import graph's cache.
			file, content := edit()
			check(b, warm.validate(b, changeSet(b, root, file, content)))
			var samples []time.Duration
			var res *Result
			for b.Loop() {
				file, content := edit()
				set := changeSet(b, root, file, content)
				if settle {
					b.StopTimer()
					warm.settle(b)
					b.StartTimer()
				}
				start := time.Now()
				res = warm.validate(b, set)
				samples = append(samples, time.Since(start))
				check(b, res)
			}
			reportPercentiles(b, samples)
			b.ReportMetric(float64(len(res.CheckedFiles)), "checked-files")
			b.ReportMetric(float64(len(res.NewErrorFiles())), "new-error-files")
			warm.reportRSS(b)
		})
	}
	bad1 := func() (string, string) { return p.target, bad() }
	newInTarget := func(b *testing.B, res *Result) { expectNewIn(b, res, p.target) }
	warmCase("warm-error", true, bad1, newInTarget)
	warmCase("warm-clean", true, func() (string, string) { return p.target, ok() },
		func(b *testing.B, res *Result) {
			if res.Verdict != Clean {
				b.Fatalf("want a clean verdict:\n%s", describe(res))
			}
		})
	warmCase("importers", true, func() (string, string) { return p.renameFile, rename() },
		func(b *testing.B, res *Result) {
			if n := len(res.NewErrorFiles()); res.Verdict != Rejected || n < p.wantImporters {
				b.Fatalf("want new errors in at least %d importers, got %d:\n%s", p.wantImporters, n, describe(res))
			}
		})
	// Validations one straight after another, as when the model sends
	// several edits in a row: each may wait for work the previous one left.
	warmCase("back-to-back", false, bad1, newInTarget)

	b.Run("server-only", func(b *testing.B) { benchServerOnly(b, warm, dir, p.target, base, bad) })

	// The batch checker reads the disk, so its cases write the change and
	// put the file back afterwards; they run last, after the warm server
	// has done its work on the same directory.
	srv := warm.server(b)
	argv := p.batch(b, srv)
	batchCase := func(name string, content func() string, wantErr bool) {
		b.Run(name, func(b *testing.B) {
			// An untimed run on the unchanged project fills the build
			// caches the way a user's earlier runs would have.
			if out, err := runBatch(dir, argv, p.env); err != nil && !p.preexisting {
				b.Fatalf("%s on the unchanged project failed: %v\n%s", strings.Join(argv, " "), err, out)
			}
			var samples []time.Duration
			for b.Loop() {
				b.StopTimer()
				writeFile(b, dir, p.target, content())
				b.StartTimer()
				start := time.Now()
				out, err := runBatch(dir, argv, p.env)
				samples = append(samples, time.Since(start))
				b.StopTimer()
				writeFile(b, dir, p.target, base)
				b.StartTimer()
				switch {
				case wantErr && (err == nil || !bytes.Contains(out, []byte(path.Base(p.target)))):
					b.Fatalf("%s did not report the error in %s (%v):\n%s", strings.Join(argv, " "), p.target, err, out)
				case !wantErr && err != nil && !p.preexisting:
					b.Fatalf("%s failed on a clean edit: %v\n%s", strings.Join(argv, " "), err, out)
				}
			}
			reportPercentiles(b, samples)
		})
	}
	batchCase("batch-error", bad, true)
	batchCase("batch-clean", ok, false)
}

// benchServerOnly times the server's own answer to the warm-error edit,
// the yardstick for what a validation adds: with the file already open
// and the server idle, didChange until the server shows the new error
// for that file. No baseline, no dependants, no restore.
func benchServerOnly(b *testing.B, env *benchEnv, dir, target, base string, bad func() string) {
	srv := env.server(b)
	abs := filepath.Join(dir, filepath.FromSlash(target))
	uri := lsp.URIFromPath(abs)
	// bad() is base, a blank line and the bad line.
	badLine := strings.Count(base, "\n") + 1
	hasBad := func(ds []lsp.Diagnostic) bool {
		return slices.ContainsFunc(ds, func(d lsp.Diagnostic) bool { return d.IsError() && d.Range.Start.Line == badLine })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var samples []time.Duration
	for b.Loop() {
		b.StopTimer()
		err := srv.Query(ctx, []servers.Doc{{Path: abs}}, func(nav servers.Navigator) error {
			if ts, ok := nav.(*tsserver.Client); ok {
				env.settle(b)
				b.StartTimer()
				defer b.StopTimer()
				text := bad()
				start := time.Now()
				if err := ts.UpdateOpen(ctx, nil, []tsserver.FileCodeEdits{tsserver.Replace(abs, base, text)}, nil); err != nil {
					return err
				}
				ds, err := ts.Diagnostics(ctx, abs, "")
				samples = append(samples, time.Since(start))
				if err == nil && !hasBad(ds) {
					err = fmt.Errorf("no error on line %d after the change: %v", badLine+1, ds)
				}
				// Back to the disk's text before the query closes it.
				if rerr := ts.UpdateOpen(ctx, nil, []tsserver.FileCodeEdits{tsserver.Replace(abs, text, base)}, nil); err == nil {
					err = rerr
				}
				return err
			}
			c := nav.(*lsp.Client)
			env.settle(b) // after the open
			b.StartTimer()
			defer b.StopTimer()
			start := time.Now()
			mark := c.PublishSeq()
			if _, err := c.DidChange(ctx, uri, bad()); err != nil {
				return err
			}
			if srv.Spec().Mode == servers.ModePull {
				ds, err := c.PullDiagnostics(ctx, uri)
				if err == nil && !hasBad(ds) {
					err = fmt.Errorf("the pull after the change has no error on line %d: %v", badLine+1, ds)
				}
				samples = append(samples, time.Since(start))
				return err
			}
			_, err := c.WaitPublished(ctx, uri.Path(), func(pub lsp.Published) bool { return pub.Seq > mark && hasBad(pub.Diagnostics) })
			samples = append(samples, time.Since(start))
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		env.settle(b) // after the close
		b.StartTimer()
	}
	reportPercentiles(b, samples)
}

// benchEnv is one Anvil over a project: a server manager and a validator
// with its import graph, as the composition root builds them.
type benchEnv struct {
	want   string // the server spec expected for the project
	mgr    *servers.Manager
	parser *syntax.Parser
	v      *Validator
	closed bool
}

func newBenchEnv(b *testing.B, root *workspace.Root, server string, overrides []servers.Spec) *benchEnv {
	b.Helper()
	reg := servers.NewRegistry(servers.RegistryOptions{Policy: testPolicy(root.Dir()), Overrides: overrides, ToolsDir: servers.DefaultToolsDir(os.Getenv)})
	mgr := servers.NewManager(root.Dir(), reg, servers.ManagerOptions{})
	parser := syntax.New(syntax.Options{})
	logFile, err := os.Create(filepath.Join(b.TempDir(), "shadow.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logFile.Close() })
	v := New(root, mgr, reach.New(root, parser), Options{Policy: testPolicy(root.Dir()), Log: NewLog(logFile)})
	return &benchEnv{want: server, mgr: mgr, parser: parser, v: v}
}

// server returns the project's server, failing when it is missing or is
// not the one the benchmark is named after: a benchmark is never skipped.
func (e *benchEnv) server(b *testing.B) *servers.Server {
	b.Helper()
	lang := map[string]string{"tsgo": "typescript", "tsserver": "typescript", "gopls": "go", "pyright": "python", "clangd": "c"}[e.want]
	s, err := e.mgr.ForLanguage(lang)
	if err != nil {
		b.Fatalf("language server for %s: %v", lang, err)
	}
	if s.Spec().Name != e.want {
		b.Fatalf("%s files got server %s, want %s", lang, s.Spec().Name, e.want)
	}
	return s
}

func (e *benchEnv) validate(b *testing.B, set *changeset.Set) *Result {
	b.Helper()
	e.server(b)
	res, err := e.v.Validate(context.Background(), set, 1, Scope{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if res.Verdict == Unverified {
		b.Fatalf("validation was not verified:\n%s", describe(res))
	}
	return res
}

// settle waits until the server has finished what the previous
// validation left it doing, as it would have during the model's turn
// between two validations: gopls, for one, re-diagnoses the workspace after
// the restore that ends every check. Servers differ in how (and whether)
// they say they are done, so this watches their CPU time instead.
func (e *benchEnv) settle(b *testing.B) {
	b.Helper()
	pid := e.server(b).PID()
	if pid == 0 || runtime.GOOS != "linux" {
		return
	}
	const window = 40 * time.Millisecond
	deadline := time.Now().Add(time.Minute)
	last, quiet := treeCPU(procTree(pid)), 0
	// Idle is two windows in a row with at most one clock tick (10 ms at
	// the usual 100 Hz) of CPU time.
	for quiet < 2 {
		if time.Now().After(deadline) {
			b.Fatal("the server was still busy a minute after the last validation")
		}
		time.Sleep(window)
		now := treeCPU(procTree(pid))
		if now-last <= 1 {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
}

func (e *benchEnv) close() {
	if e.closed {
		return
	}
	e.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e.mgr.Shutdown(ctx)
	e.parser.Close()
}

// reportRSS reports the resident memory of the server's process tree.
func (e *benchEnv) reportRSS(b *testing.B) {
	b.Helper()
	if runtime.GOOS != "linux" {
		return // the numbers come from /proc
	}
	pid := e.server(b).PID()
	if pid == 0 {
		b.Fatal("the server is not running after the warm loop")
	}
	b.ReportMetric(float64(treeRSS(procTree(pid)))/1024, "RSS-MiB")
}

// procTree returns pid and its descendants: the TypeScript server is a
// Node wrapper around a native child, gopls runs a telemetry child.
func procTree(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []int{pid}
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fields := procStat(p); len(fields) > 1 {
			if ppid, err := strconv.Atoi(fields[1]); err == nil {
				children[ppid] = append(children[ppid], p)
			}
		}
	}
	tree := []int{pid}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}

// procStat returns the fields of /proc/pid/stat after the command name
// (state, ppid, ...), or nil when the process is gone. The name, in
// parentheses, may hold spaces, so the fields start after the last ')'.
func procStat(pid int) []string {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	return strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
}

// treeCPU sums user and system CPU time, in clock ticks, over pids.
func treeCPU(pids []int) int {
	total := 0
	for _, p := range pids {
		// utime and stime are fields 14 and 15 of stat, 12 and 13 here.
		if f := procStat(p); len(f) > 13 {
			u, _ := strconv.Atoi(f[11])
			s, _ := strconv.Atoi(f[12])
			total += u + s
		}
	}
	return total
}

// treeRSS sums VmRSS, in KiB, over pids.
func treeRSS(pids []int) int {
	total := 0
	for _, p := range pids {
		status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "status"))
		if err != nil {
			continue // exited meanwhile
		}
		for line := range strings.Lines(string(status)) {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
				total += kib
			}
		}
	}
	return total
}

// reportPercentiles reports the median and 90th percentile (nearest rank)
// of the samples in milliseconds.
func reportPercentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(rank(0.5)), "p50-ms")
	b.ReportMetric(ms(rank(0.9)), "p90-ms")
}

func changeSet(b *testing.B, root *workspace.Root, rel, content string) *changeset.Set {
	b.Helper()
	set, err := changeset.Load(root, []changeset.Spec{{Path: rel, Content: &content}})
	if err != nil {
		b.Fatal(err)
	}
	return set
}

func expectNewIn(b *testing.B, res *Result, rel string) {
	b.Helper()
	if res.Verdict != Rejected || !slices.Contains(res.NewErrorFiles(), rel) {
		b.Fatalf("want a new error in %s:\n%s", rel, describe(res))
	}
}

// runBatch runs argv in dir and returns its combined output.
func runBatch(dir string, argv, env []string) ([]byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

func readFile(b *testing.B, dir, rel string) string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func writeFile(b *testing.B, dir, rel, content string) {
	b.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// copyGoplsSource copies the gopls v0.23.0 module source (about 160k lines
// in 112 packages), which scripts/install-servers.sh leaves in the module
// cache, to a fixed directory under the system temp dir. The path is fixed
// because the go command keys its build cache by package directory: at a
// new path every run would time a cold 40 s build instead of the edit.
// Test files whose dependencies 'go install gopls' does not download are
// left out, so the project loads, builds and vets offline.
func copyGoplsSource(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		b.Fatalf("go env GOMODCACHE: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "golang.org", "x", "tools", "gopls@v0.23.0")
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		b.Fatalf("gopls source not in the module cache (scripts/install-servers.sh puts it there when it installs gopls; or go mod download golang.org/x/tools/gopls@v0.23.0): %v", err)
	}
	dst := filepath.Join(os.TempDir(), "anvil-bench", "gopls@v0.23.0")
	if err := os.RemoveAll(dst); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		os.RemoveAll(dst)
		os.Remove(filepath.Dir(dst)) // only if no other copy is there
	})
	omit := map[string]bool{
		"internal/vulncheck/vulntest":                    true, // gopkg.in/yaml.v3
		"internal/test/integration/misc/vuln_test.go":    true, // imports vulntest
		"internal/cmd/mcp_test.go":                       true, // imports vulntest
		"internal/debug/template_test.go":                true, // github.com/jba/templatecheck
		"internal/test/integration/web/assembly_test.go": true, // golang.org/x/net
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if omit[filepath.ToSlash(rel)] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// Module cache files are read-only; the batch cases rewrite one.
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		b.Fatalf("copying the gopls source: %v", err)
	}
	return dst
}

// BenchmarkImportGraph times finding the dependants of the most imported
// file, which every validation with a pull server does: "first" with a new
// graph that parses every file, "cached" with the graph a session keeps.
func BenchmarkImportGraph(b *testing.B) {
	for _, p := range []struct {
		name, file string
		setup      func(b *testing.B) string
	}{
		{"ts-1000", "src/types.ts", generateTS},
		{"py-300", "shop/models.py", generatePy},
	} {
		b.Run(p.name, func(b *testing.B) {
			root, err := workspace.New(p.setup(b))
			if err != nil {
				b.Fatal(err)
			}
			parser := syntax.New(syntax.Options{})
			b.Cleanup(parser.Close)
			// Each call scans the disk, as a validation does.
			dependants := func(g *reach.Graph) {
				snap, _, err := (&diskWatcher{root: root}).scan(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				change := &changeset.Change{Path: p.file}
				if err := change.ReadBase(root); err != nil {
					b.Fatal(err)
				}
				change.Content = change.Base
				deps, err := g.Dependants(context.Background(), snap.Files, []*changeset.Change{change}, 5000)
				if err != nil || len(deps.Files) == 0 {
					b.Fatalf("dependants of %s: %d, %v", p.file, len(deps.Files), err)
				}
			}
			b.Run("first", func(b *testing.B) {
				for b.Loop() {
					dependants(reach.New(root, parser))
				}
			})
			b.Run("cached", func(b *testing.B) {
				g := reach.New(root, parser)
				dependants(g)
				for b.Loop() {
					dependants(g)
				}
			})
		})
	}
}

func generateTS(b *testing.B) string {
	b.Helper()
	return testfs.Tree(b, corpus.TSProject())
}

// The generated Python package: shop/models.py, 19 utility modules and 14
// feature packages of 19 modules, 302 files with the __init__.py files.
// Feature modules form import chains of 6 and each imports a utility
// module; every 5th imports the models.
const (
	pyUtils       = 19
	pyFeatureDirs = 14
	pyDirFiles    = 19
	pyChain       = 6
	pyModelsEvery = 5
	// pyModelImporters is how many feature modules import shop.models.
	pyModelImporters = (pyFeatureDirs*pyDirFiles + pyModelsEvery - 1) / pyModelsEvery
)

const pyModels = `"""The shop's data model."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Money:
    amount: float
    currency: str = "EUR"


@dataclass
class User:
    id: str
    name: str
    email: str
    balance: Money = field(default_factory=lambda: Money(0.0))


@dataclass
class OrderLine:
    sku: str
    quantity: int
    price: Money


@dataclass
class Order:
    id: str
    user_id: str
    lines: list[OrderLine] = field(default_factory=list)
`

func generatePy(b *testing.B) string {
	b.Helper()
	files := map[string]string{
		"pyrightconfig.json":    "{\n  \"typeCheckingMode\": \"standard\",\n  \"include\": [\"shop\"]\n}\n",
		"shop/__init__.py":      "",
		"shop/models.py":        pyModels,
		"shop/util/__init__.py": "",
	}
	for u := range pyUtils {
		files[fmt.Sprintf("shop/util/u%02d.py", u)] = pyUtil(u)
	}
	for d := range pyFeatureDirs {
		files[fmt.Sprintf("shop/f%02d/__init__.py", d)] = ""
		for k := range pyDirFiles {
			files[fmt.Sprintf("shop/f%02d/m%02d.py", d, k)] = pyModule(d, k)
		}
	}
	return testfs.Tree(b, files)
}

func pyUtil(u int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "\"\"\"Numeric helpers, set %02d.\"\"\"\n\n", u)
	sum := fmt.Sprintf("sum_u%02d", u)
	if u > 0 {
		sum = fmt.Sprintf("sum_u%02d", u/2)
		fmt.Fprintf(&s, "from shop.util.u%02d import %s\n\n", u/2, sum)
	}
	fmt.Fprintf(&s, `
def clamp_u%02[1]d(x: float, lo: float, hi: float) -> float:
    return min(hi, max(lo, x))


def fmt_u%02[1]d(n: float) -> str:
    return f"{n:.2f}"


def sum_u%02[1]d(xs: list[float]) -> float:
    total = 0.0
    for x in xs:
        total += x
    return total


def mean_u%02[1]d(xs: list[float]) -> float:
    return %[2]s(xs) / len(xs) if xs else 0.0
`, u, sum)
	return s.String()
}

func pyModule(d, k int) string {
	i := d*pyDirFiles + k
	id := fmt.Sprintf("f%02d_m%02d", d, k)
	state := fmt.Sprintf("StateF%02dM%02d", d, k)
	util := fmt.Sprintf("u%02d", i%pyUtils)
	var s strings.Builder
	fmt.Fprintf(&s, "\"\"\"Feature %02d, step %02d.\"\"\"\n\nfrom __future__ import annotations\n\nfrom dataclasses import dataclass\n\n", d, k)
	prev := "prev = s"
	if k%pyChain != 0 {
		pstate, pid := fmt.Sprintf("StateF%02dM%02d", d, k-1), fmt.Sprintf("f%02d_m%02d", d, k-1)
		fmt.Fprintf(&s, "from shop.f%02d.m%02d import %s, step_%s\n", d, k-1, pstate, pid)
		prev = fmt.Sprintf("prev = step_%s(%s(s.count, s.label), n)", pid, pstate)
	}
	typed := i%pyModelsEvery == 0
	if typed {
		s.WriteString("from shop.models import Money, Order, OrderLine, User\n")
	}
	fmt.Fprintf(&s, "from shop.util.%[1]s import clamp_%[1]s, fmt_%[1]s\n", util)
	fmt.Fprintf(&s, `

@dataclass
class %[1]s:
    count: float
    label: str


def step_%[2]s(s: %[1]s, n: float) -> %[1]s:
    %[3]s
    return %[1]s(clamp_%[4]s(prev.count + n, 0, 1000), fmt_%[4]s(prev.count))


def describe_%[2]s(s: %[1]s) -> str:
    return f"{s.label} ({s.count})"


def batch_%[2]s(items: list[float]) -> list[%[1]s]:
    return [step_%[2]s(%[1]s(n, ""), n) for n in items]
`, state, id, prev, util)
	if typed {
		fmt.Fprintf(&s, `

def owner_%[1]s(order: Order, users: list[User]) -> User | None:
    for u in users:
        if u.id == order.user_id:
            return u
    return None


def total_%[1]s(lines: list[OrderLine]) -> Money:
    return Money(sum(line.price.amount * line.quantity for line in lines))
`, id)
	}
	return s.String()
}
