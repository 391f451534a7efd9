package shadow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/corpus"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/tsdecl"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// BenchmarkRealChanges times the gate on real projects for the three
// changes the early cut-off and the choice of checker decide: a body-only
// edit to a hub file, an interface change to a hub file, and a rename
// across files; each beside the project's batch checker run in full and
// from its incremental state (tsc) on the same change, in the same run.
// With ANVIL_BENCH_REPORT set, the table goes to that file
// (docs/benchmarks.md carries it).
//
//	go test ./internal/shadow -run '^$' -bench RealChanges -benchtime 1x
func BenchmarkRealChanges(b *testing.B) {
	var rows []string
	for _, p := range realChangeProjects() {
		b.Run(p.name, func(b *testing.B) { rows = append(rows, benchRealChanges(b, p)...) })
	}
	report := "| project | files | change | gate | checked | how | batch, full | batch, incremental |\n|---|---|---|---|---|---|---|---|\n" + strings.Join(rows, "")
	b.Log("\n" + report)
	if out := os.Getenv("ANVIL_BENCH_REPORT"); out != "" {
		_ = os.WriteFile(out, []byte(report), 0o644)
	}
}

// changeProject is a real project with the changes to time on it.
type changeProject struct {
	name, server, language string
	setup                  func(b *testing.B) string
	ext                    string
	hub                    string // a file most of the project imports
	// bodyFile gets the body-only edit when the hub has no function that
	// declares its return type; "" means the rename's file.
	bodyFile               string
	renameFile, renameWord string
	// batch is the batch checker's command, run in the project; tsc also
	// gets its incremental flags.
	batch func(dir string) []string
	tsc   bool
}

