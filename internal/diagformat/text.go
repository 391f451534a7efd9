package diagformat

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// ansi matches the colour sequences some tools print even into a pipe
// (Maven without -B).
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// lines returns the output's lines, colours removed.
func lines(out []byte) ([]string, error) {
	var ls []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		ls = append(ls, strings.TrimRight(ansi.ReplaceAllString(sc.Text(), ""), "\r"))
	}
	return ls, sc.Err()
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

var gccLine = regexp.MustCompile(`^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*?)(?: \[(-W[^\]]+|-f[^\]]+)\])?$`)

// parseGCC reads gcc's (and clang's) text diagnostics; the source
// excerpts and "In function" lines between them are skipped. A compiler
// that stopped early (GCCStopped) leaves the answer incomplete.
func parseGCC(in Input) (Report, error) {
	ls, err := lines(in.Output)
	if err != nil {
		return Report{}, err
	}
	files := map[string][]lsp.Diagnostic{}
	stopped := ""
	for _, l := range ls {
		if stopped == "" && GCCStopped(l) {
			stopped = l
		}
		m := gccLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		p := in.path(m[1])
		add(files, p, at(atoi(m[2]), atoi(m[3]), severity(m[4]), m[6], "gcc", m[5]))
	}
	r, err := finish(in, files)
	if err == nil && stopped != "" {
		r.Incomplete = "the compiler stopped early (" + stopped + "): what follows in that translation unit was not compiled"
	}
	return r, err
}

// gccStop matches the lines after which gcc or clang compile no more of
// a translation unit: a located fatal error (a missing include), clang's
// unlocated "fatal error: too many errors emitted, stopping now" at its
// limit of 20, and gcc's own end under -fmax-errors or -Wfatal-errors.
// Only whole diagnostic lines count: a source excerpt (indented) or a
// warning's text that quotes "fatal error" is no stop.
var gccStop = regexp.MustCompile(`^(?:[^\s:][^:]*:\d+:(?:\d+:)? fatal error: |fatal error: |compilation terminated)`)

// GCCStopped reports whether a line of gcc's or clang's output says the
// compiler stopped there: an error the change adds after that point is
// never reported, on either side of it.
func GCCStopped(line string) bool { return gccStop.MatchString(line) }

var (
	javacLine = regexp.MustCompile(`^(.+\.java):(\d+): (error|warning): (.*)$`)
	mavenLine = regexp.MustCompile(`^\[(ERROR|WARNING)\] (.+\.java):\[(\d+),(\d+)\] (.*)$`)
)

// parseJavac reads javac's diagnostics (the source line and a caret
// under the column follow each; indented details after them join the
// message) and Maven's one-line form of them.
func parseJavac(in Input) (Report, error) {
	ls, err := lines(in.Output)
	if err != nil {
		return Report{}, err
	}
	files := map[string][]lsp.Diagnostic{}
	for i := 0; i < len(ls); i++ {
		if m := mavenLine.FindStringSubmatch(ls[i]); m != nil {
			add(files, in.path(m[2]), at(atoi(m[3]), atoi(m[4]), severity(m[1]), "", "javac", m[5]))
			continue
		}
		m := javacLine.FindStringSubmatch(ls[i])
		if m == nil {
			continue
		}
		msg, col := m[4], 0
		// The source line, then the caret.
		if i+2 < len(ls) && strings.TrimSpace(ls[i+2]) == "^" {
			col = strings.IndexByte(ls[i+2], '^') + 1
			i += 2
			for i+1 < len(ls) && strings.HasPrefix(ls[i+1], "  ") && !javacLine.MatchString(ls[i+1]) {
				i++
				msg += "\n" + strings.TrimSpace(ls[i])
			}
		}
		add(files, in.path(m[1]), at(atoi(m[2]), col, severity(m[3]), "", "javac", msg))
	}
	r, err := finish(in, files)
	if err == nil {
		if i := slices.IndexFunc(ls, javacCapped.MatchString); i >= 0 {
			r.Incomplete = "javac printed only some of its errors (" + ls[i] + ")"
		}
	}
	return r, err
}

