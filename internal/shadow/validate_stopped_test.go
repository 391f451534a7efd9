package shadow

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A compiler that stopped part-way through a file said nothing of the
// rest, on either side of the change: an error the change adds after that
// point was never reported, and the gate called the change clean.
// clangd stops at clang's limit of 20 errors; gcc compiles nothing of a
// unit after a missing include. Each such change is unverified now, and
// an error before the point still rejects.
func TestACompilerThatStoppedIsNoEvidence(t *testing.T) {
	var manyErrors strings.Builder
	for i := range 22 {
		fmt.Fprintf(&manyErrors, "int broken%d(void) { return undeclared%d; }\n", i, i)
	}
	const extraUser = "#include \"extra.h\"\n#include \"report.h\"\n\nint report(struct point p) { return area(p) + p.x + extra(1); }\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		change func(h *harness) map[string]string
		want   Verdict
		reason string
	}{
		{
			name:  "clangd at its error limit, an error added after it",
			files: map[string]string{"src/standalone.c": manyErrors.String() + "int standalone(void) { return 2; }\n"},
			change: func(h *harness) map[string]string {
				return map[string]string{"src/standalone.c": strings.Replace(h.read("src/standalone.c"), "return 2;", "return \"two\" * 2;", 1)}
			},
			want: Unverified, reason: "stopping now",
		},
		{
			name:  "clangd at its error limit, an error added before it",
			files: map[string]string{"src/standalone.c": manyErrors.String() + "int standalone(void) { return 2; }\n"},
			change: func(h *harness) map[string]string {
				return map[string]string{"src/standalone.c": "int first(void) { return \"one\" * 2; }\n" + h.read("src/standalone.c")}
			},
			want: Rejected,
		},
		{
			name: "gcc at a missing include in an includer of the changed header",
			files: map[string]string{
				"include/extra.h": "int extra(int a);\n",
				"src/report.c":    "#include \"generated.h\"\n" + extraUser,
			},
			change: func(h *harness) map[string]string {
				return map[string]string{"include/extra.h": "int extra(int a, int b);\n"}
			},
			want: Unverified, reason: "generated.h",
		},
		{
			name: "the same header change without the missing include",
			files: map[string]string{
				"include/extra.h": "int extra(int a);\n",
				"src/report.c":    extraUser,
			},
			change: func(h *harness) map[string]string {
				return map[string]string{"include/extra.h": "int extra(int a, int b);\n"}
			},
			want: Rejected,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCHarness(t, tc.files)
			res := h.validate(tc.change(h))
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s:\n%s", res.Verdict, tc.want, describe(res))
			}
			if tc.reason != "" && (len(res.Unverified) == 0 || !strings.Contains(res.Unverified[0].Reason, tc.reason)) {
				t.Errorf("unverified %+v, want a reason naming %q", res.Unverified, tc.reason)
			}
		})
	}
}

// go vet type-checks each package and reports only its first type error:
// with one already there, a go.mod that lowers the language version
// under a range over an int (an error after it) came back clean.
func TestGoVetStopsAtAPackagesFirstTypeError(t *testing.T) {
	const rangeOverInt = "package main\n\nfunc sum() (n int) {\n\tfor i := range 10 {\n\t\tn += i\n\t}\n\treturn n\n}\n\nvar _ = sum\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  Verdict
	}{
		{"a type error before it", map[string]string{"a_broken.go": "package main\n\nvar broken int = undefinedName\n", "z_sum.go": rangeOverInt}, Unverified},
		{"no type error before it", map[string]string{"z_sum.go": rangeOverInt}, Rejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "go", harnessOptions{opts: Options{BatchStateDir: t.TempDir()}, files: tc.files})
			mod := h.read("go.mod")
			lowered := regexp.MustCompile(`(?m)^go 1\.\d+(\.\d+)?$`).ReplaceAllString(mod, "go 1.21")
			if lowered == mod {
				t.Fatalf("no go directive in go.mod:\n%s", mod)
			}
			res := h.validate(map[string]string{"go.mod": lowered})
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s:\n%s", res.Verdict, tc.want, describe(res))
			}
			if tc.want == Unverified && !strings.Contains(describe(res), "first type error") {
				t.Errorf("the reason does not say vet stopped:\n%s", describe(res))
			}
		})
	}
}

