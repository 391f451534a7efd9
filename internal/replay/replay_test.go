package replay_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/replay"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A repository whose history holds the three kinds of commit replay must
// tell apart, in TypeScript and in Python: a clean one, one that breaks an
// importer, and one that is clean whole but breaks when one of its files
// is applied alone (a rename across files).
var history = []struct {
	subject string
	files   map[string]string // "" deletes
}{
	{"start", map[string]string{
		"tsconfig.json":      `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext"}, "include": ["src"]}`,
		"package.json":       `{"name": "replayed", "private": true, "type": "module"}`,
		"src/lib.ts":         "export function greet(name: string): string {\n  return \"hello \" + name;\n}\n",
		"src/main.ts":        "import { greet } from \"./lib.js\";\n\nexport const banner: string = greet(\"world\");\n",
		"pyrightconfig.json": `{"include": ["py"], "typeCheckingMode": "standard"}`,
		"py/geometry.py":     "def area(width: int, height: int) -> int:\n    return width * height\n",
		"py/report.py":       "from geometry import area\n\nTOTAL: int = area(2, 3)\n",
		"README.md":          "# replayed\n",
	}},
	{"ts: a clean body edit", map[string]string{
		"src/lib.ts": "export function greet(name: string): string {\n  return \"hi \" + name;\n}\n",
		"README.md":  "# replayed\n\nGreets.\n",
	}},
	{"ts: greet takes a number", map[string]string{
		"src/lib.ts": "export function greet(name: number): string {\n  return \"hi \" + name;\n}\n",
	}},
	{"ts: back to a string", map[string]string{
		"src/lib.ts": "export function greet(name: string): string {\n  return \"hi \" + name;\n}\n",
	}},
	{"ts: rename greet to welcome", map[string]string{
		"src/lib.ts":  "export function welcome(name: string): string {\n  return \"hi \" + name;\n}\n",
		"src/main.ts": "import { welcome } from \"./lib.js\";\n\nexport const banner: string = welcome(\"world\");\n",
	}},
	{"py: area of a square", map[string]string{
		"py/geometry.py": "def area(side: int) -> int:\n    return side * side\n",
		"py/report.py":   "from geometry import area\n\nTOTAL: int = area(3)\n",
	}},
	{"py: area returns a string", map[string]string{
		"py/geometry.py": "def area(side: int) -> str:\n    return str(side * side)\n",
	}},
}

// want is each case's verdict, by commit subject and scope: what the
// project's batch checkers say, and so what the gate must say.
var want = map[string]replay.Verdict{
	"ts: a clean body edit/whole":             replay.Clean,
	"ts: a clean body edit/src/lib.ts":        replay.Clean,
	"ts: greet takes a number/whole":          replay.Rejected,
	"ts: back to a string/whole":              replay.Clean,
	"ts: rename greet to welcome/whole":       replay.Clean,
	"ts: rename greet to welcome/src/lib.ts":  replay.Rejected,
	"ts: rename greet to welcome/src/main.ts": replay.Rejected,
	"py: area of a square/whole":              replay.Clean,
	"py: area of a square/py/geometry.py":     replay.Rejected,
	"py: area of a square/py/report.py":       replay.Rejected,
	"py: area returns a string/whole":         replay.Rejected,
	// A merged pull request is replayed as it landed on the first
	// parent: the branch's change whole, and each of its files alone.
	"Merge shout/whole":       replay.Clean,
	"Merge shout/src/lib.ts":  replay.Clean,
	"Merge shout/src/main.ts": replay.Rejected,
}

// branch is a pull request's one commit, merged into main with a merge
// commit ("Merge shout"): on the first-parent history, only the merge.
var branch = map[string]string{
	"src/lib.ts":  "export function welcome(name: string): string {\n  return \"hi \" + name;\n}\n\nexport function shout(name: string): string {\n  return welcome(name).toUpperCase();\n}\n",
	"src/main.ts": "import { shout } from \"./lib.js\";\n\nexport const banner: string = shout(\"world\");\n",
}

