// Package diagformat reads the diagnostics a checker prints, in one of
// the formats compilers and linters share: gcc's, rustc's JSON (through
// cargo), SARIF, javac's (and Maven's), tsc's, mypy's and go vet's. A
// checker's output reads completely or not at all: a status that says
// the checker failed without a diagnostic read here, or JSON that does
// not parse, is an error, never an empty answer.
package diagformat

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// Format names a diagnostics format.
type Format string

// The formats read here.
const (
	// GCC is "file:line:col: error: message" (gcc, clang, and the many
	// tools that imitate them).
	GCC Format = "gcc"
	// RustcJSON is cargo's --message-format=json: one JSON object per
	// line, rustc's diagnostics in "compiler-message" records.
	RustcJSON Format = "rustc-json"
	// SARIF is the Static Analysis Results Interchange Format 2.1.0.
	SARIF Format = "sarif"
	// Javac is javac's "File.java:line: error: message", and Maven's
	// "[ERROR] /abs/File.java:[line,col] message".
	Javac Format = "javac"
	// TSC is `tsc --pretty false`: "file(line,col): error TSnnnn: text".
	TSC Format = "tsc"
	// Mypy is "file:line[:col]: error: message  [code]".
	Mypy Format = "mypy"
	// GoVet is `go vet`'s "file:line:col: message".
	GoVet Format = "govet"
)

// Formats lists every format, in the order the documentation gives them.
func Formats() []Format { return []Format{GCC, RustcJSON, SARIF, Javac, TSC, Mypy, GoVet} }

// Names lists the formats' names, for messages.
func Names() string {
	var s []string
	for _, f := range Formats() {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// Input is one run of a checker to read.
type Input struct {
	// Root is the workspace (absolute); Dir the directory the checker ran
	// in, relative to Root. Relative paths in the output are resolved
	// against Root/Dir.
	Root, Dir string
	// Exit is the checker's exit status.
	Exit int
	// Output is its standard output and error, interleaved.
	Output []byte
}

// Report is a checker's answer: diagnostics by absolute path ("" for
// those of no file).
type Report struct {
	Files map[string][]lsp.Diagnostic
	// Incomplete says why the checker stopped before checking everything
	// (mypy's "errors prevented further checking"): what it found is
	// real, but its silence about a file is no evidence. "" when complete.
	Incomplete string
}

// Parse reads in's output in format f.
func Parse(f Format, in Input) (Report, error) {
	var (
		r   Report
		err error
	)
	switch f {
	case GCC:
		r, err = parseGCC(in)
	case RustcJSON:
		r, err = parseRustc(in)
	case SARIF:
		r, err = parseSARIF(in)
	case Javac:
		r, err = parseJavac(in)
	case TSC:
		r, err = parseTSC(in)
	case Mypy:
		r, err = parseMypy(in)
	case GoVet:
		r, err = parseGoVet(in)
	default:
		return Report{}, fmt.Errorf("unknown diagnostics format %q (known: %s)", f, Names())
	}
	if err != nil {
		return Report{}, fmt.Errorf("%s output: %w", f, err)
	}
	return r, nil
}

// failedSilently is the error for a checker that exited non-zero without
// an error read: whatever it failed at, it did not check.
func failedSilently(in Input) error {
	return fmt.Errorf("the checker exited %d reporting no error it could read: %s", in.Exit, Tail(in.Output))
}

// finish applies the rule every format shares: a non-zero status needs an
// error read.
func finish(in Input, files map[string][]lsp.Diagnostic) (Report, error) {
	if in.Exit != 0 && !anyError(files) {
		return Report{}, failedSilently(in)
	}
	return Report{Files: files}, nil
}

func anyError(files map[string][]lsp.Diagnostic) bool {
	for _, ds := range files {
		for _, d := range ds {
			if d.IsError() {
				return true
			}
		}
	}
	return false
}

// path resolves a path the checker printed.
func (in Input) path(p string) string {
	p = strings.TrimPrefix(p, "file://")
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(in.Root, filepath.FromSlash(in.Dir), p)
	}
	return filepath.Clean(p)
}

// at is a diagnostic at a 1-based line and column (0 when unknown).
func at(line, col int, sev lsp.DiagnosticSeverity, code, source, msg string) lsp.Diagnostic {
	l, c := max(line-1, 0), max(col-1, 0)
	d := lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: l, Character: c}, End: lsp.Position{Line: l, Character: c}},
		Severity: sev, Source: source, Message: msg}
	if code != "" {
		d.Code = quote(code)
	}
	return d
}

func quote(s string) []byte {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, r)...)
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

func severity(s string) lsp.DiagnosticSeverity {
	switch strings.ToLower(s) {
	case "error", "fatal error", "fatal", "error: internal compiler error":
		return lsp.SeverityError
	case "warning", "warn":
		return lsp.SeverityWarning
	case "note", "help", "info", "information", "message":
		return lsp.SeverityInformation
	}
	return lsp.SeverityHint
}

// add appends d to p's list without a duplicate: cargo reports a
// library's error once per target that builds it (lib, lib test).
func add(files map[string][]lsp.Diagnostic, p string, d lsp.Diagnostic) {
	for _, e := range files[p] {
		if e.Range == d.Range && e.Message == d.Message && string(e.Code) == string(d.Code) && e.Severity == d.Severity {
			return
		}
	}
	files[p] = append(files[p], d)
}

// Tail is the end of a checker's output, for an error message.
func Tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}

// CommandFormats says which formats a known program can print, for a
// check at configuration time: a command whose program is known and whose
// format is none of its formats cannot be read. ok is false for a program
// not known here (a script, make), which may print any format.
func CommandFormats(command string) (formats []Format, need string, ok bool) {
	fields := strings.Fields(command)
	for len(fields) > 0 && strings.Contains(fields[0], "=") { // VAR=value prefixes
		fields = fields[1:]
	}
	if len(fields) == 0 {
		return nil, "", false
	}
	prog := filepath.Base(fields[0])
	switch prog {
	case "cargo":
		return []Format{RustcJSON}, "--message-format=json", true
	case "mypy", "dmypy":
		return []Format{Mypy}, "", true
	case "go":
		if slices.Contains(fields, "vet") {
			return []Format{GoVet}, "", true
		}
		return []Format{GoVet, GCC}, "", true
	case "tsc":
		return []Format{TSC}, "", true
	case "javac", "mvn", "mvnw", "gradle", "gradlew":
		return []Format{Javac}, "", true
	case "gcc", "g++", "cc", "c++", "clang", "clang++":
		return []Format{GCC, SARIF}, "", true
	}
	return nil, "", false
}

// CheckCommand reports, at configuration time, whether format names a
// format and the command can print it.
func CheckCommand(command, format string) error {
	if strings.TrimSpace(command) == "" {
		return fmt.Errorf("[check] has no command")
	}
	f := Format(format)
	if !slices.Contains(Formats(), f) {
		if format == "" {
			return fmt.Errorf("[check] command %q needs a format: one of %s", command, Names())
		}
		return fmt.Errorf("[check] format %q is not one read here: one of %s", format, Names())
	}
	formats, need, ok := CommandFormats(command)
	if !ok {
		return nil
	}
	if !slices.Contains(formats, f) {
		var names []string
		for _, g := range formats {
			names = append(names, string(g))
		}
		return fmt.Errorf("[check] format %q is not what %q prints: it prints %s", format, strings.Fields(command)[0], strings.Join(names, ", "))
	}
	if need != "" && !strings.Contains(command, need) {
		return fmt.Errorf("[check] command %q prints %s only with %s", command, format, need)
	}
	return nil
}
