package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCopilot installs Anvil's hooks in the workspace and runs GitHub
// Copilot CLI headless there ('copilot -p') against the model, bounded,
// with a HOME of its own: the model is a provider of its own (BYOK,
// offline: nothing but the provider is contacted), every tool allowed,
// the folder trusted (without it -p loads no repository hooks, silently).
// extra is more of its environment.
func (e *hookEnv) runCopilot(t *testing.T, m *chatModel, extra ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "hooks", "install", "-C", e.ws, "copilot")
	cmd.Env = e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("anvil hooks install: %v\n%s", err, out)
	}
	home := filepath.Join(filepath.Dir(e.ws), "copilot-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, agentBin(t, "copilot"), "-p", "Make the change.", "--allow-all-tools", "--no-auto-update", "--trust-folder")
	cmd.Dir = e.ws
	env := []string{"HOME=" + home}
	for _, v := range e.vars {
		if !strings.HasPrefix(v, "HOME=") {
			env = append(env, v)
		}
	}
	cmd.Env = append(env, "COPILOT_PROVIDER_BASE_URL="+m.URL+"/v1", "COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_API_KEY=test-key",
		"COPILOT_MODEL=test-model", "COPILOT_OFFLINE=true", "NO_COLOR=1")
	cmd.Env = append(cmd.Env, extra...)
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("copilot -p: %v\n%s", err, out.String())
	}
	return out.String()
}

func copilotView(e *hookEnv, rel string) toolCall {
	return toolCall{"view", map[string]any{"path": e.abs(rel)}}
}

func copilotEdit(e *hookEnv, rel, old, new string) toolCall {
	return toolCall{"edit", map[string]any{"path": e.abs(rel), "old_str": old, "new_str": new}}
}

// Copilot CLI itself, headless, with Anvil's hooks file installed by
// 'anvil hooks install copilot': an edit with a type error is denied by
// the preToolUse hook, the file stays as it was, and the model's next
// request carries the reason.
func TestCopilotEditRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{copilotView(e, "src/a.ts")},
		[]toolCall{copilotEdit(e, "src/a.ts", "export const one: number = 1;", `export const one: number = "1";`)},
		nil,
	)
	out := e.runCopilot(t, m)
	if got := e.read(t, "src/a.ts"); got != hookProject["src/a.ts"] {
		t.Errorf("the refused edit reached the file: %q", got)
	}
	reqs := m.requests()
	if len(reqs) < 3 || !strings.Contains(reqs[2], "Anvil refused this edit") || !strings.Contains(reqs[2], "src/a.ts:1:14") {
		t.Fatalf("the model was not told why (%d requests):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
}

// A turn that leaves an importer broken: the edit's word of the importer
// reaches the model, the agentStop hook refuses the end of the turn with
// the importer named, and the turn completes once the model fixes it.
func TestCopilotTurnEndRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{copilotView(e, "src/a.ts")},
		[]toolCall{copilotEdit(e, "src/a.ts", "export const one: number = 1;", `export const one: string = "1";`)},
		nil, // ends the turn: refused, b.ts is broken
		[]toolCall{copilotView(e, "src/b.ts")},
		[]toolCall{copilotEdit(e, "src/b.ts", "one + 1", "Number(one) + 1")},
		nil,
	)
	out := e.runCopilot(t, m)
	reqs := m.requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests of the loop, want 6:\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if !strings.Contains(reqs[2], "brings 1 new error into src/b.ts") {
		t.Errorf("the edit's context did not name the importer:\n%s", reqs[2])
	}
	if !strings.Contains(reqs[3], "the session's changes leave 1 new error in src/b.ts") {
		t.Errorf("the refused end of the turn did not reach the model:\n%s", reqs[3])
	}
	if got := e.read(t, "src/b.ts"); !strings.Contains(got, "Number(one) + 1") {
		t.Errorf("b.ts: %q", got)
	}
	sessionsResumable(t, e)
}

// With COPILOT_HOME set, Copilot CLI keeps its sessions there, and the
// session's snapshot names that record: while it is there, the snapshot
// is never pruned. Before, the record was looked for under ~/.copilot
// alone, and such a session went by the store's bounds.
func TestCopilotSessionRecordUnderItsOwnHome(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{copilotView(e, "src/a.ts")},
		[]toolCall{copilotEdit(e, "src/a.ts", "export const one: number = 1;", "export const one: number = 2;")},
		nil,
	)
	own := filepath.Join(filepath.Dir(e.ws), "copilot-own-home")
	e.runCopilot(t, m, "COPILOT_HOME="+own)
	if got := e.read(t, "src/a.ts"); !strings.Contains(got, "= 2;") {
		t.Fatalf("the clean edit did not reach the file: %q", got)
	}
	sessionsResumable(t, e)
	records, _ := filepath.Glob(filepath.Join(own, "session-state", "*", "events.jsonl"))
	if len(records) == 0 {
		t.Fatalf("Copilot CLI kept no session under COPILOT_HOME (%s)", own)
	}
}
