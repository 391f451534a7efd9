package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/conversation"
	"github.com/anvil-dev/anvil/internal/demo"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/anthropic/anthropictest"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// A session across processes, through the real Anthropic SDK against a
// local server that enforces a context window as the API does: a request,
// a follow-up that only makes sense with the first, /compact, a kill -9
// in the middle of a request, and --continue with another request. The
// files and commits are right, and after the resume the server sees the
// earlier conversation (its summary, with the plans verbatim) and hears
// what was interrupted.
func TestSessionAcrossProcesses(t *testing.T) {
	ws := t.TempDir()
	if err := demo.Extract(ws); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	testfs.Write(t, home, map[string]string{".config/anvil/config.toml": "context_window = 16000\n"})
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANVIL_STATE_DIR=" + filepath.Join(home, "state"), "ANVIL_SESSION_DIR=" + filepath.Join(home, "sessions"),
		"ANVIL_TOOLS_DIR=" + servers.DefaultToolsDir(os.Getenv), "ANVIL_DAEMON=off", "ANTHROPIC_API_KEY=test-key",
	}
	authAfter1 := regexp.MustCompile(`\bUser\b`).ReplaceAllString(readFile(t, ws, "src/auth.ts"), "Account")
	authAfter2 := strings.Replace(strings.Replace(authAfter1, "import { Account } from", "import { Account as User } from", 1), "): Account {", "): User {", 1)
	authAfter2 = strings.Replace(authAfter2, "(user: Account)", "(user: User)", 1)

	mainFirst, _, _ := strings.Cut(readFile(t, ws, "src/main.ts"), "\n")
	use := func(id, name string, input any) llm.Block {
		data, _ := json.Marshal(input)
		return llm.Block{Type: llm.TypeToolUse, ID: id, Name: name, Input: data}
	}
	turn := func(text string, calls ...llm.Block) anthropictest.Turn {
		return anthropictest.Turn{Content: append([]llm.Block{llm.Text(text)}, calls...)}
	}
	plan := func(id, goal string, files ...string) anthropictest.Turn {
		return turn("Planning.", use(id, "submit_plan", map[string]any{
			"goal": goal, "context": "User is declared in src/types.ts; db.ts and auth.ts use it.", "files_to_modify": files, "files_to_create": []string{},
			"steps": []string{"Make the change", "Commit"}, "verification_criteria": []string{"No new type errors"}, "risks": []string{"None known"},
		}))
	}
	commit := func(id string) anthropictest.Turn {
		return turn("Committing.", use(id, "commit", map[string]any{"message": "session test"}))
	}
	srv := anthropictest.New(
		// Request 1.
		plan("p1", "Rename the User type to Account across all files.", "src/types.ts", "src/db.ts", "src/auth.ts"),
		turn("Renaming through the language server.", use("e1", "rename_symbol", map[string]any{"name": "User", "new_name": "Account", "path": "src/types.ts", "line": 1})),
		commit("e2"),
		// Request 2, the follow-up.
		plan("p2", "Name the type User again in src/auth.ts only, through an import alias.", "src/auth.ts"),
		turn("Aliasing the import in auth.ts.", use("e3", "write_file", map[string]any{"path": "src/auth.ts", "content": authAfter2})),
		commit("e4"),
		// Request 4 (request 3 is killed while its model is thinking):
		// a simple request, which goes to the Executor with a plan of its
		// one file.
		turn("Adding it.", use("e5", "edit_file", map[string]any{"path": "src/main.ts", "old_string": mainFirst, "new_string": "// The entry point.\n" + mainFirst})),
		commit("e6"),
	)
	defer srv.Close()
	srv.Summarize("SESSION SUMMARY: request 1 renamed User to Account in types.ts, db.ts and auth.ts; request 2 aliased it back to User in auth.ts.")
	// The window the API enforces: enough for a request, not for much
	// history (Anvil's own bound is 16,000).
	srv.LimitContext(20_000)
	env = append(env, "ANTHROPIC_BASE_URL="+srv.URL)

	anvil := func(t *testing.T, args ...string) (string, string, error) {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, "anvil"), append([]string{"-y"}, args...)...)
		cmd.Env, cmd.Dir = env, ws
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	mustRun := func(t *testing.T, want string, args ...string) string {
		t.Helper()
		out, errOut, err := anvil(t, args...)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("anvil %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, errOut)
		}
		return out
	}

	mustRun(t, "Done: Committed 3 files", "Rename the User type to Account across all files")
	mustRun(t, "Done: Committed 1 file", "--continue", "now rename it back in auth.ts only")
	if got := readFile(t, ws, "src/auth.ts"); got != authAfter2 {
		t.Fatalf("auth.ts after the follow-up:\n%s", got)
	}
	if db := readFile(t, ws, "src/db.ts"); !strings.Contains(db, "Account") || strings.Contains(db, "User>") {
		t.Fatalf("db.ts keeps the first request's rename:\n%s", db)
	}
	// The follow-up's model saw the first request, its plan verbatim, and
	// what it committed.
	followUp := requestAfter(t, srv, "now rename it back in auth.ts only")
	for _, want := range []string{"Request 1: Rename the User type to Account across all files", "Rename the User type to Account across all files.", "Committed src/auth.ts, src/db.ts, src/types.ts"} {
		if !strings.Contains(followUp, want) {
			t.Errorf("the follow-up's first request lacks %q", want)
		}
	}

	mustRun(t, "SESSION SUMMARY", "--continue", "/compact")

	// Request 3: killed while the model thinks.
	srv.Hang(true)
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "-y", "--continue", "add a docstring to db.ts")
	cmd.Env, cmd.Dir = env, ws
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, func() bool { return strings.Contains(lastBody(srv), "add a docstring to db.ts") })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	srv.Hang(false)

	out, errOut, err := anvil(t, "--continue", "add a comment to src/main.ts")
	if err != nil || !strings.Contains(errOut, `request 3 ("add a docstring to db.ts") was interrupted`) {
		t.Fatalf("the resumed session: %v\n%s\n%s", err, out, errOut)
	}
	resumed := requestAfter(t, srv, "add a comment to src/main.ts")
	for _, want := range []string{"SESSION SUMMARY", "Rename the User type to Account across all files.", "Name the type User again in src/auth.ts only, through an import alias.", "Request 3: add a docstring to db.ts", "interrupted"} {
		if !strings.Contains(resumed, want) {
			t.Errorf("after the resume the model was not told %q", want)
		}
	}
	if !strings.HasPrefix(readFile(t, ws, "src/main.ts"), "// The entry point.\n") {
		t.Error("request 4 did not commit")
	}
	diff := mustRun(t, "journal entry", "--continue", "/diff")
	if strings.Count(diff, "# request ") != 3 {
		t.Errorf("the session's diff should hold 3 commits:\n%s", diff)
	}
	list := mustRun(t, "Rename the User type", "--resume")
	if !strings.Contains(list, "src/auth.ts") {
		t.Errorf("the session list lacks the files changed:\n%s", list)
	}

	// Another run commits after the session: the session's /undo would
	// revert that run's work, so it refuses, naming it, and writes nothing.
	withComment := readFile(t, ws, "src/main.ts")
	other := exec.Command(filepath.Join(binDir, "anvil"), "check", "--commit", "-")
	other.Env, other.Dir = env, ws
	orders := readFile(t, ws, "src/orders.ts") + "// Edited by another run.\n"
	set, _ := json.Marshal(map[string]any{"changes": []map[string]string{{"path": "src/orders.ts", "content": orders}}})
	other.Stdin = bytes.NewReader(set)
	if out, err := other.CombinedOutput(); err != nil {
		t.Fatalf("another run's commit: %v\n%s", err, out)
	}
	out, errOut, err = anvil(t, "--continue", "/undo")
	if err == nil || !strings.Contains(errOut, "is not the workspace's last") {
		t.Fatalf("/undo after another run's commit: %v\n%s\n%s", err, out, errOut)
	}
	if readFile(t, ws, "src/main.ts") != withComment || readFile(t, ws, "src/orders.ts") != orders {
		t.Fatal("a refused /undo changed files")
	}
	// Once that run's commit is undone, the session's own is the last.
	undo := exec.Command(filepath.Join(binDir, "anvil"), "undo")
	undo.Env, undo.Dir = env, ws
	if out, err := undo.CombinedOutput(); err != nil {
		t.Fatalf("anvil undo: %v\n%s", err, out)
	}
	mustRun(t, "restored 1 files (src/main.ts)", "--continue", "/undo")
	if strings.HasPrefix(readFile(t, ws, "src/main.ts"), "// The entry point.\n") {
		t.Error("the session's /undo did not revert its last commit")
	}
}

