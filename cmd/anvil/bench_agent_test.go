package main

import (
	"bufio"
	"bytes"
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
)

// BenchmarkAgentRename times whole agent runs on real projects with a
// scripted model (the replay provider, which answers at once): whatever a
// run takes is spent outside the model. Each project gets a rename of a
// helper across files and a rename of a central type; the Planner looks
// the symbol up, the Executor renames it with rename_symbol and commits.
// Each run is timed with servers of its own (a run of its own: start,
// load, check, commit), then twice through a daemon: the first run starts
// it, the second finds the workspace's servers warm. Between runs the
// commit is undone. With ANVIL_BENCH_REPORT set, the table goes there.
//
//	go test -run '^$' -bench BenchmarkAgentRename -benchtime 1x ./cmd/anvil
func BenchmarkAgentRename(b *testing.B) {
	type rename struct{ what, name, newName, file, decl string }
	projects := []struct {
		name, ext string
		setup     func(testing.TB, string)
		renames   []rename
	}{
		{"rxjs 7.8.2 (251 files, TypeScript 4.2, tsserver)", ".ts", testCorpus().RxJS, []rename{
			{"helper", "isFunction", "isCallable", "src/internal/util/isFunction.ts", "export function isFunction("},
			{"central type", "Observer", "ObserverLike", "src/internal/types.ts", "export interface Observer<"},
		}},
		{"python3-rich 13.3.1 (78 modules, pyright)", ".py", testCorpus().Rich, []rename{
			{"helper", "cell_len", "cell_width", "rich/cells.py", "def cell_len("},
			{"central type", "Segment", "Fragment", "rich/segment.py", "class Segment("},
		}},
	}
	var rows []string
	for _, p := range projects {
		for _, r := range p.renames {
			b.Run(p.name+"/"+r.what, func(b *testing.B) {
				dir := b.TempDir()
				p.setup(b, dir)
				files := filesWithWord(b, dir, p.ext, r.name)
				line := lineOf(b, filepath.Join(dir, r.file), r.decl)
				script := filepath.Join(b.TempDir(), "script.jsonl")
				writeRenameScript(b, script, r.name, r.newName, r.file, line, files, quotedIn(b, dir, files, r.name))
				e := newBenchEnv(b)
				request := fmt.Sprintf("Rename %s to %s across the project", r.name, r.newName)
				agent := func(b *testing.B, extra ...string) (time.Duration, string) {
					env := append(e.environ(), extra...)
					cmd := exec.Command(filepath.Join(binDir, "anvil"), "-y", "--provider", "replay", "--replay", script, request, dir)
					cmd.Env = env
					start := time.Now()
					out, err := cmd.CombinedOutput()
					took := time.Since(start)
					m := regexp.MustCompile(`(?m)^Done: Committed (\d+) files`).FindSubmatch(out)
					if err != nil || m == nil {
						b.Fatalf("anvil: %v\n%s", err, out)
					}
					undo := exec.Command(filepath.Join(binDir, "anvil"), "undo", "-C", dir)
					undo.Env = env
					if out, err := undo.CombinedOutput(); err != nil {
						b.Fatalf("anvil undo: %v\n%s", err, out)
					}
					return took, string(m[1])
				}
				var own, first, second time.Duration
				var committed string
				for b.Loop() {
					own, committed = agent(b, "ANVIL_DAEMON=off")
					first, _ = agent(b)
					second, _ = agent(b)
					e.stop(b)
				}
				b.ReportMetric(own.Seconds(), "own-servers-s")
				b.ReportMetric(first.Seconds(), "daemon-first-s")
				b.ReportMetric(second.Seconds(), "daemon-warm-s")
				rows = append(rows, fmt.Sprintf("| %s | %s: %s → %s | %d | %s | %s | %s | %s |\n", p.name, r.what, r.name, r.newName, len(files), committed,
					own.Round(100*time.Millisecond), first.Round(100*time.Millisecond), second.Round(100*time.Millisecond)))
			})
		}
	}
	report := "| project | rename | files naming it | files committed | servers of its own | daemon, first run | daemon, second run |\n|---|---|---:|---:|---:|---:|---:|\n" + strings.Join(rows, "")
	b.Log("\n" + report)
	if out := os.Getenv("ANVIL_BENCH_REPORT"); out != "" {
		_ = os.WriteFile(out, []byte(report), 0o644)
	}
}

// filesWithWord lists the project's files (by extension) that name word:
// what the plan lists to modify.
func filesWithWord(b *testing.B, dir, ext, word string) []string {
	b.Helper()
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`)
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(p) != ext {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && re.Match(data) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// lineOf returns the 1-based line of path that starts with prefix.
func lineOf(b *testing.B, path, prefix string) int {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), prefix) {
			return n
		}
	}
	b.Fatalf("%s has no line starting %q", path, prefix)
	return 0
}

// quotedIn lists the files that name word inside quotes (Python's string
// annotations, "Segment"), which a language server's rename leaves alone.
func quotedIn(b *testing.B, dir string, files []string, word string) []string {
	b.Helper()
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(data, []byte(`"`+word+`"`)) {
			out = append(out, f)
		}
	}
	return out
}

// writeRenameScript writes the model's side of the run: the Planner looks
// the symbol up and plans the rename over files, the Executor renames it,
// fixes the quoted uses the rename leaves (as a model does when the gate
// shows them), and commits.
func writeRenameScript(b *testing.B, path, name, newName, file string, line int, files, quoted []string) {
	b.Helper()
	type block map[string]any
	turn := func(agent, text string, tools ...block) block {
		content := []block{{"type": "text", "text": text}}
		return block{"agent": agent, "content": append(content, tools...)}
	}
	use := func(id, tool string, input block) block {
		return block{"type": "tool_use", "id": id, "name": tool, "input": input}
	}
	turns := []block{
		turn("planner", "Finding "+name+" and its references.", use("p1", "find_symbol", block{"name": name, "path": file, "line": line})),
		turn("planner", "Planning the rename.", use("p2", "submit_plan", block{
			"goal":                  fmt.Sprintf("Rename %s to %s across the project.", name, newName),
			"context":               fmt.Sprintf("%s is declared in %s:%d; the language server's rename updates every reference.", name, file, line),
			"files_to_modify":       files,
			"files_to_create":       []string{},
			"steps":                 []string{"Rename the symbol with rename_symbol", "Commit"},
			"verification_criteria": []string{"No new errors"},
			"risks":                 []string{"Names in comments and strings are left as they are"},
		})),
		turn("executor", "Renaming through the language server.",
			use("e1", "rename_symbol", block{"name": name, "new_name": newName, "path": file, "line": line}),
			use("e2", "step_done", block{"step": 1})),
	}
	if len(quoted) > 0 {
		var edits []block
		for i, f := range quoted {
			edits = append(edits, use(fmt.Sprintf("q%d", i), "edit_file", block{"path": f, "old_string": `"` + name + `"`, "new_string": `"` + newName + `"`, "replace_all": true}))
		}
		turns = append(turns, turn("executor", "The rename leaves the quoted annotations; updating them.", edits...))
	}
	turns = append(turns, turn("executor", "Committing.", use("e3", "commit", block{"message": fmt.Sprintf("Rename %s to %s", name, newName)})))
	var buf bytes.Buffer
	buf.WriteString("// A scripted rename for BenchmarkAgentRename.\n")
	for _, t := range turns {
		data, err := json.Marshal(t)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(append(data, '\n'))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
}