func TestReplayHoldsTheGateToTheBatchChecker(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	for _, c := range history {
		for p, content := range c.files {
			if content == "" {
				os.Remove(filepath.Join(dir, p))
			}
		}
		testfs.Write(t, dir, c.files)
		git("add", "-A")
		git("commit", "-q", "-m", c.subject)
	}
	git("checkout", "-q", "-b", "shout")
	testfs.Write(t, dir, branch)
	git("add", "-A")
	git("commit", "-q", "-m", "ts: shout")
	git("checkout", "-q", "main")
	git("merge", "-q", "--no-ff", "-m", "Merge shout", "shout")
	// The user's own work in progress: an edit staged, another not, a
	// new file; replay must leave all of it as it is.
	testfs.Write(t, dir, map[string]string{"src/main.ts": "// wip\n", "notes.txt": "todo\n"})
	git("add", "src/main.ts")
	testfs.Write(t, dir, map[string]string{"py/report.py": "# unstaged\n"})
	type gitState struct{ head, status, index string }
	state := func() gitState {
		index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return gitState{git("rev-parse", "HEAD"), git("status", "--porcelain=v2", "--branch", "--untracked-files=all"), string(index)}
	}
	before := state()

	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "ANVIL_STATE_DIR": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "ANVIL_TOOLS_DIR": servers.DefaultToolsDir(os.Getenv), "PATH": os.Getenv("PATH"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := app.Replay(ctx, replay.Options{Dir: dir, Commits: len(history) + 1, TempDir: t.TempDir()}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rep.Print(&text)
	t.Log("\n" + text.String())

	if after := state(); after != before {
		t.Errorf("replay changed the repository's state:\nbefore %+v\nafter  %+v", before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "worktrees")); err == nil {
		t.Error("replay registered a git worktree")
	}

	// The JSON report has the fields its readers use.
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases  []map[string]any `json:"cases"`
		Totals map[string]any   `json:"totals"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"agreement", "false_cleans", "false_rejects", "unverified"} {
		if _, ok := doc.Totals[k]; !ok {
			t.Errorf("totals have no %q: %s", k, data)
		}
	}
	for _, c := range doc.Cases {
		for _, k := range []string{"commit", "subject", "scope", "gate", "checker", "gate_ms", "checker_ms"} {
			if _, ok := c[k]; !ok {
				t.Errorf("a case has no %q: %v", k, c)
			}
		}
	}

	got := map[string]bool{}
	for _, k := range rep.Cases {
		key := k.Subject + "/" + k.Scope
		got[key] = true
		w, ok := want[key]
		if !ok {
			t.Errorf("unexpected case %s", key)
			continue
		}
		if k.Checker != w {
			t.Errorf("%s: the batch checker says %s (%v %s), want %s", key, k.Checker, k.CheckerErrors, k.CheckerReason, w)
		}
		if k.Gate != k.Checker {
			t.Errorf("%s: the gate says %s (%v %s), the batch checker %s (%v %s)", key, k.Gate, k.GateErrors, k.GateReason, k.Checker, k.CheckerErrors, k.CheckerReason)
		}
	}
	for key := range want {
		if !got[key] {
			t.Errorf("no case %s", key)
		}
	}
	if len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Reason, "root commit") {
		t.Errorf("skipped = %+v, want the root commit only", rep.Skipped)
	}
	tot := rep.Totals
	if tot.Cases != len(want) || tot.Agreement != len(want) || tot.FalseCleans != 0 || tot.FalseRejects != 0 || tot.Unverified != 0 || tot.Breaking != 7 || tot.Caught != 7 {
		t.Errorf("totals = %+v", tot)
	}
}

// Go's truth is the go command's vet of the module: replay holds gopls's
// verdicts, and a module file's (the go command's own), to it.
func TestReplayHoldsGoToGoVet(t *testing.T) {
	dir := t.TempDir()
	git := gitIn(t, dir)
	git("init", "-q", "-b", "main")
	for _, c := range []struct {
		subject string
		files   map[string]string
	}{
		{"start", map[string]string{
			"go.mod":      "module example.com/replayed\n\ngo 1.22\n",
			"lib/lib.go":  "package lib\n\nfunc Greet(name string) string { return \"hello \" + name }\n",
			"cmd/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/replayed/lib\"\n)\n\nfunc main() { fmt.Println(lib.Greet(\"world\")) }\n",
		}},
		{"go: a clean body edit", map[string]string{"lib/lib.go": "package lib\n\nfunc Greet(name string) string { return \"hi \" + name }\n"}},
		// Before the break: on a tree with a type error, go vet says
		// nothing of what follows it, and both sides are unverified.
		{"go: go.mod gains a comment", map[string]string{"go.mod": "// The replayed module.\nmodule example.com/replayed\n\ngo 1.22\n"}},
		{"go: Greet takes a number", map[string]string{"lib/lib.go": "package lib\n\nimport \"strconv\"\n\nfunc Greet(n int) string { return \"hi \" + strconv.Itoa(n) }\n"}},
	} {
		testfs.Write(t, dir, c.files)
		git("add", "-A")
		git("commit", "-q", "-m", c.subject)
	}
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "ANVIL_STATE_DIR": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "ANVIL_TOOLS_DIR": servers.DefaultToolsDir(os.Getenv), "PATH": os.Getenv("PATH"),
		"GOMODCACHE": filepath.Join(home, "gomod"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := app.Replay(ctx, replay.Options{Dir: dir, Commits: 3, TempDir: t.TempDir()}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rep.Print(&text)
	t.Log("\n" + text.String())
	want := map[string]replay.Verdict{
		"go: a clean body edit/whole":      replay.Clean,
		"go: Greet takes a number/whole":   replay.Rejected,
		"go: go.mod gains a comment/whole": replay.Clean,
	}
	for _, k := range rep.Cases {
		key := k.Subject + "/" + k.Scope
		w, ok := want[key]
		if !ok {
			continue
		}
		delete(want, key)
		if k.Checker != w || k.Gate != k.Checker {
			t.Errorf("%s: gate %s (%v %s), go vet %s (%v %s), want %s", key, k.Gate, k.GateErrors, k.GateReason, k.Checker, k.CheckerErrors, k.CheckerReason, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("no case for %v", want)
	}
	if rep.Totals.FalseCleans != 0 || rep.Totals.FalseRejects != 0 || rep.Totals.Unverified != 0 {
		t.Errorf("totals = %+v", rep.Totals)
	}
}

// A repository whose own configuration (.git/config) names a filter
// driver for its files: git would run the driver's smudge command as it
// writes each commit's files into the scratch tree. Untrusted, replay
// refuses, saying how to trust the workspace, and runs nothing of it;
// trusted, the filter runs as git runs it (the control).
func TestReplayRunsNoFilterOfAnUntrustedRepository(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "smudged")
	git := gitIn(t, dir)
	git("init", "-q", "-b", "main")
	testfs.Write(t, dir, map[string]string{".gitattributes": "*.md filter=peek\n", "README.md": "# one\n"})
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	testfs.Write(t, dir, map[string]string{"README.md": "# two\n"})
	git("commit", "-q", "-am", "two")
	git("config", "filter.peek.smudge", "sh -c 'touch "+marker+"; cat'")
	git("config", "filter.peek.clean", "cat")

	for _, trusted := range []bool{false, true} {
		home := t.TempDir()
		env := map[string]string{
			"HOME": home, "ANVIL_STATE_DIR": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
			"XDG_CACHE_HOME": filepath.Join(home, "cache"), "ANVIL_TOOLS_DIR": servers.DefaultToolsDir(os.Getenv), "PATH": os.Getenv("PATH"),
		}
		if trusted {
			testfs.Write(t, filepath.Join(home, "config"), map[string]string{"anvil/config.toml": "trusted_projects = [\"" + dir + "\"]\n"})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		_, err := app.Replay(ctx, replay.Options{Dir: dir, Commits: 1, TempDir: t.TempDir()}, func(k string) string { return env[k] })
		cancel()
		_, ran := os.Stat(marker)
		switch {
		case !trusted && (err == nil || !strings.Contains(err.Error(), "filter peek") || !strings.Contains(err.Error(), "anvil trust")):
			t.Errorf("untrusted: err = %v, want a refusal naming the filter and how to trust", err)
		case !trusted && ran == nil:
			t.Fatal("untrusted: the repository's filter ran")
		case trusted && err != nil:
			t.Errorf("trusted: %v", err)
		case trusted && ran != nil:
			t.Errorf("trusted: the filter did not run as git runs it")
		}
	}
}

// gitIn returns what runs git in dir as a test's author, failing the
// test when git fails.
func gitIn(t *testing.T, dir string) func(args ...string) {
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