// javacCapped is javac's last line past its limit of errors (100 unless
// -Xmaxerrs): the errors after it are never printed.
var javacCapped = regexp.MustCompile(`^only showing the first \d+ errors, of \d+ total`)

var (
	mypyLine    = regexp.MustCompile(`^(.+?):(\d+)(?::(\d+))?: (error|warning|note): (.*?)(?:  \[([a-z0-9-]+)\])?$`)
	mypySummary = regexp.MustCompile(`^(Success: no issues found|Found \d+ errors? in \d+ files?)`)
)

// parseMypy reads mypy's diagnostics. mypy exits 0 without errors, 1
// with them, 2 when it could not check: with errors read (a syntax
// error "prevented further checking"), the report is incomplete. mypy
// ends every check with a summary ("Success: no issues found", "Found 2
// errors in 1 file"): output without one is not a whole check.
func parseMypy(in Input) (Report, error) {
	ls, err := lines(in.Output)
	if err != nil {
		return Report{}, err
	}
	files := map[string][]lsp.Diagnostic{}
	summary := false
	for _, l := range ls {
		summary = summary || mypySummary.MatchString(l)
		m := mypyLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		add(files, in.path(m[1]), at(atoi(m[2]), atoi(m[3]), severity(m[4]), m[6], "mypy", m[5]))
	}
	switch in.Exit {
	case 0, 1:
		if !summary {
			return Report{}, fmt.Errorf("mypy's output has no summary line: %s", Tail(in.Output))
		}
		return finish(in, files)
	case 2:
		if anyError(files) {
			return Report{Files: files, Incomplete: "mypy stopped early: errors prevented further checking"}, nil
		}
	}
	return Report{}, failedSilently(in)
}

var goVetLine = regexp.MustCompile(`^(?:vet: )?(.+?\.go):(\d+):(\d+): (.*)$`)

// parseGoVet reads go vet's findings ("file:line:col: message", type
// errors prefixed "vet: "); each fails vet, so each is an error. An
// answer with an error is incomplete: vet reports only the first type
// error of a package and analyses nothing more of it, and a package that
// does not compile is printed as the compiler's plain lines, which look
// like findings, while no package importing it is vetted at all. Its
// text cannot tell a finding from such a stop, so only an answer with no
// error is whole.
func parseGoVet(in Input) (Report, error) {
	ls, err := lines(in.Output)
	if err != nil {
		return Report{}, err
	}
	files := map[string][]lsp.Diagnostic{}
	first := ""
	for _, l := range ls {
		m := goVetLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if first == "" {
			first = l
		}
		add(files, in.path(m[1]), at(atoi(m[2]), atoi(m[3]), lsp.SeverityError, "", "go vet", m[4]))
	}
	r, err := finish(in, files)
	if err == nil && first != "" {
		r.Incomplete = "go vet stops at a package's first type error and vets nothing that imports a package that does not compile (" + first + "): an error after it would not be reported"
	}
	return r, err
}

var (
	tscLocated = regexp.MustCompile(`^(.+)\((\d+),(\d+)\): (error|warning|message) TS(\d+): (.*)$`)
	tscGlobal  = regexp.MustCompile(`^(error|warning|message) TS(\d+): (.*)$`)
)