// cargo compiles nothing that depends on a unit that failed: with b.rs's
// error on disk, the bin is never compiled, before or after the change,
// and the dependency files of an earlier change's build (which fixed
// b.rs) still named main.rs as read. A change that broke main.rs came
// back clean.
func TestCargoStoppedAtAFailedUnit(t *testing.T) {
	requireTool(t, "cargo")
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"Cargo.toml":  "[package]\nname = \"p1\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs":  "pub mod a;\npub mod b;\n\npub fn f() -> i32 {\n    a::g()\n}\n",
		"src/a.rs":    "pub fn g() -> i32 {\n    1\n}\n",
		"src/b.rs":    "pub fn h() -> i32 {\n    \"s\"\n}\n",
		"src/main.rs": "fn main() {\n    let _: i32 = p1::f();\n}\n",
	})
	h := newHarnessAt(t, dir, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir()}})
	res := h.validate(map[string]string{"src/b.rs": "pub fn h() -> i32 {\n    2\n}\n"})
	expect(t, res, Clean)
	res = h.validate(map[string]string{"src/main.rs": "fn main() {\n    let _: String = p1::f();\n}\n"})
	if res.Verdict != Unverified || !strings.Contains(describe(res), "could not compile") {
		t.Fatalf("a change the failed unit kept cargo from compiling:\n%s", describe(res))
	}
	// An error cargo does reach still rejects.
	res = h.validate(map[string]string{"src/a.rs": "pub fn g() -> i32 {\n    \"one\"\n}\n"})
	expect(t, res, Rejected, "src/a.rs")
}

// Language servers that stop reporting part of a file: gopls reports no
// type error of a file that does not parse, and pyright checks nothing in
// a function past its complexity limit. A type error the change added
// there came back clean; it is unverified now, and the same change
// without the stop still rejects.
func TestServersThatStopReportingPartOfAFile(t *testing.T) {
	var complex strings.Builder
	complex.WriteString("def big(c: bool) -> int:\n    x = 0\n")
	for i := range 800 {
		fmt.Fprintf(&complex, "    if c:\n        x = %d\n", i)
	}
	complex.WriteString("    return x\n")
	for _, tc := range []struct {
		name, project, file, before, after string
		want                               Verdict
	}{
		{"gopls, a file that does not parse", "go", "types/stop.go",
			"package types\n\nfunc A() int {\n\tx := 1 +\n\treturn x\n}\n\nfunc B() string {\n\treturn \"b\"\n}\n",
			"package types\n\nfunc A() int {\n\tx := 1 +\n\treturn x\n}\n\nfunc B() string {\n\tvar s string = 3\n\treturn s\n}\n", Unverified},
		// A stop before the change hides nothing the change adds: the
		// file's answer after it is whole.
		{"gopls, the syntax error fixed", "go", "types/stop.go",
			"package types\n\nfunc A() int {\n\tx := 1 +\n\treturn x\n}\n",
			"package types\n\nfunc A() int {\n\tx := 1\n\treturn x\n}\n", Clean},
		{"gopls, the same change in a file that parses", "go", "types/stop.go",
			"package types\n\nfunc A() int {\n\tx := 1\n\treturn x\n}\n\nfunc B() string {\n\treturn \"b\"\n}\n",
			"package types\n\nfunc A() int {\n\tx := 1\n\treturn x\n}\n\nfunc B() string {\n\tvar s string = 3\n\treturn s\n}\n", Rejected},
		{"pyright, a function past its complexity limit", "py", "app/stop.py",
			complex.String(), strings.Replace(complex.String(), "    x = 0\n", "    x = 0\n    y: int = \"not an int\"\n", 1), Unverified},
		{"pyright, the same change in a small function", "py", "app/stop.py",
			"def small(c: bool) -> int:\n    x = 0\n    return x\n",
			"def small(c: bool) -> int:\n    x = 0\n    y: int = \"not an int\"\n    return x\n", Rejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.project, harnessOptions{files: map[string]string{tc.file: tc.before}})
			h.requireServer(map[string]string{"go": "go", "py": "python"}[tc.project])
			res := h.validate(map[string]string{tc.file: tc.after})
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s:\n%s", res.Verdict, tc.want, describe(res))
			}
			if tc.want == Unverified && !strings.Contains(describe(res), "stopped reporting errors in "+tc.file) {
				t.Errorf("the reason does not name where the server stopped:\n%s", describe(res))
			}
		})
	}
}

// pyright's command line skips a file the extended configuration
// excludes; the gate read only the extending file's include and exclude,
// took the file as checked by the command line, and its silence as
// clean.
func TestPyrightSkipsWhatTheExtendedConfigurationExcludes(t *testing.T) {
	h := newHarness(t, "py", harnessOptions{opts: Options{BatchStateDir: t.TempDir(), Strategy: StrategyBatch}, files: map[string]string{
		"pyrightconfig.json":     `{"extends": "./configs/base.json", "typeCheckingMode": "standard"}`,
		"configs/base.json":      `{"include": ["../app"], "exclude": ["../app/legacy"]}`,
		"app/legacy/__init__.py": "",
		"app/legacy/old.py":      "def old() -> int:\n    return 1\n",
	}})
	h.requireServer("python")
	res := h.validate(map[string]string{"app/legacy/old.py": "def old() -> int:\n    return \"one\"\n"})
	// The server checks it instead (an open file, whatever the scope).
	expect(t, res, Rejected, "app/legacy/old.py")
}