func realChangeProjects() []changeProject {
	toolsBin := func(name string) string { return filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin", name) }
	ownTSC := func(dir string) []string {
		return []string{"node", filepath.Join(dir, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "--pretty", "false", "-p", "."}
	}
	return []changeProject{
		{name: "tldraw 5.1.1 (1,012 files, TypeScript 5.9, tsserver)", server: "tsserver", language: "typescript", ext: ".ts",
			setup: func(b *testing.B) string {
				dir := b.TempDir()
				corpus.CopyProject(b, testCorpus().TLDraw(b), dir)
				return dir
			},
			hub: "packages/tlschema/src/shapes/TLBaseShape.ts", renameFile: "packages/utils/src/lib/array.ts", renameWord: "dedupe",
			batch: ownTSC, tsc: true},
		// Generated, so that TypeScript 7 agrees with its compiler on it
		// (neither real project above does: see docs/benchmarks.md).
		{name: "ts-1000, generated (TypeScript 5.9, tsserver)", server: "tsserver", language: "typescript", ext: ".ts",
			setup: func(b *testing.B) string {
				dir := generateTS(b)
				testfs.Write(b, dir, map[string]string{"package.json": `{"name": "gen", "private": true, "devDependencies": {"typescript": "~5.9.3"}}`})
				testfs.Write(b, dir, map[string]string{"node_modules/typescript": "->" + testCorpus().NPMPackage(b, "typescript@5.9.3")})
				return dir
			},
			hub: "src/types.ts", renameFile: "src/types.ts", renameWord: "User", batch: ownTSC, tsc: true},
		{name: "zod 3.25.76 (TypeScript 7, tsgo)", server: "tsgo", language: "typescript", ext: ".ts",
			setup: func(b *testing.B) string {
				dir := b.TempDir()
				copyTreeB(b, filepath.Join(testCorpus().NPMPackage(b, "zod@3.25.76"), "src", "v3"), filepath.Join(dir, "src", "v3"), ".ts")
				testfs.Write(b, dir, map[string]string{
					"package.json": `{"name": "zod-corpus", "private": true, "type": "module"}`,
					"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
						"target": "es2022", "skipLibCheck": true, "lib": ["es2022", "dom"]}, "include": ["src"], "exclude": ["src/**/tests/**", "src/**/benchmarks/**"]}`,
				})
				removeMatching(b, dir, regexp.MustCompile(`(/tests/|\.test\.ts$|/benchmarks/)`))
				return dir
			},
			hub: "src/v3/ZodError.ts", bodyFile: "src/v3/helpers/parseUtil.ts", renameFile: "src/v3/ZodError.ts", renameWord: "ZodIssueCode",
			batch: func(string) []string { return []string{toolsBin("tsc"), "--noEmit", "--pretty", "false", "-p", "."} }, tsc: true},
		{name: "rxjs 7.8.2 (TypeScript 4.2, tsserver)", server: "tsserver", language: "typescript", ext: ".ts",
			setup: func(b *testing.B) string {
				dir := b.TempDir()
				testCorpus().RxJS(b, dir)
				return dir
			},
			hub: "src/internal/types.ts", renameFile: "src/internal/util/isFunction.ts", renameWord: "isFunction",
			batch: ownTSC, tsc: true},
		{name: "python3-rich 13.3.1 (pyright)", server: "pyright", language: "python", ext: ".py",
			setup: func(b *testing.B) string {
				dir := b.TempDir()
				testCorpus().Rich(b, dir)
				return dir
			},
			hub: "rich/style.py", renameFile: "rich/cells.py", renameWord: "cell_len",
			batch: func(string) []string { return []string{toolsBin("pyright"), "--outputjson"} }},
	}
}

// The edits, written so that they change what they say and nothing else.
var (
	tsAnnotatedFn = regexp.MustCompile(`(?m)^export (?:async )?function [A-Za-z_$][\w$]*(?:<[^>(]*>)?\([^)]*\): [^{\n]+\{\n`)
	tsInterface   = regexp.MustCompile(`(?m)^export interface [A-Za-z_$][\w$]*[^{\n]*\{\n`)
	pyAnnotatedFn = regexp.MustCompile(`(?m)^def [A-Za-z_]\w*\([^)]*\) -> [^:\n]+:\n`)
	pyClass       = regexp.MustCompile(`(?m)^class [A-Za-z_]\w*[^:\n]*:\n`)
)

// bodyEdit adds a statement at the start of the first function of src
// that declares its return type: what its importers see does not change.
func bodyEdit(src, ext string) (string, bool) {
	re, line := tsAnnotatedFn, "  void \"anvil bench: a body-only edit\";\n"
	if ext == ".py" {
		re, line = pyAnnotatedFn, "    _anvil_bench = 0\n"
	}
	at := re.FindStringIndex(src)
	if at == nil {
		return "", false
	}
	return src[:at[1]] + line + src[at[1]:], true
}

// secondBodyEdit changes the statement bodyEdit added: another body-only
// edit of the same file.
func secondBodyEdit(body string) string {
	body = strings.Replace(body, "a body-only edit", "another body-only edit", 1)
	return strings.Replace(body, "_anvil_bench = 0", "_anvil_bench = 1", 1)
}

// interfaceEdit adds a member named after name to the first exported
// interface (a method to the first class, in Python): its interface
// changes.
func interfaceEdit(src, ext, name string) (string, bool) {
	re, member := tsInterface, "  anvilBench"+name+"?: number;\n"
	if ext == ".py" {
		re, member = pyClass, "    def anvil_bench_"+strings.ToLower(name)+"(self) -> int:\n        return 1\n\n"
	}
	at := re.FindStringIndex(src)
	if at == nil {
		return "", false
	}
	return src[:at[1]] + member + src[at[1]:], true
}

func benchRealChanges(b *testing.B, p changeProject) []string {
	dir := p.setup(b)
	batchDir := b.TempDir()
	copyProjectTree(b, dir, batchDir)
	root, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	files := countFiles(dir, p.ext)
	reg := servers.NewRegistry(servers.RegistryOptions{Policy: testPolicy(root.Dir()), ToolsDir: servers.DefaultToolsDir(os.Getenv)})
	mgr := servers.NewManager(root.Dir(), reg, servers.ManagerOptions{})
	parser := syntax.New(syntax.Options{})
	decl := tsdecl.Find(tsdecl.FindOptions{ToolsDir: servers.DefaultToolsDir(os.Getenv), Path: os.Getenv("PATH")})
	if decl != nil {
		b.Cleanup(decl.Close)
	}
	v := New(root, mgr, reach.New(root, parser).WithTypeScript(decl).WithImportRecords(decl), Options{Policy: testPolicy(root.Dir()), BatchStateDir: b.TempDir(), WarmBatch: true, Timeout: time.Minute, LoadTimeout: 10 * time.Minute,
		NativeWhereAgrees: true})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		mgr.Shutdown(ctx)
		v.Close()
		parser.Close()
	})
	srv, err := mgr.ForLanguage(p.language)
	if err != nil || srv.Spec().Name != p.server {
		b.Fatalf("%s: server %v %v, want %s", p.name, srv, err, p.server)
	}
	validate := func(changes map[string]string) (*Result, time.Duration) {
		b.Helper()
		var specs []changeset.Spec
		for rel, content := range changes {
			specs = append(specs, changeset.Spec{Path: rel, Content: &content})
		}
		set, err := changeset.Load(root, specs)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := v.Validate(context.Background(), set, 1, Scope{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return res, time.Since(start)
	}
	hub := readFile(b, dir, p.hub)
	// Warm: the server started, the project loaded, the import graph
	// parsed, as after the first check of a session.
	validate(map[string]string{p.hub: hub + "\n" + comment(p.ext) + "\n"})
	// The work a check started in the background (the batch baseline;
	// for a project on TypeScript 6 or older, TypeScript 7's proof of
	// agreement) done before the next, as while a model thinks.
	settle := func() {
		for deadline := time.Now().Add(5 * time.Minute); len(v.Background()) > 0 && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
		}
	}
	settle()

	bodyFile := p.hub
	body, ok := bodyEdit(hub, p.ext)
	if !ok {
		bodyFile = p.bodyFile
		if bodyFile == "" {
			bodyFile = p.renameFile
		}
		if body, ok = bodyEdit(readFile(b, dir, bodyFile), p.ext); !ok {
			b.Fatalf("%s: no function with a declared return type in %s or %s", p.name, p.hub, bodyFile)
		}
	}
	iface, ok := interfaceEdit(hub, p.ext, "Probe")
	if !ok {
		b.Fatalf("%s: no interface in %s", p.name, p.hub)
	}
	// Another member: a change of its own (no answer of the first one's
	// applies), over the same unchanged tree.
	iface2, _ := interfaceEdit(hub, p.ext, "Second")
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(p.renameWord) + `\b`)
	rename := map[string]string{}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != p.ext {
			return nil
		}
		data, _ := os.ReadFile(path)
		if word.Match(data) {
			rel, _ := filepath.Rel(dir, path)
			rename[filepath.ToSlash(rel)] = word.ReplaceAllString(string(data), p.renameWord+"Renamed")
		}
		return nil
	})
	cases := []struct {
		name    string
		changes map[string]string
	}{
		{fmt.Sprintf("body-only edit to %s", bodyFile), map[string]string{bodyFile: body}},
		// An Executor's next attempt at the file, or its first once the
		// plan's warm-up asked about it: its baseline is known.
		{fmt.Sprintf("another body-only edit to %s, its baseline known", bodyFile), map[string]string{bodyFile: secondBodyEdit(body)}},
		{fmt.Sprintf("interface change in %s", p.hub), map[string]string{p.hub: iface}},
		// As after a model's turn: what the first change needed of the
		// unchanged tree is there.
		{fmt.Sprintf("another interface change in %s, later", p.hub), map[string]string{p.hub: iface2}},
		{fmt.Sprintf("rename of %s across %d files", p.renameWord, len(rename)), rename},
	}
	var rows []string
	for _, c := range cases {
		var res *Result
		var gate time.Duration
		settle()
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, gate = validate(c.changes)
			}
			b.ReportMetric(float64(gate.Milliseconds()), "gate-ms")
			b.ReportMetric(float64(len(res.CheckedFiles)), "checked-files")
		})
		full, incr := p.batchTimes(b, batchDir, c.changes)
		how := ""
		for _, s := range res.Servers {
			how = s.Via
			if strings.HasPrefix(how, "the server") && s.BaselinesReused > 0 {
				// The "before" answers it was not asked: kept from an
				// earlier check, or known from the batch checker's.
				how += fmt.Sprintf(" (%d befores not asked)", s.BaselinesReused)
			}
		}
		if i := strings.Index(how, ","); strings.HasPrefix(how, "batch: ") && i > 0 {
			if strings.Contains(how, "answer was ready") {
				how = how[:i] + ", the unchanged tree's answer ready"
			} else {
				how = how[:i]
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s (%s) | %d | %s | %s | %s |\n", p.name, files, c.name, ms(gate), res.Verdict, len(res.CheckedFiles), how, full, incr))
	}
	return rows
}

// batchTimes runs the batch checker on dir with changes written: in full,
// then (tsc) from the incremental state of the unchanged tree. tsc runs
// with --extendedDiagnostics, and each column splits its time into the
// program's construction (reading, parsing, resolving), binding and
// checking, so the table says whether the incremental state was reused
// (a check phase near the change's share) and what the floor is (the
// program, which every run pays).
func (p changeProject) batchTimes(b *testing.B, dir string, changes map[string]string) (string, string) {
	argv := p.batch(dir)
	if p.tsc {
		argv = append(argv, "--extendedDiagnostics")
	}
	restore := applyChangesB(b, dir, changes)
	start := time.Now()
	out, _ := runBatch(dir, argv, nil)
	full := ms(time.Since(start)) + tscPhases(out)
	restore()
	if !p.tsc {
		return full, "none (pyright has no incremental mode)"
	}
	state := filepath.Join(b.TempDir(), "base.tsbuildinfo")
	incr := append(append([]string(nil), argv...), "--incremental", "--tsBuildInfoFile", state)
	runBatch(dir, incr, nil) // the unchanged tree's state
	runBatch(dir, incr, nil) // once more: TypeScript 5 records shapes only from its second build
	restore = applyChangesB(b, dir, changes)
	defer restore()
	start = time.Now()
	out, _ = runBatch(dir, incr, nil)
	return full, ms(time.Since(start)) + tscPhases(out)
}

var tscPhase = regexp.MustCompile(`(?m)^(Program|Bind|Check) time:\s+([\d.]+)s`)

// tscPhases reads tsc's --extendedDiagnostics: " (program 1.2 s, bind
// 0.3 s, check 4.4 s)", or "" when it printed none.
func tscPhases(out []byte) string {
	var parts []string
	for _, m := range tscPhase.FindAllStringSubmatch(string(out), -1) {
		parts = append(parts, strings.ToLower(m[1])+" "+m[2]+" s")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func applyChangesB(b *testing.B, dir string, changes map[string]string) func() {
	saved := map[string]string{}
	for rel, content := range changes {
		saved[rel] = readFile(b, dir, rel)
		writeFile(b, dir, rel, content)
	}
	return func() {
		for rel, content := range saved {
			writeFile(b, dir, rel, content)
		}
	}
}

func comment(ext string) string {
	if ext == ".py" {
		return "# anvil bench"
	}
	return "// anvil bench"
}

func ms(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

func countFiles(dir, ext string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if !d.IsDir() && (filepath.Ext(path) == ext || (ext == ".ts" && filepath.Ext(path) == ".tsx")) {
			n++
		}
		return nil
	})
	return n
}

// copyProjectTree copies dir's files to dst, and links node_modules.
func copyProjectTree(b *testing.B, src, dst string) {
	b.Helper()
	var rels []string
	_ = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.Name() == "node_modules" && rel != "." {
			target, _ := filepath.EvalSymlinks(path)
			if err := os.Symlink(target, filepath.Join(dst, rel)); err != nil {
				b.Fatal(err)
			}
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && d.Type().IsRegular() {
			rels = append(rels, rel)
		}
		return nil
	})
	sort.Strings(rels)
	for _, rel := range rels {
		copyFileB(b, filepath.Join(src, rel), filepath.Join(dst, rel))
	}
}
