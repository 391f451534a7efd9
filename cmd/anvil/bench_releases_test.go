package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// A release history replayed as an agent's edits: each later release's
// changed source files, one Write after another, through the pre-edit
// hook as Claude Code runs it, each allowed edit written as the client
// writes it, and the turn's end after each release.
type releaseHistory struct {
	name string
	// trees are the releases' source trees, oldest first; under is where
	// a tree lies in the workspace ("" for its root).
	trees []string
	under string
	// layout copies a release's tree into the workspace (over the
	// previous one for the first, project files and all).
	layout func(tb testing.TB, tree, ws string)
	// source says whether a file (slash path) is one the agent edits.
	source func(rel string) bool
	// checker is the project's batch checker, for the table beside it.
	checker []string
}

// maxEditsPerRelease bounds the edits taken of one release (the first,
// by path): a release of hundreds of files is not one turn of an agent.
const maxEditsPerRelease = 12

// BenchmarkHookOnReleases times the pre-edit hook and the end of the
// turn on real projects' successive releases (zod's npm releases; the Go
// tools module's proxy versions), through the daemon, on whatever load
// the machine has, and the project's batch checker on the last tree
// beside them. Each edit's outcome is counted: refused, checked, judged
// on its own files with the importers left to the end of the turn, or
// let through unverified.
//
//	go test -run '^$' -bench BenchmarkHookOnReleases -benchtime 1x -timeout 2h ./cmd/anvil
func BenchmarkHookOnReleases(b *testing.B) {
	for _, h := range []func(testing.TB) releaseHistory{zodReleases, goToolsReleases} {
		hist := h(b)
		b.Run(hist.name, func(b *testing.B) {
			for b.Loop() {
				replayReleases(b, hist)
			}
		})
	}
}