// A compile run's stop survives the merge of its units: a header's error
// one unit reported and went on from, and another stopped at (gcc under
// -Wfatal-errors), is one error, and the merged answer stopped. The
// error is the same either way, so a unit that stops at it after the
// change and did not before pairs it as the old error it is (when the
// stop rode in the error's code, the two differed, and it read as new).
func TestACompileRunsStopSurvivesTheMerge(t *testing.T) {
	units := []compiledb.Command{{Dir: "/p", File: "/p/src/a.c", Args: []string{"gcc"}}, {Dir: "/p", File: "/p/src/b.c", Args: []string{"gcc", "-Wfatal-errors"}}}
	goesOn := "include/x.h:3:5: error: unknown type name 'foo'\n" + compileMarker + " 0 1\n"
	stops := "include/x.h:3:5: error: unknown type name 'foo'\ncompilation terminated due to -Wfatal-errors.\n" + compileMarker + " 1 1\n"
	got, err := parseCompilerOutput(units, []byte(goesOn+stops), nil)
	if err != nil {
		t.Fatal(err)
	}
	merged, stopped := mergeUnits(got)
	header := merged["/p/include/x.h"]
	if len(header) != 1 {
		t.Fatalf("merged %+v, want the one error", header)
	}
	if !strings.Contains(stopped, "src/b.c") || !strings.Contains(stopped, "include/x.h:3") {
		t.Errorf("stopped = %q, want b.c's stop after x.h's error", stopped)
	}
	if why := stoppedReporting(pathRel{"/p"}, &servers.CheckResult{After: merged, Stopped: stopped}, func(string, lsp.Diagnostic) bool { return true }); !strings.Contains(why, "src/b.c") {
		t.Errorf("stoppedReporting = %q", why)
	}
	before, err := parseCompilerOutput(units[:1], []byte(goesOn), nil)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := mergeUnits(before)
	newErrs, _, _ := delta(fileDiags{before: toDiags("include/x.h", nil, old["/p/include/x.h"]), after: toDiags("include/x.h", nil, header)})
	if len(newErrs) != 0 {
		t.Errorf("the error the unit stopped at reads as new: %+v", newErrs)
	}
}

// pathRel is a workspace root for stoppedReporting.
type pathRel struct{ dir string }

func (r pathRel) Rel(abs string) (string, error) { return filepath.Rel(r.dir, abs) }

// tsserver (TypeScript 5.9) reads a JavaScript file over 4 MiB from disk
// as empty: a checkJs dependant that large said nothing before the change
// and after, and the change that broke it came back clean.
func TestTSServerReadsAHugeJavaScriptDependantAsEmpty(t *testing.T) {
	padding := strings.Repeat("// padding to pass tsserver's limit of 4 MiB for a file that is not TypeScript\n", 60000)
	for _, tc := range []struct {
		name    string
		padding string
		want    Verdict
	}{
		{"over the limit", padding, Unverified},
		{"under it", "", Rejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "ts-esm", harnessOptions{files: map[string]string{
				"tsconfig.json": `{"compilerOptions": {"target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": true, "allowJs": true, "checkJs": true, "noEmit": true}, "include": ["src"]}`,
				"src/count.ts":  "export function count(): number {\n  return 1;\n}\n",
				"src/big.js":    "import { count } from \"./count.js\";\n\n/** @type {number} */\nexport const n = count();\n" + tc.padding,
			}})
			withTypeScript(t, h, "5.9.3")
			h.requireServer("typescript")
			res := h.validate(map[string]string{"src/count.ts": "export function count(): string {\n  return \"one\";\n}\n"})
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s:\n%s", res.Verdict, tc.want, describe(res))
			}
		})
	}
}

