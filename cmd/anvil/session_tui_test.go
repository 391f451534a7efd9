package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/demo"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/anthropic/anthropictest"
	"github.com/anvil-dev/anvil/internal/servers"
)

// tmuxPane is anvil running in a tmux pane: keys in, the screen out, as a
// user at a terminal has them.
type tmuxPane struct {
	t    *testing.T
	name string
}

func startTmux(t *testing.T, script string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (scripts/install-deps.sh installs it)")
	}
	p := &tmuxPane{t: t, name: fmt.Sprintf("anvil-test-%d", time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", p.name, "-x", "130", "-y", "60", "sh "+script)
	p.tmux("set-option", "-t", p.name, "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", p.name).Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *tmuxPane) screen() string { return p.tmux("capture-pane", "-p", "-t", p.name) }

// keys sends text and then, when given, named keys (Enter, Escape, C-c).
func (p *tmuxPane) keys(text string, named ...string) {
	p.t.Helper()
	if text != "" {
		p.tmux("send-keys", "-t", p.name, "-l", text)
	}
	for _, k := range named {
		p.tmux("send-keys", "-t", p.name, k)
	}
}

// expect waits for the screen to show re.
func (p *tmuxPane) expect(pattern string) {
	p.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := p.screen()
		if re.MatchString(s) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q:\n%s", pattern, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The interactive session in a real terminal (tmux): the input box, a
// request, a follow-up that builds on it, Esc stopping work without
// ending the session, /diff and /undo, and Ctrl-C at the empty prompt
// leaving with the way to continue.
func TestTUISession(t *testing.T) {
	ws := t.TempDir()
	if err := demo.Extract(ws); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	authAfter1 := regexp.MustCompile(`\bUser\b`).ReplaceAllString(readFile(t, ws, "src/auth.ts"), "Account")
	authAfter2 := strings.Replace(authAfter1, "import { Account } from", "import { Account as User } from", 1)
	authAfter2 = strings.Replace(strings.Replace(authAfter2, "): Account {", "): User {", 1), "(user: Account)", "(user: User)", 1)
	use := func(id, name string, input map[string]any) llm.Block {
		data, _ := jsonMarshal(input)
		return llm.Block{Type: llm.TypeToolUse, ID: id, Name: name, Input: data}
	}
	turn := func(calls ...llm.Block) anthropictest.Turn {
		return anthropictest.Turn{Content: append([]llm.Block{llm.Text("Working.")}, calls...)}
	}
	plan := func(id, goal string, files ...string) anthropictest.Turn {
		return turn(use(id, "submit_plan", map[string]any{"goal": goal, "context": "types.ts declares User.", "files_to_modify": files,
			"files_to_create": []string{}, "steps": []string{"Change it", "Commit"}, "verification_criteria": []string{"No new errors"}, "risks": []string{"None"}}))
	}
	srv := anthropictest.New(
		plan("p1", "Rename the User type to Account.", "src/types.ts", "src/db.ts", "src/auth.ts"),
		turn(use("e1", "rename_symbol", map[string]any{"name": "User", "new_name": "Account", "path": "src/types.ts", "line": 1})),
		turn(use("e2", "commit", map[string]any{"message": "rename"})),
		plan("p2", "Alias the type back to User in src/auth.ts only.", "src/auth.ts"),
		turn(use("e3", "write_file", map[string]any{"path": "src/auth.ts", "content": authAfter2})),
		turn(use("e4", "commit", map[string]any{"message": "alias"})),
	)
	defer srv.Close()
	script := filepath.Join(t.TempDir(), "run.sh")
	env := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": home, "TERM": "xterm-256color", "ANVIL_STATE_DIR": filepath.Join(home, "state"),
		"ANVIL_SESSION_DIR": filepath.Join(home, "sessions"), "ANVIL_TOOLS_DIR": servers.DefaultToolsDir(os.Getenv),
		"ANVIL_DAEMON": "off", "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL,
	}
	var sh strings.Builder
	for k, v := range env {
		fmt.Fprintf(&sh, "export %s='%s'\n", k, v)
	}
	// The shell stays after anvil, so the pane keeps what it printed last.
	fmt.Fprintf(&sh, "cd '%s' && '%s' -y; echo \"anvil exited $?\"; sleep 60\n", ws, filepath.Join(binDir, "anvil"))
	if err := os.WriteFile(script, []byte(sh.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startTmux(t, script)

	p.expect(`enter send`)
	p.expect(`a new session in `)
	p.keys("Rename the User type to Account across all files", "Enter")
	p.expect(`Done: Committed 3 files`)
	p.keys("now rename it back in auth.ts only", "Enter")
	p.expect(`Done: Committed 1 file`)
	if got := readFile(t, ws, "src/auth.ts"); got != authAfter2 {
		t.Fatalf("auth.ts after the follow-up:\n%s", got)
	}

	// Esc stops the work in progress; the session goes on.
	srv.Hang(true)
	p.keys("add a docstring to db.ts", "Enter")
	waitUntil(t, 30*time.Second, func() bool { return strings.Contains(lastBody(srv), "add a docstring to db.ts") })
	p.expect(`esc stop`)
	p.keys("", "Escape")
	p.expect(`stopped; nothing more was written`)
	p.expect(`enter send`)
	srv.Hang(false)

	p.keys("/diff", "Enter")
	p.expect(`# request 2, journal entry`)
	p.keys("/undo", "Enter")
	p.expect(`undid .*: restored 1 files \(src/auth.ts\)`)
	if got := readFile(t, ws, "src/auth.ts"); got != authAfter1 {
		t.Fatalf("auth.ts after /undo:\n%s", got)
	}
	p.keys("", "C-c")
	p.expect(`continue it with: anvil --continue`)
	p.expect(`anvil exited 0`)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
