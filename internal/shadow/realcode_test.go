package shadow

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The real-code corpus: projects built at test time from what the package
// registries ship (nothing of them is committed), each checked by the gate
// under seeded mutations and partial multi-file edits, with the batch
// checker of the same compiler as the ground truth. Any false clean fails
// the test; the table of outcomes is logged (and recorded in
// docs/corpus.md).

// realProject is one corpus project.
type realProject struct {
	name string
	// language is the LSP language the gate checks it with; ext the
	// extension of its source files.
	language, ext string
	// server is the server the registry must pick.
	server string
	// setup lays the project out in dir.
	setup func(t *testing.T, dir string)
	// batch runs the batch checker in dir and returns its errors.
	batch func(ctx context.Context, dir string) ([]string, error)
}

func realProjects(t *testing.T) []realProject {
	return []realProject{
		{
			// rxjs 7.8.2 ships its TypeScript sources and pins TypeScript
			// ~4.2: checked by that compiler's own tsserver.
			name: "rxjs@7.8.2 (TypeScript 4.2, tsserver)", language: "typescript", ext: ".ts", server: "tsserver",
			setup: func(t *testing.T, dir string) {
				pkg := testCorpus().NPMPackage(t, "rxjs@7.8.2")
				copyTree(t, filepath.Join(pkg, "src"), filepath.Join(dir, "src"), ".ts")
				copyFile(t, filepath.Join(pkg, "tsconfig.json"), filepath.Join(dir, "tsconfig.json"))
				testfs.Write(t, dir, map[string]string{
					"package.json":            `{"name": "rxjs-corpus", "private": true, "devDependencies": {"typescript": "~4.2.0"}}`,
					"node_modules/typescript": "->" + testCorpus().NPMPackage(t, "typescript@4.2.4"),
				})
			},
			batch: tscErrors(filepath.Join("node_modules", "typescript", "bin", "tsc"), true),
		},
		{
			// zod 3 ships its sources (ESM, .js specifiers); unpinned, so
			// TypeScript 7's native server checks it.
			name: "zod@3.25.76 (TypeScript 7, tsgo)", language: "typescript", ext: ".ts", server: "tsgo",
			setup: func(t *testing.T, dir string) {
				pkg := testCorpus().NPMPackage(t, "zod@3.25.76")
				copyTree(t, filepath.Join(pkg, "src"), filepath.Join(dir, "src"), ".ts")
				testfs.Write(t, dir, map[string]string{
					"package.json": `{"name": "zod-corpus", "private": true, "type": "module"}`,
					"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
						"target": "es2022", "skipLibCheck": true, "lib": ["es2022", "dom"]},
						"include": ["src"], "exclude": ["src/**/tests/**", "src/**/*.test.ts", "src/**/benchmarks/**"]}`,
				})
				// The tests need vitest; they are left out of the project.
				removeMatching(t, dir, regexp.MustCompile(`(/tests/|\.test\.ts$|/benchmarks/)`))
			},
			batch: tscErrors(toolsBinary(t, "tsc"), false),
		},
		{
			name: "github.com/spf13/cobra@v1.10.2 (gopls)", language: "go", ext: ".go", server: "gopls",
			setup: func(t *testing.T, dir string) {
				copyTree(t, testCorpus().GoModule(t, "github.com/spf13/cobra", "v1.10.2"), dir, "")
			},
			batch: goVetErrors,
		},
		{
			name: "golang.org/x/mod@v0.30.0 (gopls)", language: "go", ext: ".go", server: "gopls",
			setup: func(t *testing.T, dir string) {
				copyTree(t, testCorpus().GoModule(t, "golang.org/x/mod", "v0.30.0"), dir, "")
			},
			batch: goVetErrors,
		},
		{
			// Debian's python3-requests: the installed package's sources.
			name: "python3-requests 2.28.1 (pyright)", language: "python", ext: ".py", server: "pyright",
			setup: func(t *testing.T, dir string) {
				deb := testCorpus().DebianPackage(t, "python3-requests")
				copyTree(t, filepath.Join(deb, "root", "usr", "lib", "python3", "dist-packages", "requests"), filepath.Join(dir, "requests"), ".py")
				testfs.Write(t, dir, map[string]string{"pyrightconfig.json": `{"typeCheckingMode": "standard", "include": ["requests"], "reportMissingImports": "none", "reportMissingModuleSource": "none"}`})
			},
			batch: pyrightErrors(toolsBinary(t, "pyright")),
		},
		{
			name: "python3-attr 22.2.0 (pyright)", language: "python", ext: ".py", server: "pyright",
			setup: func(t *testing.T, dir string) {
				deb := testCorpus().DebianPackage(t, "python3-attr")
				sp := filepath.Join(deb, "root", "usr", "lib", "python3", "dist-packages")
				copyTree(t, filepath.Join(sp, "attr"), filepath.Join(dir, "attr"), ".py")
				copyTree(t, filepath.Join(sp, "attrs"), filepath.Join(dir, "attrs"), ".py")
				testfs.Write(t, dir, map[string]string{"pyrightconfig.json": `{"typeCheckingMode": "standard", "include": ["attr", "attrs"], "reportMissingImports": "none", "reportMissingModuleSource": "none"}`})
			},
			batch: pyrightErrors(toolsBinary(t, "pyright")),
		},
	}
}

// outcome tallies one project's verdicts against the batch checker.
type outcome struct {
	project                                        string
	cases, agree, falseClean, falseReject, unverif int
	// checked sums the files each case checked; missed counts cases with
	// a new error in a file the gate did not check.
	checked, missed     int
	reasons             []string
	disagreements       []string
	gateTime, batchTime time.Duration
}

func TestRealCodeCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the real-code corpus downloads and checks real projects")
	}
	var results []*outcome
	for _, p := range realProjects(t) {
		t.Run(p.name, func(t *testing.T) {
			results = append(results, runCorpusProject(t, p))
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| project | cases | agree | false clean | false reject | unverified | missed file | files checked (mean) | gate (mean) | batch (mean) |\n|---|---|---|---|---|---|---|---|---|---|\n")
	total := outcome{}
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %.1f | %s | %s |\n", r.project, r.cases, r.agree, r.falseClean, r.falseReject, r.unverif, r.missed,
			float64(r.checked)/float64(max(r.cases, 1)), mean(r.gateTime, r.cases), mean(r.batchTime, r.cases))
		total.cases += r.cases
		total.agree += r.agree
		total.falseClean += r.falseClean
		total.falseReject += r.falseReject
		total.unverif += r.unverif
	}
	if total.cases > 0 {
		fmt.Fprintf(&b, "| all | %d | %d (%.1f%%) | %d | %d | %d | | |\n", total.cases, total.agree, 100*float64(total.agree)/float64(total.cases), total.falseClean, total.falseReject, total.unverif)
	}
	for _, r := range results {
		for _, d := range r.disagreements {
			fmt.Fprintf(&b, "- %s: %s\n", r.project, d)
		}
		for _, u := range r.reasons {
			fmt.Fprintf(&b, "- %s, unverified: %s\n", r.project, u)
		}
	}
	t.Log(b.String())
	if out := os.Getenv("ANVIL_CORPUS_REPORT"); out != "" {
		_ = os.WriteFile(out, []byte(b.String()), 0o644)
	}
	if total.falseClean > 0 {
		t.Errorf("%d false cleans across the corpus", total.falseClean)
	}
	if total.cases > 0 {
		if agree := float64(total.agree) / float64(total.cases); agree < 0.98 {
			t.Errorf("the gate agrees with the batch checkers on %.1f%% of the cases, under 98%%", 100*agree)
		}
		if unverif := float64(total.unverif) / float64(total.cases); unverif > 0.02 {
			t.Errorf("%.1f%% of the cases are unverified, over 2%%", 100*unverif)
		}
	}
}

func mean(d time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return (d / time.Duration(n)).Round(time.Millisecond).String()
}

// runCorpusProject lays the project out twice (one tree for the gate, one
// for the batch checker), then runs every mutation through both.
func runCorpusProject(t *testing.T, p realProject) *outcome {
	gateDir, batchDir := t.TempDir(), t.TempDir()
	p.setup(t, gateDir)
	p.setup(t, batchDir)
	// Exhaustive: every dependant is checked even after the nearer ones
	// broke, so the files checked can be held against the batch
	// checker's, file by file.
	h := newHarnessAt(t, gateDir, harnessOptions{opts: Options{Timeout: 2 * time.Minute, Exhaustive: true}})
	srv := h.requireServer(p.language)
	if srv.Spec().Name != p.server {
		t.Fatalf("%s got server %s, want %s", p.name, srv.Spec().Name, p.server)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	baseline, err := p.batch(ctx, batchDir)
	if err != nil {
		t.Fatalf("batch checker on the unchanged tree: %v", err)
	}
	t.Logf("%s: %d errors before any change", p.name, len(baseline))
	muts := mutations(t, gateDir, p.ext)
	if len(muts) < 10 {
		t.Fatalf("only %d mutations found for %s", len(muts), p.name)
	}
	o := &outcome{project: p.name}
	for _, m := range muts {
		// The gate and the batch checker work on trees of their own: they
		// run side by side.
		var after []string
		var batchErr error
		batched := make(chan struct{})
		go func() {
			defer close(batched)
			start := time.Now()
			restore := applyChanges(t, batchDir, m.changes)
			after, batchErr = p.batch(ctx, batchDir)
			restore()
			o.batchTime += time.Since(start)
		}()
		start := time.Now()
		res := h.validate(m.changes)
		o.gateTime += time.Since(start)
		<-batched
		if batchErr != nil {
			t.Fatalf("batch checker after %s: %v", m.name, batchErr)
		}
		introduced := batch.NewErrors(baseline, after)
		breaking := len(introduced) > 0
		o.cases++
		o.checked += len(res.CheckedFiles)
		if p.language != "go" && res.Verdict != Unverified {
			// The dependants come from the import graph and its cut-off:
			// every file the batch checker finds a new error in must have
			// been checked.
			for _, e := range introduced {
				file, _, _ := strings.Cut(e, ": ")
				if !contains(res.CheckedFiles, filepath.ToSlash(file)) {
					o.missed++
					o.disagreements = append(o.disagreements, fmt.Sprintf("MISSED %s: new error in %s, which the gate did not check: %s", m.name, file, e))
					t.Errorf("the gate did not check %s, where %s introduces %s\n%s", file, m.name, e, describe(res))
					break
				}
			}
		}
		switch {
		case res.Verdict == Unverified:
			o.unverif++
			o.reasons = append(o.reasons, fmt.Sprintf("%s: %s", m.name, res.Summary()))
		case (res.Verdict == Rejected) == breaking:
			o.agree++
		case breaking:
			o.falseClean++
			o.disagreements = append(o.disagreements, fmt.Sprintf("FALSE CLEAN %s: the batch checker reports %s", m.name, strings.Join(first(introduced, 3), "; ")))
			t.Errorf("false clean: %s: the batch checker reports %v\n%s", m.name, first(introduced, 5), describe(res))
		default:
			o.falseReject++
			o.disagreements = append(o.disagreements, fmt.Sprintf("false reject %s: the gate reports %s", m.name, res.New[0]))
		}
	}
	return o
}

func first(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

// applyChanges writes a change set to dir and returns what puts it back.
func applyChanges(t *testing.T, dir string, changes map[string]string) func() {
	t.Helper()
	saved := map[string]*[]byte{}
	for rel, content := range changes {
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(rel, "-")))
		if data, err := os.ReadFile(p); err == nil {
			saved[p] = &data
		} else {
			saved[p] = nil
		}
		if strings.HasPrefix(rel, "-") {
			os.Remove(p)
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for p, data := range saved {
			if data == nil {
				os.Remove(p)
			} else if err := os.WriteFile(p, *data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Batch checkers. Each returns its errors as "file: code: message" lines,
// without positions, which mutations shift.

var tscLine = regexp.MustCompile(`^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$`)

// tscErrors runs tsc as the ground truth. With incremental, tsc keeps its
// state beside the project from one mutation to the next and answers as
// a full run does, in a fraction of its time; that holds for TypeScript
// 4 to 6. TypeScript 7.0.2's incremental state misses a change to a
// `declare global` block (measured: the importer's new error appears only
// in a full run), so the truth for TypeScript 7 is a full run.
func tscErrors(tsc string, incremental bool) func(context.Context, string) ([]string, error) {
	return func(ctx context.Context, dir string) ([]string, error) {
		bin := tsc
		args := []string{"--noEmit", "-p", "."}
		if incremental {
			args = append(args, "--incremental", "--tsBuildInfoFile", filepath.Join(dir, ".anvil-corpus.tsbuildinfo"))
		}
		if !filepath.IsAbs(bin) {
			bin, args = "node", append([]string{filepath.Join(dir, tsc)}, args...)
		}
		out, err := runTool(ctx, dir, bin, args...)
		var errs []string
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if m := tscLine.FindStringSubmatch(sc.Text()); m != nil {
				errs = append(errs, m[1]+": "+m[2]+": "+m[3])
			}
		}
		if err != nil && len(errs) == 0 {
			return nil, fmt.Errorf("%v: %s", err, out)
		}
		return errs, nil
	}
}

var vetFinding = regexp.MustCompile(`^(?:vet: )?(\S+?\.go):\d+:\d+: (.*)$`)

// goVetErrors runs go vet over the module: its type errors, and the
// analyzers' findings, which gopls reports too (the mutations here are
// type-level, so the analyzers rarely speak).
func goVetErrors(ctx context.Context, dir string) ([]string, error) {
	out, err := runTool(ctx, dir, "go", "vet", "./...")
	var errs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := vetFinding.FindStringSubmatch(line); m != nil {
			errs = append(errs, m[1]+": "+m[2])
		} else if (strings.HasPrefix(line, "go: ") && !strings.HasPrefix(line, "go: downloading")) || strings.Contains(line, ": cannot find package") {
			return nil, fmt.Errorf("go vet could not run: %s", out)
		}
	}
	if err != nil && len(errs) == 0 {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	return errs, nil
}

func pyrightErrors(pyright string) func(context.Context, string) ([]string, error) {
	return func(ctx context.Context, dir string) ([]string, error) {
		out, _ := runTool(ctx, dir, pyright, "--outputjson")
		var rep struct {
			Diagnostics []struct {
				File     string `json:"file"`
				Severity string `json:"severity"`
				Rule     string `json:"rule"`
				Message  string `json:"message"`
			} `json:"generalDiagnostics"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			return nil, fmt.Errorf("pyright output: %v: %.500s", err, out)
		}
		var errs []string
		for _, d := range rep.Diagnostics {
			if d.Severity == "error" {
				rel, _ := filepath.Rel(dir, d.File)
				errs = append(errs, rel+": "+d.Rule+": "+d.Message)
			}
		}
		sort.Strings(errs)
		return errs, nil
	}
}

func runTool(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	cmd.WaitDelay = 5 * time.Second
	return cmd.CombinedOutput()
}

// toolsBinary is a server binary from Anvil's tools directory.
func toolsBinary(t *testing.T, name string) string {
	return filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin", name)
}

// copyTree copies the files under src (with extension ext, or all if "")
// to dst, writable.
func copyTree(t *testing.T, src, dst, ext string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || (ext != "" && filepath.Ext(p) != ext && filepath.Base(p) != "go.mod") {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		return copyFileErr(p, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := copyFileErr(src, dst); err != nil {
		t.Fatal(err)
	}
}

func copyFileErr(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func removeMatching(t testing.TB, dir string, re *regexp.Regexp) {
	t.Helper()
	var gone []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && re.MatchString(filepath.ToSlash(p)) {
			gone = append(gone, p)
		}
		return nil
	})
	for _, p := range gone {
		os.Remove(p)
	}
}
