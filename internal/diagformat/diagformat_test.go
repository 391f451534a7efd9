package diagformat

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// got renders a report as "rel:line:col severity code message" lines,
// sorted, with paths relative to the root.
func got(root string, r Report) []string {
	var out []string
	for p, ds := range r.Files {
		rel, err := filepath.Rel(root, p)
		if err != nil || p == "" {
			rel = p
		}
		for _, d := range ds {
			msg, _, _ := strings.Cut(d.Message, "\n")
			out = append(out, strings.TrimSpace(
				filepath.ToSlash(rel)+":"+itoa(d.Range.Start.Line+1)+":"+itoa(d.Range.Start.Character+1)+" "+d.Severity.String()+" "+d.CodeString()+" "+msg))
		}
	}
	sort.Strings(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// The outputs in testdata are real: captured from gcc 12, cargo 1.95
// (paths under /ws), mypy 1.0.1, javac 17 and go vet (Go 1.25) on this
// kind of machine; the SARIF log is the standard's minimal example (no
// tool here writes SARIF: gcc 12 has only text and JSON).
func TestParse(t *testing.T) {
	const root = "/ws"
	tests := []struct {
		name       string
		format     Format
		file       string
		exit       int
		want       []string
		wantErr    string
		incomplete bool
	}{
		{name: "gcc errors and warnings", format: GCC, file: "gcc-errors.txt", exit: 1, want: []string{
			"a.c:2:5 information  declared here",
			"a.c:4:11 warning -Wint-conversion initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast",
			"a.c:5:3 warning -Wimplicit-function-declaration implicit declaration of function ‘undefined_fn’",
			"a.c:6:10 error  too few arguments to function ‘f’",
		}},
		// gcc compiles nothing after a missing include, nor past its
		// error limit: what it did not reach is no evidence.
		{name: "gcc stopped at a missing include", format: GCC, file: "gcc-fatal.txt", exit: 1, incomplete: true, want: []string{
			"a.c:1:10 error  config.h: No such file or directory",
		}},
		{name: "gcc stopped at -fmax-errors", format: GCC, file: "gcc-max-errors.txt", exit: 1, incomplete: true, want: []string{
			"b.c:1:22 error  ‘x’ undeclared (first use in this function)",
			"b.c:1:22 information  each undeclared identifier is reported only once for each function it appears in",
			"b.c:2:22 error  ‘y’ undeclared (first use in this function)",
		}},
		{name: "gcc failing with nothing read", format: GCC, file: "gcc-errors.txt", exit: 1, wantErr: "reporting no error"},
		// A failed build is incomplete: cargo compiles nothing that
		// depends on the unit that failed (b's lib test here).
		{name: "cargo workspace: errors once per span, warnings, no failure notes", format: RustcJSON, file: "cargo-workspace.txt", exit: 101, incomplete: true, want: []string{
			"b/src/lib.rs:3:10 error E0308 mismatched types",
			"b/src/lib.rs:3:5 error E0308 mismatched types",
		}},
		{name: "cargo warnings only", format: RustcJSON, file: "cargo-warnings.txt", exit: 0, want: []string{
			"b/src/lib.rs:2:9 warning unused_variables unused variable: `unused`",
		}},
		{name: "cargo manifest that does not parse", format: RustcJSON, file: "cargo-manifest.txt", exit: 101, incomplete: true, want: []string{
			"a/Cargo.toml:1:9 error  unclosed table, expected `]`",
		}},
		// Debian 12's cargo 1.65 and rustc 1.63: rustc's "aborting due
		// to 2 previous errors" passed on as a message of no file, the
		// failed unit named without its target, and a manifest's error in
		// a chain of causes.
		{name: "cargo 1.65 workspace: no summary of the errors", format: RustcJSON, file: "cargo-1.65-workspace.txt", exit: 101, incomplete: true, want: []string{
			"b/src/lib.rs:2:21 error E0308 mismatched types",
		}},
		{name: "cargo 1.65 manifest that does not parse", format: RustcJSON, file: "cargo-1.65-manifest.txt", exit: 101, incomplete: true, want: []string{
			"a/Cargo.toml:1:9 error  could not parse the manifest as TOML",
		}},
		// a's error has no position: b's TOML position is b's alone.
		{name: "cargo manifest errors, one without a position", format: RustcJSON, file: "cargo-manifest-two-errors.txt", exit: 101, incomplete: true, want: []string{
			"b/Cargo.toml:3:1 error  could not parse the manifest as TOML",
		}},
		{name: "mypy", format: Mypy, file: "mypy-errors.txt", exit: 1, want: []string{
			"b.py:2:10 error assignment Incompatible types in assignment (expression has type \"int\", variable has type \"str\")",
			"b.py:4:1 error import Cannot find implementation or library stub for module named \"nonexistent_mod\"",
			"b.py:4:1 information  See https://mypy.readthedocs.io/en/stable/running_mypy.html#missing-imports",
		}},
		{name: "mypy stopped by a syntax error", format: Mypy, file: "mypy-syntax.txt", exit: 2, incomplete: true, want: []string{
			"bad.py:1:6 error syntax invalid syntax",
		}},
		// tsc checks no types while a file has a syntax error (the
		// output of TypeScript 7's tsc on "(;" in one file and a type
		// error in another): its silence is no evidence.
		{name: "tsc stopped by a syntax error", format: TSC, file: "tsc-syntax.txt", exit: 2, incomplete: true, want: []string{
			"src/a.ts:1:19 error 1109 Expression expected.",
		}},
		{name: "tsc stopped by an error of its options", format: TSC, file: "tsc-options.txt", exit: 2, incomplete: true, want: []string{
			"tsconfig.json:3:15 error 5107 Option 'target=ES5' is deprecated and will stop functioning in TypeScript 7.0. Specify compilerOption '\"ignoreDeprecations\": \"6.0\"' to silence this error.",
		}},
		{name: "tsc stopped by the parser's JSX errors", format: TSC, file: "tsc-jsx.txt", exit: 2, incomplete: true, want: []string{
			"src/view.tsx:3:4 error 17008 JSX element 'div' has no corresponding closing tag.",
			"src/view.tsx:5:1 error 1005 '</' expected.",
		}},
		{name: "tsc with an error only its checker reports", format: TSC, file: "tsc-implicit.txt", exit: 2, want: []string{
			"src/a.ts:1:10 error 7006 Parameter 'x' implicitly has an 'any' type.",
		}},
		{name: "tsc with type errors beside a grammar error", format: TSC, file: "tsc-errors.txt", exit: 2, want: []string{
			"src/b.ts:1:14 error 2322 Type 'string' is not assignable to type 'number'.",
			"src/c.ts:2:1 error 1308 'await' expressions are only allowed within async functions and at the top levels of modules.",
		}},
		{name: "javac", format: Javac, file: "javac-errors.txt", exit: 1, want: []string{
			"src/p/B.java:5:27 error  incompatible types: int cannot be converted to String",
			"src/p/B.java:5:39 error  cannot find symbol",
			"src/p/B.java:6:14 warning  [rawtypes] found raw type: List",
			"src/p/B.java:6:36 warning  [rawtypes] found raw type: ArrayList",
			"src/p/B.java:6:55 warning  [unchecked] unchecked call to add(E) as a member of the raw type List",
		}},
		// javac prints 100 errors unless -Xmaxerrs says otherwise (3
		// here), then how many it left out.
		{name: "javac past its limit of errors", format: Javac, file: "javac-maxerrs.txt", exit: 1, incomplete: true, want: []string{
			"A.java:2:23 error  cannot find symbol",
			"A.java:3:23 error  cannot find symbol",
			"A.java:4:23 error  cannot find symbol",
		}},
		// Findings read as compile errors of a package that does not
		// build, after which vet checks no importer of it: with an
		// error, vet's answer is incomplete.
		{name: "go vet findings", format: GoVet, file: "govet-findings.txt", exit: 1, incomplete: true, want: []string{
			"a.go:6:14 error  fmt.Printf format %d has arg \"x\" of wrong type string",
			"b.go:5:35 error  fmt.Printf format %s reads arg #2, but call has 1 arg",
		}},
		// vet stops at a package's first type error: a second one there
		// is never printed, so the answer is no evidence about the rest.
		{name: "go vet type error", format: GoVet, file: "govet-typeerror.txt", exit: 1, incomplete: true, want: []string{
			"a.go:7:14 error  cannot use \"s\" (untyped string constant) as int value in variable declaration",
		}},
		{name: "sarif", format: SARIF, file: "sarif-minimal.json", exit: 1, want: []string{
			"src/collections/list.cpp:15:9 error C2001 Variable \"count\" was used without being initialized.",
			"src/main.cpp:3:1 warning C2002 Unused variable.",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "gcc failing with nothing read" {
				data = []byte("gcc: error: unrecognized command-line option '--nope'\n")
			}
			r, err := Parse(tt.format, Input{Root: root, Exit: tt.exit, Output: data})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := got(root, r); strings.Join(g, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(tt.want, "\n"))
			}
			if (r.Incomplete != "") != tt.incomplete {
				t.Errorf("incomplete = %q, want %v", r.Incomplete, tt.incomplete)
			}
		})
	}
}

// Output that cannot be read is an error in every format, never an empty
// answer.
func TestUnreadable(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		exit   int
		out    string
	}{
		{"cargo garbled JSON", RustcJSON, 101, `{"reason":"compiler-message","message":{"level":"err` + "\n"},
		{"cargo cut short before build-finished", RustcJSON, 0, `{"reason":"compiler-artifact","fresh":true}` + "\n"},
		{"cargo failing with no error", RustcJSON, 101, "error: failed to load manifest for workspace member `/ws/a`\n"},
		{"sarif garbled", SARIF, 0, `{"version":"2.1.0","runs":[{"results":[`},
		{"sarif not a log", SARIF, 0, `{"version":"2.1.0"}`},
		{"mypy usage error", Mypy, 2, "mypy: error: unrecognized arguments: --no-such-opt\n"},
		{"mypy failing with nothing read", Mypy, 1, "Traceback (most recent call last):\n"},
		{"mypy cut before its summary", Mypy, 1, "b.py:2:10: error: Incompatible types in assignment  [assignment]\n"},
		{"mypy silent", Mypy, 0, ""},
		{"javac crash", Javac, 1, "An exception has occurred in the compiler (17.0.9).\n"},
		{"go vet build failure", GoVet, 1, "go: cannot find main module\n"},
		{"tsc killed", TSC, 137, ""},
		{"unknown format", Format("lint"), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse(tt.format, Input{Root: "/ws", Exit: tt.exit, Output: []byte(tt.out)}); err == nil {
				t.Fatal("read as an answer")
			}
		})
	}
}

