package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runOpenCode installs Anvil's plugin in the workspace and runs OpenCode
// headless there ('opencode run') against the model, bounded, with a HOME
// of its own: the model is an OpenAI-compatible provider of the project's
// opencode.json, the only one enabled; no model list, update, LSP download
// or share is fetched, and the registries it would install its plugin
// package from are unreachable (Anvil's plugin imports nothing of it).
func (e *hookEnv) runOpenCode(t *testing.T, m *chatModel) string {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			reqs := m.requests()
			t.Logf("%d requests of the loop; the last:\n%s", len(reqs), lastOf(reqs))
		}
	})
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "hooks", "install", "-C", e.ws, "opencode")
	cmd.Env = e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("anvil hooks install: %v\n%s", err, out)
	}
	config := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"scripted": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
			"options": map[string]any{"baseURL": m.URL + "/v1", "apiKey": "test-key"},
			"models":  map[string]any{"test-model": map[string]any{"name": "test-model"}},
		}},
		"enabled_providers": []string{"scripted"},
		"model":             "scripted/test-model",
		"small_model":       "scripted/test-model",
		"autoupdate":        false,
		"share":             "disabled",
	}
	data, _ := json.MarshalIndent(config, "", "  ")
	if err := os.WriteFile(e.abs("opencode.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(filepath.Dir(e.ws), "opencode-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, agentBin(t, "opencode"), "run", "--dir", e.ws, "-m", "scripted/test-model", "Make the change.")
	cmd.Dir = e.ws
	env := []string{"HOME=" + home, "PWD=" + e.ws}
	for _, v := range e.vars {
		if !strings.HasPrefix(v, "HOME=") {
			env = append(env, v)
		}
	}
	// OpenCode installs its plugin package into each folder that holds a
	// plugin before the session starts; against the unreachable registry
	// npm's retries (10 s, then 60 s) held every run 70 s before its
	// first request, past the bound on a loaded machine. No retry: it
	// fails at once, and the run goes on as it does after the retries.
	cmd.Env = append(env, "OPENCODE_DISABLE_MODELS_FETCH=true", "OPENCODE_DISABLE_AUTOUPDATE=true", "OPENCODE_DISABLE_LSP_DOWNLOAD=true",
		"OPENCODE_DISABLE_SHARE=true", "NPM_CONFIG_REGISTRY=http://127.0.0.1:9/", "BUN_CONFIG_REGISTRY=http://127.0.0.1:9/", "NO_COLOR=1",
		"npm_config_fetch_retries=0", "NPM_CONFIG_FETCH_RETRIES=0")
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("opencode run: %v\n%s", err, out.String())
	}
	return out.String()
}

func opencodeRead(e *hookEnv, rel string) toolCall {
	return toolCall{"read", map[string]any{"filePath": e.abs(rel)}}
}

func opencodeEdit(e *hookEnv, rel, old, new string) toolCall {
	return toolCall{"edit", map[string]any{"filePath": e.abs(rel), "oldString": old, "newString": new}}
}

// OpenCode itself, headless, with Anvil's plugin installed by 'anvil
// hooks install opencode': an edit with a type error is refused (the
// plugin throws), the file stays as it was, and the model's next request
// carries the reason as the tool's error.
func TestOpenCodeEditRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{opencodeRead(e, "src/a.ts")},
		[]toolCall{opencodeEdit(e, "src/a.ts", "export const one: number = 1;", `export const one: number = "1";`)},
		nil,
	)
	out := e.runOpenCode(t, m)
	if got := e.read(t, "src/a.ts"); got != hookProject["src/a.ts"] {
		t.Errorf("the refused edit reached the file: %q", got)
	}
	reqs := m.requests()
	if len(reqs) < 3 || !strings.Contains(reqs[2], "Anvil refused this edit") || !strings.Contains(reqs[2], "src/a.ts:1:14") {
		t.Fatalf("the model was not told why (%d requests):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
}

// A turn that leaves an importer broken: the edit's word of the importer
// is added to the tool's output, the end of the turn is refused (OpenCode
// cannot refuse it: the plugin adds the reason as a user message, and
// the loop goes on), and the turn completes once the model fixes it.
func TestOpenCodeTurnEndRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{opencodeRead(e, "src/a.ts")},
		[]toolCall{opencodeEdit(e, "src/a.ts", "export const one: number = 1;", `export const one: string = "1";`)},
		nil, // ends the turn: refused, b.ts is broken
		[]toolCall{opencodeRead(e, "src/b.ts")},
		[]toolCall{opencodeEdit(e, "src/b.ts", "one + 1", "Number(one) + 1")},
		nil,
	)
	out := e.runOpenCode(t, m)
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

// An edit whose oldString is in the file only up to indentation is one
// OpenCode matches loosely, so its result is not known before it is
// written: the plugin lets it through, OpenCode writes it, and the
// plugin's after-hook adds to the tool's output the importer the file as
// written breaks; the model fixes it and the turn ends at the first try.
func TestOpenCodeLooseEditCheckedAsWritten(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{opencodeRead(e, "src/a.ts")},
		[]toolCall{opencodeEdit(e, "src/a.ts", "    export const one: number = 1;", `    export const one: string = "1";`)},
		[]toolCall{opencodeRead(e, "src/b.ts")},
		[]toolCall{opencodeEdit(e, "src/b.ts", "one + 1", "Number(one) + 1")},
		nil,
	)
	out := e.runOpenCode(t, m)
	if got := e.read(t, "src/a.ts"); !strings.Contains(got, `one: string = "1"`) {
		t.Fatalf("OpenCode did not apply the loosely matched edit: %q\n%s", got, out)
	}
	reqs := m.requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests of the loop, want 5 (a refused end of turn adds more):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if !strings.Contains(reqs[2], "matched loosely") || !strings.Contains(reqs[2], "src/b.ts") {
		t.Fatalf("the model was not told what the edit as written breaks:\n%s\n%s", reqs[2], out)
	}
	if got := e.read(t, "src/b.ts"); !strings.Contains(got, "Number(one) + 1") {
		t.Errorf("b.ts: %q", got)
	}
}