// gopls reports every file of the workspace, and a file that does not
// parse hides only its own type errors: those a change can add are in the
// packages that are, or import, a changed package. One file that did not
// parse anywhere in the module made every Go change unverified (found by
// the gate fuzzer's errors on disk, 29 of 40 trials).
func TestAFileThatDoesNotParseElsewhere(t *testing.T) {
	const (
		loner   = "package broken\n\nfunc Broken( {\n}\n"
		typesIm = "package report\n\nimport \"example.com/shop/types\"\n\nvar _ types.User\n\nfunc Report( {\n}\n"
	)
	for _, tc := range []struct {
		name         string
		broken, file string // the file that does not parse, and its content
		change       string
		want         Verdict
		module       string // a go.mod of tools/, a module of its own
	}{
		{"a package nothing imports, a change elsewhere", "tools/broken/broken.go", loner, "db/db.go", Clean, ""},
		{"an importer of the changed package", "report/report.go", typesIm, "types/types.go", Unverified, ""},
		{"an importer of another package", "report/report.go", typesIm, "db/db.go", Clean, ""},
		{"a package of a module beside the changed file's", "tools/broken/broken.go", loner, "db/db.go", Clean, "module example.com/tools\n\ngo 1.22\n"},
		{"a package of a module beside it that imports the changed one's", "tools/broken/broken.go", "package broken\n\nimport \"example.com/shop/db\"\n\nvar _ = db.FindUser\n\nfunc Broken( {\n}\n", "db/db.go", Unverified, "module example.com/tools\n\ngo 1.22\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{tc.broken: tc.file}
			if tc.module != "" {
				files["tools/go.mod"] = tc.module
			}
			h := newHarness(t, "go", harnessOptions{files: files})
			h.requireServer("go")
			res := h.validate(map[string]string{tc.change: h.read(tc.change) + "\n// a comment\n"})
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s:\n%s", res.Verdict, tc.want, describe(res))
			}
			if tc.want == Unverified && !strings.Contains(describe(res), "stopped reporting errors in "+tc.broken) {
				t.Errorf("the reason does not name where gopls stopped:\n%s", describe(res))
			}
		})
	}
}

// An error the includers' compile reported in a header before the change
// and not after it is resolved: the units that include the header were
// compiled either side. It went unpaired (the header was not among the
// files answered after), and the end of a hooked turn, which takes what
// the way back to the session's start resolves as what the turn brought
// in, passed a turn that deleted a header an includer names.
func TestAHeadersErrorTheIncludersNoLongerReportIsResolved(t *testing.T) {
	dir := t.TempDir()
	unit := func(f string) string {
		return fmt.Sprintf(`{"arguments":["cc","-std=c11","-Iinc","-c",%q,"-o","x.o"],"directory":%q,"file":%q}`, f, dir, f)
	}
	testfs.Write(t, dir, map[string]string{
		"compile_commands.json": "[" + unit("main.c") + "]",
		"inc/h1.h":              "#ifndef H1_H\n#define H1_H\n#include \"h0.h\"\n#endif\n",
		"main.c":                "#include \"h1.h\"\nint main(void) { return E_B; }\n",
	})
	h := newHarnessAt(t, dir, harnessOptions{})
	h.requireServer("c")
	res := h.validate(map[string]string{"inc/h0.h": "enum E { E_A, E_B };\n"})
	expect(t, res, Clean)
	if !slices.ContainsFunc(res.Resolved, func(d Diag) bool { return d.Path == "inc/h1.h" }) {
		t.Errorf("the missing header's error in inc/h1.h is not resolved:\n%s", describe(res))
	}
}

// The end of a hooked turn checks the way back to the turn's start
// (Scope.Complete), and reads the errors the turn brought in from the
// ones the way back resolves. Here the turn renamed a nested module
// (its go.mod's module line), which breaks its own package's import,
// and a package of it does not parse. On the disk go vet stops at the
// import; on the way back it stops at the file that does not parse and
// never reaches the importing package, so nothing says the import's
// error is resolved. That is no evidence the turn brought none in: found
// by the gate fuzzer through the hooks (seed 120455), where the turn
// ended clean. The way back's new error (the parse error, which go vet
// reaches only there) still says it is rejected, and the stop is
// unverified, not clean.
func TestTheWayBackThatStoppedEarlySaysSo(t *testing.T) {
	h := newHarness(t, "go", harnessOptions{files: map[string]string{
		"go.mod":                    "module example.com/fuzz\n\ngo 1.22\n",
		"m/go.mod":                  "module example.com/fuzz/m/v2\n\ngo 1.22\n",
		"m/p0/p0.go":                "package p0\n\nvar V1 int = 1\n",
		"m/p2/p2.go":                "package p2\n\nimport \"example.com/fuzz/m/p0\"\n\nvar U int = p0.V1\n",
		"m/zbroken/gateonly_bad.go": "package zbroken\n\nfunc broken( {\n}\n",
	}, opts: Options{BatchStateDir: t.TempDir()}})
	h.requireServer("go")
	back := map[string]string{"m/go.mod": "module example.com/fuzz/m\n\ngo 1.22\n"}
	res := h.validateScope(back, Scope{Complete: true})
	if !slices.ContainsFunc(res.Unverified, func(s Skipped) bool {
		return s.Path == "m/go.mod" && strings.Contains(s.Reason, "did not check everything")
	}) {
		t.Errorf("the way back's check stopped before the importing package, and does not say so\n%s", describe(res))
	}
	// A check that asks no more than a rejection needs stops at the new
	// error, as before.
	if res := h.validate(back); res.Verdict != Rejected || len(res.Unverified) > 0 {
		t.Errorf("a commit's scope: verdict %s, unverified %v; want rejected alone\n%s", res.Verdict, res.Unverified, describe(res))
	}
}
