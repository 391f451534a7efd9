package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/hooks"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// hookProject is a TypeScript project whose b.ts uses a.ts's export.
var hookProject = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "preserve", "moduleResolution": "bundler"}, "include": ["src"]}`,
	"src/a.ts":      "export const one: number = 1;\n",
	"src/b.ts":      "import { one } from \"./a\";\n\nexport const two: number = one + 1;\n",
	"src/c.ts":      "import { two } from \"./b\";\n\nexport const three: number = two + 1;\n",
	".git/HEAD":     "ref: refs/heads/main\n",
}

// hookEnv runs the real binary as a client runs its hooks, with the
// daemon on (its socket and state the test's own).
type hookEnv struct {
	ws   string
	vars []string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	testfs.Write(t, ws, hookProject)
	run, err := os.MkdirTemp("", "anvil-run-") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	e := &hookEnv{ws: ws, vars: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"ANVIL_STATE_DIR=" + filepath.Join(home, "state"),
		"ANVIL_TOOLS_DIR=" + servers.DefaultToolsDir(os.Getenv),
		"XDG_RUNTIME_DIR=" + run,
		// The clients' scenarios are told what an edit breaks in its
		// importers, which the hook checks at the edit only when allowed
		// a cost for them; here up to the hook's bound.
		"ANVIL_HOOK_IMPORTERS_WITHIN=20s",
	}}
	t.Cleanup(func() {
		cmd := exec.Command(filepath.Join(binDir, "anvil"), "serve", "stop")
		cmd.Env = e.vars
		_ = cmd.Run()
		stopDaemonsUnder(t, run)
	})
	return e
}

// importersLeftToTheTurnsEnd has the hooks this env runs check an edit's
// own files alone, as they do by default: the env's allowance for the
// importers is taken out.
func (e *hookEnv) importersLeftToTheTurnsEnd() {
	e.vars = slices.DeleteFunc(e.vars, func(v string) bool { return strings.HasPrefix(v, "ANVIL_HOOK_IMPORTERS_WITHIN=") })
}

// state is the Anvil state directory of the hooks this env runs.
func (e *hookEnv) state() string {
	for _, v := range e.vars {
		if d, ok := strings.CutPrefix(v, "ANVIL_STATE_DIR="); ok {
			return d
		}
	}
	return ""
}

type hookRun struct {
	code           int
	stdout, stderr string
}

// hook runs 'anvil hook VERB --client C' with input on stdin, from the
// workspace, as the clients run it.
func (e *hookEnv) hook(t *testing.T, verb, client string, input any, extra ...string) hookRun {
	t.Helper()
	data, ok := input.([]byte)
	if !ok {
		var err error
		if data, err = json.Marshal(input); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(binDir, "anvil"), append([]string{"hook", verb, "--client", client}, extra...)...)
	cmd.Dir = e.ws
	cmd.Env = e.vars
	cmd.Stdin = bytes.NewReader(data)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatal(err)
	}
	return hookRun{cmd.ProcessState.ExitCode(), out.String(), errOut.String()}
}

// editInput is each client's tool call replacing old with new in the
// workspace file rel.
func (e *hookEnv) editInput(client, session, rel, old, new string) map[string]any {
	abs := filepath.Join(e.ws, rel)
	in := map[string]any{"session_id": session, "cwd": e.ws, "hook_event_name": "PreToolUse", "transcript_path": "/dev/null"}
	switch client {
	case "claude":
		in["tool_name"] = "Edit"
		in["tool_input"] = map[string]any{"file_path": abs, "old_string": old, "new_string": new}
	case "codex":
		in["tool_name"] = "apply_patch"
		in["tool_input"] = map[string]any{"command": "*** Begin Patch\n*** Update File: " + rel + "\n@@\n-" + old + "\n+" + strings.ReplaceAll(new, "\n", "\n+") + "\n*** End Patch\n"}
	case "gemini":
		in["hook_event_name"] = "BeforeTool"
		in["tool_name"] = "replace"
		in["tool_input"] = map[string]any{"file_path": abs, "old_string": old, "new_string": new, "instruction": "edit"}
	}
	return in
}

// verdict reads a pre-edit answer: refused (and why), the context for
// the model, the note for the user.
func verdict(t *testing.T, client string, r hookRun) (denied bool, reason, context, message string) {
	t.Helper()
	if r.code != 0 && !(client == "codex" && r.code == 2) {
		t.Fatalf("%s: exit %d (stdout %q, stderr %q)", client, r.code, r.stdout, r.stderr)
	}
	if client == "codex" && r.code == 2 {
		return true, r.stderr, "", ""
	}
	if strings.TrimSpace(r.stdout) == "" {
		if client == "gemini" {
			t.Fatalf("gemini: no JSON on stdout")
		}
		return false, "", "", ""
	}
	var out struct {
		Decision      string `json:"decision"`
		Reason        string `json:"reason"`
		SystemMessage string `json:"systemMessage"`
		Specific      struct {
			Event    string `json:"hookEventName"`
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
			Context  string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%s: stdout is not one JSON object: %v\n%s", client, err, r.stdout)
	}
	switch client {
	case "claude":
		if out.Specific.Decision == "allow" || out.Specific.Decision == "ask" {
			t.Errorf("claude: the hook decided %q: it must never bypass the user's permissions", out.Specific.Decision)
		}
		if out.Specific.Decision == "deny" {
			return true, out.Specific.Reason, "", out.SystemMessage
		}
		return false, "", out.Specific.Context, out.SystemMessage
	case "codex":
		return false, "", out.Specific.Context, out.SystemMessage
	}
	if out.Decision == "deny" {
		return true, out.Reason, "", out.SystemMessage
	}
	if out.Decision != "" {
		t.Errorf("gemini: decision %q", out.Decision)
	}
	return false, "", "", out.SystemMessage
}

// The pre-edit hook of each client, through the real binary, the daemon
// and tsgo: an edit with a type error in its own file is refused with the
// error and its line; one that breaks only an importer goes through with
// the importer named where the client carries it; a clean one goes
// through silently; the file on disk is never touched.
func TestHookPreEdit(t *testing.T) {
	e := newHookEnv(t)
	for _, client := range []string{"claude", "codex", "gemini"} {
		t.Run(client, func(t *testing.T) {
			session := "s-" + client
			before, _ := os.ReadFile(filepath.Join(e.ws, "src/a.ts"))

			r := e.hook(t, "pre-edit", client, e.editInput(client, session, "src/a.ts", "export const one: number = 1;", `export const one: number = "1";`))
			denied, reason, _, _ := verdict(t, client, r)
			if !denied || !strings.Contains(reason, "src/a.ts:1:") || !strings.Contains(reason, "[2322]") || !strings.Contains(reason, `export const one: number = "1";`) {
				t.Errorf("a type error in the edited file: denied %v, reason %q (%+v)", denied, reason, r)
			}

			r = e.hook(t, "pre-edit", client, e.editInput(client, session, "src/a.ts", "export const one: number = 1;", `export const one: string = "1";`))
			denied, reason, context, message := verdict(t, client, r)
			if denied {
				t.Errorf("an edit clean in its own file was refused: %s", reason)
			}
			carried := context
			if client == "gemini" {
				carried = message // BeforeTool cannot reach the model: the user sees it
			}
			if !strings.Contains(carried, "src/b.ts") || !strings.Contains(carried, "[2322]") {
				t.Errorf("the importer it breaks is not named: context %q, message %q (%+v)", context, message, r)
			}

			r = e.hook(t, "pre-edit", client, e.editInput(client, session, "src/a.ts", "export const one: number = 1;", "export const one: number = 1;\nexport const zero: number = 0;"))
			if denied, reason, context, message := verdict(t, client, r); denied || context != "" || message != "" {
				t.Errorf("a clean edit: denied %v %q, context %q, message %q", denied, reason, context, message)
			}
			if after, _ := os.ReadFile(filepath.Join(e.ws, "src/a.ts")); !bytes.Equal(after, before) {
				t.Errorf("the hook wrote the file: %q", after)
			}
		})
	}
}

// Whatever a client sends, the hook answers in a way that lets it go on,
// with a reason, never by accident with a refusal: malformed JSON, a
// file outside the workspace, a binary file, a tool it does not know, an
// edit the client will fail itself.
func TestHookPreEditLetsTheClientGoOn(t *testing.T) {
	e := newHookEnv(t)
	outside := filepath.Join(t.TempDir(), "x.ts")
	if err := os.WriteFile(filepath.Join(e.ws, "src/bin.ts"), []byte("\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, client := range []string{"claude", "codex", "gemini"} {
		edit := func(abs, old, new string) map[string]any {
			in := e.editInput(client, "s", "src/a.ts", old, new)
			ti := in["tool_input"].(map[string]any)
			if client == "codex" {
				ti["command"] = "*** Begin Patch\n*** Add File: " + abs + "\n+" + new + "\n*** End Patch\n"
			} else {
				ti["file_path"] = abs
			}
			return in
		}
		cases := map[string]any{
			"malformed JSON":    []byte(`{"tool_name": "Edit", `),
			"not an object":     []byte(`[1]`),
			"empty":             []byte(``),
			"unknown tool":      map[string]any{"session_id": "s", "cwd": e.ws, "tool_name": "Frobnicate", "tool_input": map[string]any{}},
			"outside":           edit(outside, "", `export const x: number = "no";`),
			"old string absent": e.editInput(client, "s", "src/a.ts", "no such text", "x"),
		}
		if client != "codex" {
			cases["binary file"] = edit(filepath.Join(e.ws, "src/bin.ts"), "\x01", `"x"`)
		}
		for name, input := range cases {
			t.Run(client+"/"+name, func(t *testing.T) {
				r := e.hook(t, "pre-edit", client, input)
				denied, reason, _, message := verdict(t, client, r)
				if denied {
					t.Errorf("refused: %s", reason)
				}
				if message == "" && name != "empty" {
					t.Errorf("no reason given (%+v)", r)
				}
			})
		}
	}
}

// An edit no server can verify (a language without one here) goes
// through with a note saying so; --strict refuses it instead.
func TestHookPreEditUnverified(t *testing.T) {
	e := newHookEnv(t)
	in := map[string]any{"session_id": "s", "cwd": e.ws, "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(e.ws, "src/main.zig"), "content": "pub fn main() void {}\n"}}
	r := e.hook(t, "pre-edit", "claude", in)
	denied, _, _, message := verdict(t, "claude", r)
	if denied || !strings.Contains(message, "not verified") {
		t.Errorf("unverified: denied %v, message %q (%+v)", denied, message, r)
	}
	r = e.hook(t, "pre-edit", "claude", in, "--strict")
	if denied, reason, _, _ := verdict(t, "claude", r); !denied || !strings.Contains(reason, "--strict") {
		t.Errorf("--strict: denied %v, reason %q", denied, reason)
	}
}

// stopVerdict reads an end-of-turn answer: refused (and why), the note
// for the user.
func stopVerdict(t *testing.T, client string, r hookRun) (blocked bool, reason, message string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s: stop exit %d (stdout %q, stderr %q)", client, r.code, r.stdout, r.stderr)
	}
	if strings.TrimSpace(r.stdout) == "" {
		if client == "gemini" {
			t.Fatalf("gemini: no JSON on stdout")
		}
		return false, "", ""
	}
	var out struct {
		Decision      string `json:"decision"`
		Reason        string `json:"reason"`
		SystemMessage string `json:"systemMessage"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%s: %v\n%s", client, err, r.stdout)
	}
	want := "block"
	if client == "gemini" {
		want = "deny"
	}
	if out.Decision != "" && out.Decision != want {
		t.Errorf("%s: decision %q, want %q", client, out.Decision, want)
	}
	return out.Decision == want, out.Reason, out.SystemMessage
}

