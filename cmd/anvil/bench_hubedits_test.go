package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A real project of 1–2k files and its hubs: the files most of it
// imports, where an agent's edit waits longest for the pre-edit hook.
type hubProject struct {
	name string
	// layout fills the workspace with the project.
	layout func(tb testing.TB, ws string)
	hubs   []string
	// body and signature edit one exported function of a hub's source:
	// a statement added to its body, and a parameter its callers need
	// not pass added to its signature; "" when the source has no
	// function they can edit.
	body, signature func(src string, i int) string
	// checker is the project's batch checker, run over the workspace for
	// the table beside the hook (the program first, then its arguments).
	checker func(tb testing.TB) []string
}

// BenchmarkHookOnHubEdits times the pre-edit hook on real projects of
// 1–2k files as an agent edits their hubs: for each hub, an edit of an
// exported function's body, then one of its signature (a parameter the
// callers need not pass), each a Write call through `anvil hook
// pre-edit` as Claude Code makes it, each allowed edit written as the
// client writes it (2 s apart, as a model's turns are), and the turn's end
// after each hub. Through the
// daemon, warm (the session's start and one edit before the clock). The
// batch checker runs over the last tree beside it.
//
// date-fns is read from a clone of its repository named by
// ANVIL_BENCH_DATE_FNS (github.com/date-fns/date-fns; its src, 1,488
// TypeScript files); the Go tools module comes from the module proxy.
//
//	ANVIL_BENCH_DATE_FNS=~/src/date-fns go test -run '^$' -bench BenchmarkHookOnHubEdits -benchtime 1x -timeout 1h -v ./cmd/anvil
func BenchmarkHookOnHubEdits(b *testing.B) {
	for _, p := range []hubProject{dateFnsHubs(), goToolsHubs()} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				editHubs(b, p)
			}
		})
	}
}

func dateFnsHubs() hubProject {
	hubs := []string{"toDate", "constructFrom", "_lib/normalizeDates", "startOfWeek", "addDays", "startOfISOWeek",
		"differenceInCalendarDays", "getISOWeekYear", "addMonths", "startOfDay"}
	for i, h := range hubs {
		hubs[i] = "src/" + h + "/index.ts"
	}
	return hubProject{
		name: "date-fns",
		layout: func(tb testing.TB, ws string) {
			repo := os.Getenv("ANVIL_BENCH_DATE_FNS")
			if repo == "" {
				tb.Fatal("set ANVIL_BENCH_DATE_FNS to a clone of github.com/date-fns/date-fns")
			}
			cmd := exec.Command("sh", "-c", `git -C "$1" archive HEAD src package.json tsconfig.json | tar -x -C "$2"`, "sh", repo, ws)
			if out, err := cmd.CombinedOutput(); err != nil {
				tb.Fatalf("laying out date-fns: %v\n%s", err, out)
			}
			// Its project references name git submodules the archive
			// does not hold: without them the project is src alone.
			src := readWS(tb, ws, "src/tsconfig.json")
			testfs.Write(tb, ws, map[string]string{"src/tsconfig.json": tsReferences.ReplaceAllString(src, "")})
		},
		hubs:      hubs,
		body:      tsBodyEdit,
		signature: tsSignatureEdit,
		checker: func(testing.TB) []string {
			return []string{filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin", "tsc"), "--noEmit", "-p", "src"}
		},
	}
}

func goToolsHubs() hubProject {
	return hubProject{
		name: "x-tools",
		layout: func(tb testing.TB, ws string) {
			copyTree(tb, testCorpus().GoModule(tb, "golang.org/x/tools", "v0.38.0"), ws, func(string) bool { return true })
		},
		hubs: []string{"internal/typesinternal/types.go", "internal/analysisinternal/analysis.go", "go/ast/inspector/inspector.go",
			"internal/astutil/util.go", "go/packages/packages.go", "internal/typesinternal/recv.go", "internal/event/event.go",
			"go/ast/astutil/imports.go", "internal/versions/versions.go", "internal/typesinternal/zerovalue.go"},
		body:      goBodyEdit,
		signature: goSignatureEdit,
		checker:   func(testing.TB) []string { return []string{"go", "vet", "./..."} },
	}
}

// tsBodyEdit adds a statement at the start of the first exported
// function's body.
func tsBodyEdit(src string, i int) string {
	lines := strings.Split(src, "\n")
	for at, l := range lines {
		if !strings.HasPrefix(l, "export function ") {
			continue
		}
		for j := at; j < len(lines); j++ {
			if strings.HasSuffix(lines[j], "{") {
				return strings.Join(append(lines[:j+1:j+1], append([]string{fmt.Sprintf("  void %d;", i)}, lines[j+1:]...)...), "\n")
			}
		}
	}
	return ""
}

// tsSignatureEdit adds an optional last parameter to the first exported
// function whose parameters close on a line of their own (date-fns'
// style), unless the last one is a rest parameter.
func tsSignatureEdit(src string, i int) string {
	lines := strings.Split(src, "\n")
	for at, l := range lines {
		if !strings.HasPrefix(l, "export function ") {
			continue
		}
		for j := at + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], ")") {
				if strings.Contains(lines[j-1], "...") {
					return ""
				}
				return strings.Join(append(lines[:j:j], append([]string{fmt.Sprintf("  anvilBench%d?: number,", i)}, lines[j:]...)...), "\n")
			}
			if strings.HasSuffix(lines[j], "{") {
				break
			}
		}
	}
	return ""
}