func zodReleases(tb testing.TB) releaseHistory {
	var trees []string
	for _, v := range []string{"3.25.72", "3.25.73", "3.25.74", "3.25.75", "3.25.76"} {
		trees = append(trees, filepath.Join(testCorpus().NPMPackage(tb, "zod@"+v), "src"))
	}
	return releaseHistory{
		name:  "zod",
		trees: trees,
		under: "src/",
		layout: func(tb testing.TB, tree, ws string) {
			testfs.Write(tb, ws, map[string]string{
				"package.json": `{"name": "zod-releases", "private": true, "type": "module"}`,
				"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
  "target": "es2022", "skipLibCheck": true, "lib": ["es2022", "dom"]},
 "include": ["src"], "exclude": ["src/**/tests/**", "src/**/*.test.ts", "src/**/benchmarks/**"]}`,
			})
			copyTree(tb, tree, filepath.Join(ws, "src"), zodSource)
		},
		source:  func(rel string) bool { return zodSource(strings.TrimPrefix(rel, "src/")) },
		checker: []string{"tsc", "--noEmit", "-p", "."},
	}
}

// zodSource: the TypeScript sources, without the tests and benchmarks
// (they need vitest), as the replay script lays them out.
func zodSource(rel string) bool {
	return strings.HasSuffix(rel, ".ts") && !strings.Contains(rel, "/tests/") && !strings.HasSuffix(rel, ".test.ts") && !strings.Contains(rel, "/benchmarks/")
}

func goToolsReleases(tb testing.TB) releaseHistory {
	var trees []string
	for _, v := range []string{"v0.36.0", "v0.37.0", "v0.38.0"} {
		trees = append(trees, testCorpus().GoModule(tb, "golang.org/x/tools", v))
	}
	goSource := func(rel string) bool { return strings.HasSuffix(rel, ".go") && !strings.Contains(rel, "/testdata/") }
	return releaseHistory{
		name:  "x-tools",
		trees: trees,
		layout: func(tb testing.TB, tree, ws string) {
			// The whole module: embedded files and testdata are read by
			// the go command too.
			copyTree(tb, tree, ws, func(string) bool { return true })
		},
		source:  goSource,
		checker: []string{"go", "vet", "./..."},
	}
}

// editOutcome is what the pre-edit hook answered.
type editOutcome string

const (
	outcomeRefused    editOutcome = "refused"
	outcomeChecked    editOutcome = "checked"
	outcomeOwnFiles   editOutcome = "own files only"
	outcomeUnverified editOutcome = "unverified"
)

func outcomeOf(stdout string) editOutcome {
	switch {
	case strings.Contains(stdout, `"permissionDecision":"deny"`):
		return outcomeRefused
	case strings.Contains(stdout, "was not verified"):
		return outcomeUnverified
	case strings.Contains(stdout, "the end of the turn checks them"):
		// The importers could not be checked in the wait, or would
		// take longer than an edit may spend on them.
		return outcomeOwnFiles
	}
	return outcomeChecked
}

func replayReleases(b *testing.B, h releaseHistory) {
	e := newBenchEnv(b)
	// The module cache the servers fill under the bench's HOME, writable
	// so that the bench's temporary directory can be removed.
	e.vars = append(e.vars, "GOFLAGS=-modcacherw")
	defer e.stop(b)
	ws := filepath.Join(b.TempDir(), "ws")
	h.layout(b, h.trees[0], ws)
	session := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	base := map[string]any{"session_id": session, "cwd": ws, "transcript_path": "/dev/null"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	benchHook(b, e, ws, "session-start", with("hook_event_name", "SessionStart", "source", "startup"))
	var first time.Duration
	var edits []time.Duration
	counts := map[editOutcome]int{}
	var stops turnEnds
	for i := 1; i < len(h.trees); i++ {
		changed := changedFiles(b, h.trees[i-1], h.trees[i], ws, h)
		if len(changed) > maxEditsPerRelease {
			changed = changed[:maxEditsPerRelease]
		}
		for _, f := range changed {
			start := time.Now()
			out := benchHook(b, e, ws, "pre-edit", with("hook_event_name", "PreToolUse", "tool_name", "Write",
				"tool_input", map[string]any{"file_path": filepath.Join(ws, f.rel), "content": f.content}))
			took := time.Since(start)
			if first == 0 {
				first = took
			} else {
				edits = append(edits, took)
			}
			o := outcomeOf(out)
			counts[o]++
			if o == outcomeRefused || o == outcomeUnverified {
				b.Logf("%s %s: %s", o, f.rel, firstReason(out))
			}
			if o != outcomeRefused {
				testfs.Write(b, ws, map[string]string{f.rel: f.content})
			}
		}
		stops.end(b, e, ws, with("hook_event_name", "Stop", "stop_hook_active", false), fmt.Sprintf("release %d", i))
	}
	checker := runChecker(b, e, ws, h.name, h.checker)
	p50, p90 := quantile(edits, 0.5), quantile(edits, 0.9)
	b.ReportMetric(float64(p50)/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(p90)/float64(time.Millisecond), "p90-ms")
	b.Logf("| %s | %d | %s | %s / %s | %d / %d / %d / %d | %s / %s | %d of %d | %s |", h.name, len(edits)+1, ms(first), ms(p50), ms(p90),
		counts[outcomeChecked], counts[outcomeOwnFiles], counts[outcomeRefused], counts[outcomeUnverified],
		ms(quantile(stops.took, 0.5)), ms(quantile(stops.took, 1)), stops.refused, len(stops.took), ms(checker))
}

// turnEnds times a replay's end-of-turn hooks and counts those refused.
type turnEnds struct {
	took    []time.Duration
	refused int
}

// end runs the stop hook with input; after names the turn for the log.
func (t *turnEnds) end(b *testing.B, e *benchEnv, ws string, input map[string]any, after string) {
	start := time.Now()
	out := benchHook(b, e, ws, "stop", input)
	t.took = append(t.took, time.Since(start))
	if strings.Contains(out, `"decision":"block"`) {
		t.refused++
		b.Logf("the turn's end after %s refused: %s", after, firstReason(out))
	}
}

// runChecker runs the project's batch checker (argv) over the workspace
// once, for the table beside the hook, and returns how long it took.
func runChecker(b *testing.B, e *benchEnv, ws, project string, argv []string) time.Duration {
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = ws, append(e.environ(), "GOFLAGS=-mod=mod -modcacherw", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	b.Logf("%s: the batch checker on the last tree: %v\n%s", project, err, lastLines(string(out), 5))
	return took
}

type changedFile struct{ rel, content string }

// changedFiles lists the source files of next that differ from prev
// (new ones too), by path, with next's content; a file the workspace
// already holds as next has it is no edit.
func changedFiles(tb testing.TB, prev, next, ws string, h releaseHistory) []changedFile {
	var out []changedFile
	offset := h.under
	err := filepath.WalkDir(next, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(next, p)
		rel = offset + filepath.ToSlash(rel)
		if !h.source(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		old, _ := os.ReadFile(filepath.Join(prev, strings.TrimPrefix(rel, offset)))
		cur, _ := os.ReadFile(filepath.Join(ws, rel))
		if !bytes.Equal(data, old) && !bytes.Equal(data, cur) {
			out = append(out, changedFile{rel, string(data)})
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.SortFunc(out, func(a, b changedFile) int { return strings.Compare(a.rel, b.rel) })
	return out
}

func benchHook(tb testing.TB, e *benchEnv, ws, verb string, input map[string]any) string {
	tb.Helper()
	data, err := json.Marshal(input)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "hook", verb, "--client", "claude")
	cmd.Dir, cmd.Env, cmd.Stdin = ws, e.environ(), bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("anvil hook %s: %v\n%s", verb, err, out)
	}
	return string(out)
}

func copyTree(tb testing.TB, from, to string, keep func(rel string) bool) {
	tb.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if !keep(filepath.ToSlash(rel)) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		testfs.Write(tb, to, map[string]string{filepath.ToSlash(rel): string(data)})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// quantile is the nearest-rank q-quantile of s (0 when empty).
func quantile(s []time.Duration, q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return c[max(0, min(int(math.Ceil(q*float64(len(c))))-1, len(c)-1))]
}

func ms(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// firstReason is the start of a hook answer's reason, for the log.
func firstReason(out string) string {
	var a struct {
		Reason   string `json:"reason"`
		Specific struct {
			Reason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	_ = json.Unmarshal([]byte(out), &a)
	r := a.Specific.Reason + a.Reason
	if len(r) > 400 {
		r = r[:400] + "…"
	}
	return r
}