// parseTSC reads `tsc --pretty false` output: one line per diagnostic,
// "file(line,col): error TSnnnn: text", its message chain on indented
// lines after it. Diagnostics without a file (a configuration's) are kept
// under "". tsc exits 0 without errors, 1 or 2 with them; anything else,
// or errors it printed in no form read here, fails.
func parseTSC(in Input) (Report, error) {
	ls, err := lines(in.Output)
	if err != nil {
		return Report{}, err
	}
	diags := map[string][]lsp.Diagnostic{}
	var last *lsp.Diagnostic
	var lastFile string
	unread := 0
	flush := func() {
		if last != nil {
			diags[lastFile] = append(diags[lastFile], *last)
			last = nil
		}
	}
	for _, line := range ls {
		if last != nil && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			last.Message += "\n" + strings.TrimSpace(line)
			continue
		}
		flush()
		if m := tscLocated.FindStringSubmatch(line); m != nil {
			lastFile = in.path(m[1])
			d := at(atoi(m[2]), atoi(m[3]), severity(m[4]), "", "ts", m[6])
			d.Code = []byte(m[5])
			last = &d
			continue
		}
		if m := tscGlobal.FindStringSubmatch(line); m != nil {
			lastFile = ""
			last = &lsp.Diagnostic{Severity: severity(m[1]), Code: []byte(m[2]), Source: "ts", Message: m[3]}
			continue
		}
		if strings.TrimSpace(line) != "" {
			unread++
		}
	}
	flush()
	switch {
	case in.Exit == 0 && len(diags) == 0:
	case in.Exit == 1 || in.Exit == 2:
		if len(diags) == 0 {
			return Report{}, fmt.Errorf("tsc exited %d reporting no diagnostic it could read: %s", in.Exit, Tail(in.Output))
		}
	default:
		return Report{}, fmt.Errorf("tsc exited %d: %s", in.Exit, Tail(in.Output))
	}
	if unread > 0 && len(diags) == 0 {
		return Report{}, fmt.Errorf("tsc printed what is not a diagnostic: %s", Tail(in.Output))
	}
	return Report{Files: diags, Incomplete: tscSyntaxOnly(diags, in.Root)}, nil
}

// tscSyntaxOnly says why an answer of tsc's with errors is incomplete
// unless one of them is the type checker's own. tsc reports a program's
// type errors only when it has no syntax error, no error of its options
// and no global error (its emitFilesAndReportErrors, in TypeScript 5, 6
// and 7 alike: one file with "(;" and a type error in another prints
// TS1109 alone; a tsconfig.json error of TypeScript 6's deprecations,
// TS5107, hides the same). The codes do not say which pass an error came
// from (the parser's JSX errors are in the 17000s and at 2657, checker
// grammar errors in the 1000s), so the rule asks for proof, not for the
// absence of a sign: the answer is whole only with an error of a range
// only the checker reports (2000-2999 but the few the parser and the
// program report there, and 7000-7999). An answer of grammar errors
// alone so reads as incomplete too: the server checks instead, or the
// change is unverified, never clean by that silence. "" when whole.
func tscSyntaxOnly(diags map[string][]lsp.Diagnostic, root string) string {
	first, firstFile := "", ""
	for _, file := range slices.Sorted(maps.Keys(diags)) {
		for _, d := range diags[file] {
			if !d.IsError() {
				continue
			}
			code := strings.TrimPrefix(string(d.Code), "TS")
			if n, err := strconv.Atoi(code); err == nil && typeCheckerOnly(n) {
				return ""
			}
			if first == "" {
				first, firstFile = "TS"+code, file
			}
		}
	}
	if first == "" {
		return ""
	}
	if rel, err := filepath.Rel(root, firstFile); err == nil && firstFile != "" {
		firstFile = filepath.ToSlash(rel)
	}
	return fmt.Sprintf("tsc reported no error of its type checker (the first: %s in %s), and it checks no file's types while any file has a syntax error or its options or globals one", first, firstFile)
}

// typeCheckerOnly reports whether tsc's error code is one only its type
// checker reports, in the pass that runs only once the others are clean:
// the checker's ranges, 2000-2999 and 7000-7999, but the codes there
// that TypeScript 5.9's parser (2427, 2457, 2458, 2657, 2754, 2809,
// 2819), module resolution (2209, 2210) and program (those its
// program.ts names, 2688 among them: a type definition file not found)
// report, and the checker's global errors (2318, 2468, 2583, 2584: a
// global type or value not found), which tsc prints before it checks
// any file. A code of the program's that the checker reports too only
// loses the proof, never gives a false one.
func typeCheckerOnly(code int) bool {
	switch code {
	case 2427, 2457, 2458, 2657, 2754, 2809, 2819, // the parser's
		2209, 2210, // module resolution's
		2451, 2462, 2480, 2492, 2501, 2528, 2566, 2578, 2633, 2688, 2752, 2753, 2803, 2839, 2852, 7016, 7042, // the program's
		2318, 2468, 2583, 2584: // global
		return false
	}
	return (code >= 2000 && code < 3000) || (code >= 7000 && code < 8000)
}