func (e *hookEnv) write(t *testing.T, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.ws, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The end-of-turn hook of each client checks what the session changed,
// whichever way (here a shell's write, which no edit hook saw), against
// the tree as the session started: an importer left broken refuses the
// end of the turn with the importer named, again while the model tries
// (stop_hook_active), until the bound, then lets it end with a warning;
// once fixed, the turn ends.
func TestHookStop(t *testing.T) {
	for _, client := range []string{"claude", "codex", "gemini"} {
		t.Run(client, func(t *testing.T) {
			e := newHookEnv(t)
			session := "stop-" + client
			base := map[string]any{"session_id": session, "cwd": e.ws, "hook_event_name": "Stop"}
			if r := e.hook(t, "session-start", client, map[string]any{"session_id": session, "cwd": e.ws, "hook_event_name": "SessionStart", "source": "startup"}); r.code != 0 {
				t.Fatalf("session-start: %+v", r)
			}
			if blocked, reason, msg := stopVerdict(t, client, e.hook(t, "stop", client, base)); blocked || msg != "" {
				t.Fatalf("nothing changed, yet: blocked %v %q %q", blocked, reason, msg)
			}

			e.write(t, "src/a.ts", "export const one: string = \"1\";\n")
			blocked, reason, _ := stopVerdict(t, client, e.hook(t, "stop", client, base))
			if !blocked || !strings.Contains(reason, "src/b.ts:3:") || !strings.Contains(reason, "[2322]") {
				t.Fatalf("a broken importer: blocked %v, reason %q", blocked, reason)
			}
			active := map[string]any{"session_id": session, "cwd": e.ws, "hook_event_name": "Stop", "stop_hook_active": true}
			for i := 2; i <= hooksMaxBlocks; i++ {
				blocked, reason, _ := stopVerdict(t, client, e.hook(t, "stop", client, active))
				if !blocked {
					t.Fatalf("refusal %d in a row let the turn end", i)
				}
				if last := strings.Contains(reason, "last refusal"); last != (i == hooksMaxBlocks) {
					t.Errorf("refusal %d says it is the last: %v (%q)", i, last, reason)
				}
			}
			blocked, _, msg := stopVerdict(t, client, e.hook(t, "stop", client, active))
			stopLog := filepath.Join(e.state(), "hooks", "stop.log")
			if blocked || !strings.Contains(msg, "refused for") || !strings.Contains(msg, "src/b.ts") || !strings.Contains(msg, stopLog) {
				t.Fatalf("past the bound: blocked %v, message %q", blocked, msg)
			}
			if log, err := os.ReadFile(stopLog); err != nil || !strings.Contains(string(log), "the turn ended after 5 refusals in a row") {
				t.Errorf("the end-of-turn log: %v\n%s", err, log)
			}
			if blocked, _, _ := stopVerdict(t, client, e.hook(t, "stop", client, base)); !blocked {
				t.Fatalf("the next turn's end was not checked again")
			}

			e.write(t, "src/b.ts", "import { one } from \"./a\";\n\nexport const two: number = Number(one) + 1;\n")
			if blocked, reason, msg := stopVerdict(t, client, e.hook(t, "stop", client, active)); blocked || msg != "" {
				t.Fatalf("fixed: blocked %v %q %q", blocked, reason, msg)
			}
		})
	}
}

const hooksMaxBlocks = 5 // hooks.MaxBlocks, restated: the test pins the bound

// A turn whose change the way back cannot take back (here a link the
// session made) ends with a note saying so; under --strict, which
// refuses what it cannot verify, its end is refused. Before, --strict
// refused only a check that failed or ran past its bound, and a link, an
// install or a binary file changed passed with the note.
func TestHookStopStrictRefusesWhatItCannotVerify(t *testing.T) {
	e := newHookEnv(t)
	start := map[string]any{"session_id": "strict", "cwd": e.ws, "hook_event_name": "SessionStart", "source": "startup"}
	if r := e.hook(t, "session-start", "claude", start); r.code != 0 {
		t.Fatalf("session-start: %+v", r)
	}
	if err := os.Symlink("a.ts", e.abs("src/alias.ts")); err != nil {
		t.Fatal(err)
	}
	stop := map[string]any{"session_id": "strict", "cwd": e.ws, "hook_event_name": "Stop"}
	if blocked, _, msg := stopVerdict(t, "claude", e.hook(t, "stop", "claude", stop)); blocked || !strings.Contains(msg, "src/alias.ts") {
		t.Fatalf("without --strict: blocked %v, message %q", blocked, msg)
	}
	blocked, reason, _ := stopVerdict(t, "claude", e.hook(t, "stop", "claude", stop, "--strict"))
	if !blocked || !strings.Contains(reason, "src/alias.ts") || !strings.Contains(reason, "--strict") {
		t.Fatalf("--strict: blocked %v, reason %q", blocked, reason)
	}
}

// The session's work is judged whole even when it also fixed an error
// that was there at its start: the check back to the start tree finds
// that error "new" in the changed file and still checks every importer,
// the indirect ones too, where the session's break is. A session that
// creates a file with an error, or deletes one another file imports, is
// refused too.
func TestHookStopSeesPastAFix(t *testing.T) {
	e := newHookEnv(t)
	e.write(t, "src/a.ts", "export const one: number = \"1\";\n") // an error at the start
	e.write(t, "src/b.ts", "export { one } from \"./a\";\n")
	e.write(t, "src/c.ts", "import { one } from \"./b\";\n\nexport const three: number = one + 2;\n")
	session := map[string]any{"session_id": "fix", "cwd": e.ws, "hook_event_name": "Stop"}
	e.hook(t, "session-start", "claude", session)

	e.write(t, "src/a.ts", "export const one: string = \"1\";\n") // fixed here, broken in c.ts
	blocked, reason, _ := stopVerdict(t, "claude", e.hook(t, "stop", "claude", session))
	if !blocked || !strings.Contains(reason, "src/c.ts:3:") || strings.Contains(reason, "src/a.ts") {
		t.Fatalf("an indirect importer broken by a fix: blocked %v, reason %q", blocked, reason)
	}

	e.write(t, "src/a.ts", "export const one: number = \"1\";\n")
	e.write(t, "src/new.ts", "export const n: number = \"n\";\n")
	blocked, reason, _ = stopVerdict(t, "claude", e.hook(t, "stop", "claude", session))
	if !blocked || !strings.Contains(reason, "src/new.ts:1:") {
		t.Fatalf("a new file with an error: blocked %v, reason %q", blocked, reason)
	}
	if err := os.Remove(filepath.Join(e.ws, "src/new.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(e.ws, "src/b.ts")); err != nil {
		t.Fatal(err)
	}
	blocked, reason, _ = stopVerdict(t, "claude", e.hook(t, "stop", "claude", session))
	if !blocked || !strings.Contains(reason, "src/c.ts:1:") {
		t.Fatalf("a deleted module: blocked %v, reason %q", blocked, reason)
	}
}

// A file the session's shell made is the session's, even once an edit
// tool touches it: the edit hook keeps a file's content as the start's
// only where the snapshot could not have known it. Before, it kept the
// shell's file as the start's, the way back restored it instead of
// deleting it, and the turn ended clean with its error in place. A JSON
// file too large to keep, which no change set can take back, makes the
// end unverified with its name when the turn changes it, where it went
// unseen before.
func TestHookStopKnowsWhatTheSessionMade(t *testing.T) {
	e := newHookEnv(t)
	e.write(t, "src/table.json", "["+strings.Repeat("1,", 1<<20)+"1]") // over the 2 MiB a snapshot keeps
	session := map[string]any{"session_id": "made", "cwd": e.ws, "hook_event_name": "Stop"}
	e.hook(t, "session-start", "claude", session)

	e.write(t, "src/new.ts", "export const n: number = \"n\";\nexport const m = 1;\n") // by a shell
	r := e.hook(t, "pre-edit", "claude", e.editInput("claude", "made", "src/new.ts", "export const m = 1;", "export const m = 2;"))
	if denied, reason, _, _ := verdict(t, "claude", r); denied {
		t.Fatalf("an edit that adds no error was refused: %s", reason)
	}
	e.write(t, "src/new.ts", "export const n: number = \"n\";\nexport const m = 2;\n") // as the client writes it
	blocked, reason, _ := stopVerdict(t, "claude", e.hook(t, "stop", "claude", session))
	if !blocked || !strings.Contains(reason, "src/new.ts:1:") {
		t.Fatalf("the error of a file the session made: blocked %v, reason %q", blocked, reason)
	}

	if err := os.Remove(filepath.Join(e.ws, "src/new.ts")); err != nil {
		t.Fatal(err)
	}
	e.write(t, "src/table.json", "["+strings.Repeat("2,", 1<<20)+"2]")
	r = e.hook(t, "stop", "claude", session)
	if blocked, reason, msg := stopVerdict(t, "claude", r); blocked || !strings.Contains(msg+r.stdout+r.stderr, "src/table.json") {
		t.Fatalf("a changed JSON file too large to keep: blocked %v, reason %q, message %q (%+v)", blocked, reason, msg, r)
	}
}

// A session whose start no hook saw (installed mid-session) is checked
// from its first hook call on, and says so.
func TestHookStopWithoutSnapshot(t *testing.T) {
	e := newHookEnv(t)
	session := map[string]any{"session_id": "late", "cwd": e.ws, "hook_event_name": "Stop"}
	blocked, _, msg := stopVerdict(t, "claude", e.hook(t, "stop", "claude", session))
	if blocked || !strings.Contains(msg, "no snapshot") {
		t.Fatalf("blocked %v, message %q", blocked, msg)
	}
	e.write(t, "src/a.ts", "export const one: string = \"1\";\n")
	if blocked, _, _ := stopVerdict(t, "claude", e.hook(t, "stop", "claude", session)); !blocked {
		t.Fatal("the change since the first call was not checked")
	}
}

// A wait the environment sets is taken when it is a positive duration,
// and otherwise named as not taken, never ignored without a word.
func TestImportersWithinFromTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration
		warns bool
	}{
		{"", hooks.DefaultImportersWithin, false},
		{"2s", 2 * time.Second, false},
		{"150ms", 150 * time.Millisecond, false},
		{"800", hooks.DefaultImportersWithin, true},
		{"-1s", hooks.DefaultImportersWithin, true},
		{"0s", hooks.DefaultImportersWithin, true},
		{"soon", hooks.DefaultImportersWithin, true},
	} {
		got, warning := importersWithinFrom(func(string) string { return tc.value })
		if got != tc.want || (warning != "") != tc.warns {
			t.Errorf("%q: %s, warning %q; want %s, a warning: %t", tc.value, got, warning, tc.want, tc.warns)
		}
		if tc.warns && !strings.Contains(warning, tc.value) {
			t.Errorf("%q: the warning %q does not name the value", tc.value, warning)
		}
	}
}