// Maven's one-line form of javac's errors, colours included (mvn -q
// without -B colours a pipe too).
func TestMavenJavac(t *testing.T) {
	out := "\x1b[1;31m[ERROR] /ws/src/main/java/p/B.java:[5,27] incompatible types: int cannot be converted to String\x1b[m\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin\n"
	r, err := Parse(Javac, Input{Root: "/ws", Exit: 1, Output: []byte(out)})
	if err != nil {
		t.Fatal(err)
	}
	want := "src/main/java/p/B.java:5:27 error  incompatible types: int cannot be converted to String"
	if g := got("/ws", r); len(g) != 1 || g[0] != want {
		t.Fatalf("got %q, want %q", g, want)
	}
}

func TestCheckCommand(t *testing.T) {
	tests := []struct {
		command, format, wantErr string
	}{
		{"mypy src", "mypy", ""},
		{"mypy src", "gcc", `it prints mypy`},
		{"cargo check --message-format=json", "rustc-json", ""},
		{"cargo check", "rustc-json", "only with --message-format=json"},
		{"./scripts/lint.sh", "sarif", ""},
		{"make check", "pylint", "one of gcc, rustc-json, sarif, javac, tsc, mypy, govet"},
		{"mypy", "", "needs a format"},
		{"  ", "mypy", "no command"},
		{"MYPYPATH=stubs mypy .", "javac", "it prints mypy"},
	}
	for _, tt := range tests {
		err := CheckCommand(tt.command, tt.format)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("CheckCommand(%q, %q) = %v, want %q", tt.command, tt.format, err, tt.wantErr)
		}
	}
}

// Only a whole diagnostic line says the compiler stopped: gcc quotes the
// source under each diagnostic, and a message may quote anything.
func TestGCCStopped(t *testing.T) {
	for line, want := range map[string]bool{
		"a.c:1:10: fatal error: config.h: No such file or directory":          true,
		"src/a b.c:3: fatal error: x.h: No such file or directory":            true,
		"fatal error: too many errors emitted, stopping now [-ferror-limit=]": true,
		"compilation terminated.":                                             true,
		"compilation terminated due to -fmax-errors=2.":                       true,
		`    2 |   fprintf(stderr, "%s: fatal error: %d\n", p);`:              false,
		`a.c:1:2: warning: #warning "x: fatal error: y" [-Wcpp]`:              false,
		"a.c:4:11: error: too few arguments to function 'f'":                  false,
	} {
		if got := GCCStopped(line); got != want {
			t.Errorf("GCCStopped(%q) = %v, want %v", line, got, want)
		}
	}
}