// requestAfter returns the body of the first request to the server whose
// user messages contain marker.
func requestAfter(t *testing.T, srv *anthropictest.Server, marker string) string {
	t.Helper()
	for _, body := range srv.Requests() {
		if bytes.Contains(body, []byte(marker)) {
			return string(body)
		}
	}
	t.Fatalf("no request carried %q", marker)
	return ""
}

func lastBody(srv *anthropictest.Server) string {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return ""
	}
	return string(reqs[len(reqs)-1])
}

func waitUntil(t *testing.T, bound time.Duration, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("not within %s", bound)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run long enough to pass the context window several times (40 reads of
// a 4 KB file under a 12,000-token window the server enforces) completes:
// the loop compacts, and neither the window nor a turn limit ends it.
func TestLongRunPassesTheWindow(t *testing.T) {
	ws := t.TempDir()
	if err := demo.Extract(ws); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, ws, map[string]string{"src/notes.ts": strings.Repeat("// A line of notes that the Executor reads again and again, 80 bytes long.....\n", 50) + "export const notes = 1;\n"})
	home := t.TempDir()
	testfs.Write(t, home, map[string]string{".config/anvil/config.toml": "context_window = 12000\n"})
	use := func(id, name string, input any) llm.Block {
		data, _ := json.Marshal(input)
		return llm.Block{Type: llm.TypeToolUse, ID: id, Name: name, Input: data}
	}
	turns := []anthropictest.Turn{{Content: []llm.Block{llm.Text("Planning."), use("p1", "submit_plan", map[string]any{
		"goal": "Bump the notes constant after reading the notes closely.", "context": "src/notes.ts holds the notes.", "files_to_modify": []string{"src/notes.ts"},
		"files_to_create": []string{}, "steps": []string{"Read the notes", "Bump the constant", "Commit"}, "verification_criteria": []string{"No new errors"}, "risks": []string{"None"},
	})}}}
	for i := range 40 {
		turns = append(turns, anthropictest.Turn{Content: []llm.Block{llm.Text("Reading the notes again."), use("r"+strconv.Itoa(i), "read_file", map[string]any{"path": "src/notes.ts"})}})
	}
	turns = append(turns,
		anthropictest.Turn{Content: []llm.Block{llm.Text("Bumping it."), use("e1", "edit_file", map[string]any{"path": "src/notes.ts", "old_string": "export const notes = 1;", "new_string": "export const notes = 2;"})}},
		anthropictest.Turn{Content: []llm.Block{llm.Text("Committing."), use("e2", "commit", map[string]any{"message": "bump"})}})
	srv := anthropictest.New(turns...)
	defer srv.Close()
	srv.Summarize("SUMMARY: the notes were read many times; the constant is still 1.")
	srv.LimitContext(12_000)
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "-y", "--json", "Bump the notes constant after reading the notes closely", ws)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANVIL_STATE_DIR=" + filepath.Join(home, "state"), "ANVIL_SESSION_DIR=" + filepath.Join(home, "sessions"),
		"ANVIL_TOOLS_DIR=" + servers.DefaultToolsDir(os.Getenv), "ANVIL_DAEMON=off", "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + srv.URL}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(readFile(t, ws, "src/notes.ts"), "export const notes = 2;") {
		t.Fatalf("the long run: %v\n%s", err, tail(string(out), 3000))
	}
	compactions := strings.Count(string(out), `"type":"compaction"`)
	total := 0
	for _, body := range srv.Requests() {
		total += len(body) / 4
	}
	if compactions < 2 || total < 2*12_000 {
		t.Fatalf("%d compactions over %d tokens sent in all: the case shows nothing", compactions, total)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// A session open in one process (a TUI) is not written by another: a
// headless --continue is refused with the holder's pid and the options,
// while /diff and the list read it and say who has it open.
func TestContinueRefusedWhileSessionOpen(t *testing.T) {
	ws := testfs.Tree(t, map[string]string{"a.ts": "export const a = 1;\n"})
	home := t.TempDir()
	stateDir := filepath.Join(home, "state")
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANVIL_STATE_DIR=" + stateDir, "ANVIL_SESSION_DIR=" + filepath.Join(home, "sessions"),
		"ANVIL_DAEMON=off", "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=http://127.0.0.1:1",
	}
	root, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	store, err := conversation.Open(stateDir, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.New("anthropic", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Begin("the request this process runs"); err != nil {
		t.Fatal(err)
	}
	anvil := func(args ...string) (string, string, int) {
		cmd := exec.Command(filepath.Join(binDir, "anvil"), args...)
		cmd.Env, cmd.Dir = env, ws
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}
	pid := "pid " + strconv.Itoa(os.Getpid())
	_, stderr, code := anvil("-y", "--continue", "add a comment to a.ts")
	if code != exitBadInput || !strings.Contains(stderr, "session "+sess.ID+" is open in another process ("+pid) || !strings.Contains(stderr, "start a new session") {
		t.Errorf("--continue while the session is open: exit %d\n%s", code, stderr)
	}
	if out, stderr, code := anvil("--continue", "/diff"); code != 0 || !strings.Contains(out, "has committed nothing") {
		t.Errorf("/diff while the session is open: exit %d\n%s%s", code, out, stderr)
	}
	if out, stderr, code := anvil("--resume"); code != 0 || !strings.Contains(out, "(open in "+pid+")") {
		t.Errorf("the list while the session is open: exit %d\n%s%s", code, out, stderr)
	}
}

// cancelOnWrite cancels a context when something is written to it: a
// start that says it waits has waited.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}

// A run's or a TUI's start recovers only when a commit was interrupted:
// while another process holds the workspace lock (committing, its run
// stage running), a start with nothing to recover takes no lock and waits
// for nothing (it waited, silently, for the other commit to end).
func TestStartWaitsForNoOtherCommit(t *testing.T) {
	ws := testfs.Tree(t, map[string]string{"a.ts": "export const a = 1;\n"})
	stateDir := t.TempDir()
	getenv := func(k string) string {
		if k == "ANVIL_STATE_DIR" {
			return stateDir
		}
		return os.Getenv(k)
	}
	other, err := app.New(app.Options{Dir: ws, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Journal.Lock(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()

	a, err := app.New(app.Options{Dir: ws, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// The deadline only ends a start that waits (the code before this
	// change waited without a word); a start that does not returns at once.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stderr := &cancelOnWrite{cancel: cancel}
	cmd := &cobra.Command{}
	cmd.SetContext(ctx)
	cmd.SetErr(stderr)
	if err := recoverCrashed(cmd, a); err != nil || stderr.Len() > 0 || ctx.Err() != nil {
		t.Fatalf("the start with nothing to recover: %v (%v) %q", err, ctx.Err(), stderr.String())
	}
}