// tsReferences matches a tsconfig's references.
var tsReferences = regexp.MustCompile(`(?s)"references":\s*\[.*?\],`)

// goFunc matches an exported function's one-line signature.
var goFunc = regexp.MustCompile(`(?m)^func ([A-Z]\w*)(\[[^\]]*\])?\(([^()]*)\)(.*)\{$`)

// goBodyEdit adds a statement at the start of the first exported
// function's body.
func goBodyEdit(src string, i int) string {
	loc := goFunc.FindStringIndex(src)
	if loc == nil {
		return ""
	}
	return src[:loc[1]] + fmt.Sprintf("\n\t_ = %d", i) + src[loc[1]:]
}

// goSignatureEdit adds a variadic last parameter to the first exported
// function with a one-line signature that has none: calls need not pass
// it (a function value of the old type breaks, as it would for an agent).
func goSignatureEdit(src string, i int) string {
	for _, m := range goFunc.FindAllStringSubmatchIndex(src, -1) {
		params := src[m[6]:m[7]]
		if strings.Contains(params, "...") {
			continue
		}
		add := fmt.Sprintf("anvilBench%d ...int", i)
		if strings.TrimSpace(params) != "" {
			add = ", " + add
		}
		return src[:m[7]] + add + src[m[7]:]
	}
	return ""
}

// hubThink is the pause before each edit: an agent's model call
// between two tool calls takes seconds.
const hubThink = 2 * time.Second

// hubEditKinds are the edits made of each hub, in order.
var hubEditKinds = []string{"body", "signature"}

func editHubs(b *testing.B, p hubProject) {
	e := newBenchEnv(b)
	e.vars = append(e.vars, "GOFLAGS=-modcacherw")
	defer e.stop(b)
	ws := filepath.Join(b.TempDir(), "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	p.layout(b, ws)
	session := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	input := func(kv ...any) map[string]any {
		m := map[string]any{"session_id": session, "cwd": ws, "transcript_path": "/dev/null"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	benchHook(b, e, ws, "session-start", input("hook_event_name", "SessionStart", "source", "startup"))
	edit := func(rel, content string) (time.Duration, editOutcome) {
		old := readWS(b, ws, rel)
		start := time.Now()
		out := benchHook(b, e, ws, "pre-edit", input("hook_event_name", "PreToolUse", "tool_name", "Write",
			"tool_input", map[string]any{"file_path": filepath.Join(ws, rel), "content": content}))
		took := time.Since(start)
		o := outcomeOf(out)
		if o == outcomeRefused || o == outcomeUnverified {
			b.Logf("%s %s: %s", o, rel, firstReason(out))
		}
		if o != outcomeRefused && content != old {
			testfs.Write(b, ws, map[string]string{rel: content})
		}
		return took, o
	}
	// Warm: the servers started and the project loaded, as after an
	// agent's first edit of the session.
	first, _ := edit(p.hubs[0], p.body(readWS(b, ws, p.hubs[0]), -1))
	// The model's first turn is long (reading the code, planning): the
	// daemon's work for the unchanged tree finishes in it, TypeScript 7's
	// proof among it, which later disk states of the same configuration
	// keep.
	quiet := e.awaitQuiet(b, ws, 3*time.Minute)
	took := map[string][]time.Duration{}
	counts := map[string]map[editOutcome]int{}
	var stops turnEnds
	for i, hub := range p.hubs {
		for _, kind := range hubEditKinds {
			change := p.body
			if kind == "signature" {
				change = p.signature
			}
			content := change(readWS(b, ws, hub), i)
			if content == "" {
				b.Logf("%s: no %s edit applies", hub, kind)
				continue
			}
			// The model's turn between two edits: seconds, in which the
			// daemon's work for the new disk state runs.
			time.Sleep(hubThink)
			d, o := edit(hub, content)
			b.Logf("%s %s: %s", kind, hub, ms(d))
			took[kind] = append(took[kind], d)
			if counts[kind] == nil {
				counts[kind] = map[editOutcome]int{}
			}
			counts[kind][o]++
		}
		stops.end(b, e, ws, input("hook_event_name", "Stop", "stop_hook_active", false), hub)
	}
	checker := runChecker(b, e, ws, p.name, p.checker(b))
	for _, kind := range hubEditKinds {
		c := counts[kind]
		b.ReportMetric(float64(quantile(took[kind], 0.5))/float64(time.Millisecond), kind+"-p50-ms")
		b.ReportMetric(float64(quantile(took[kind], 0.9))/float64(time.Millisecond), kind+"-p90-ms")
		b.Logf("| %s | %s | %d | %s / %s | %d / %d / %d / %d |", p.name, kind, len(took[kind]), ms(quantile(took[kind], 0.5)), ms(quantile(took[kind], 0.9)),
			c[outcomeChecked], c[outcomeOwnFiles], c[outcomeRefused], c[outcomeUnverified])
	}
	b.Logf("%s: background work done %s after the first edit; servers %v", p.name, ms(quiet), e.serverNames(b, ws))
	b.Logf("%s: first edit %s; the turn's end p50 %s, max %s, %d of %d refused; the batch checker %s", p.name, ms(first),
		ms(quantile(stops.took, 0.5)), ms(quantile(stops.took, 1)), stops.refused, len(stops.took), ms(checker))
}

func readWS(tb testing.TB, ws, rel string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(ws, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}
