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
)

// toolCall is one tool call of a scripted model turn.
type toolCall struct {
	name  string
	input map[string]any
}

// scriptedModel serves the Anthropic Messages API to a real client: each
// request that offers tools (the agent's loop) gets the next step of the
// script, a text turn or tool calls; the client's side requests (a title,
// a summary) get a short text. It keeps the loop's requests.
type scriptedModel struct {
	*httptest.Server
	mu       sync.Mutex
	steps    [][]toolCall // nil step: a text turn ending the loop
	loop     []string     // bodies of the loop's requests
	received int
}

func newScriptedModel(t *testing.T, steps ...[]toolCall) *scriptedModel {
	m := &scriptedModel{steps: steps}
	m.Server = httptest.NewServer(http.HandlerFunc(m.handle))
	t.Cleanup(m.Close)
	return m
}

func (m *scriptedModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.loop...)
}

func (m *scriptedModel) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		fmt.Fprint(w, `{"input_tokens": 100}`)
		return
	}
	var req struct {
		Tools  []json.RawMessage `json:"tools"`
		Stream bool              `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	var step []toolCall
	text := "ok"
	m.mu.Lock()
	m.received++
	if len(req.Tools) > 0 {
		m.loop = append(m.loop, string(body))
		if len(m.steps) > 0 {
			step, m.steps = m.steps[0], m.steps[1:]
		}
		if step == nil {
			text = "Done."
		}
	}
	n := m.received
	m.mu.Unlock()
	streamMessage(w, n, text, step, req.Stream)
}

// streamMessage answers as the API does: an event stream, or one JSON
// message when the client did not ask to stream.
func streamMessage(w http.ResponseWriter, n int, text string, calls []toolCall, stream bool) {
	var content []map[string]any
	if calls == nil {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	for i, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, i), "name": c.name, "input": c.input})
	}
	stop := "end_turn"
	if calls != nil {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10}
	if !stream {
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message",
		"role": "assistant", "model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range content {
		if b["type"] == "text" {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		} else {
			input, _ := json.Marshal(b["input"])
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// runClaude installs Anvil's hooks in the workspace and runs Claude Code
// headless there against the model, bounded.
func (e *hookEnv) runClaude(t *testing.T, m *scriptedModel) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "hooks", "install", "-C", e.ws, "claude")
	cmd.Env = e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("anvil hooks install: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, agentBin(t, "claude"), "-p", "Make the change.", "--permission-mode", "acceptEdits",
		"--allowedTools", "Read,Edit,Write", "--model", "claude-sonnet-4-5", "--output-format", "text")
	cmd.Dir = e.ws
	cmd.Env = append(e.vars, "ANTHROPIC_BASE_URL="+m.URL, "ANTHROPIC_API_KEY=test-key", "DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out.String())
	}
	return out.String()
}

func (e *hookEnv) abs(rel string) string { return filepath.Join(e.ws, rel) }

func (e *hookEnv) read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(e.abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func edit(e *hookEnv, rel, old, new string) toolCall {
	return toolCall{"Edit", map[string]any{"file_path": e.abs(rel), "old_string": old, "new_string": new}}
}

func read(e *hookEnv, rel string) toolCall {
	return toolCall{"Read", map[string]any{"file_path": e.abs(rel)}}
}

// Claude Code itself, headless, with Anvil's hooks installed by 'anvil
// hooks install': an Edit with a type error is refused, the file stays as
// it was, and the model's next request carries the reason.
func TestClaudeCodeEditRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newScriptedModel(t,
		[]toolCall{read(e, "src/a.ts")},
		[]toolCall{edit(e, "src/a.ts", "export const one: number = 1;", `export const one: number = "1";`)},
		nil,
	)
	out := e.runClaude(t, m)
	if got := e.read(t, "src/a.ts"); got != hookProject["src/a.ts"] {
		t.Errorf("the refused edit reached the file: %q", got)
	}
	reqs := m.requests()
	if len(reqs) < 3 || !strings.Contains(reqs[2], "PreToolUse:Edit hook error: Anvil refused this edit") || !strings.Contains(reqs[2], "src/a.ts:1:14") {
		t.Fatalf("the model was not told why (%d requests):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
}

// A turn that leaves an importer broken is refused at its end with the
// importer named, and completes once the model fixes it.
func TestClaudeCodeTurnEndRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		// atTheEdit: the hook checks the importers at the edit
		// (--importers-within), and the model is told there what it
		// broke; by default only the end of the turn tells it.
		atTheEdit bool
	}{
		{"importers checked at the edit", true},
		{"by default", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newHookEnv(t)
			if !tc.atTheEdit {
				e.importersLeftToTheTurnsEnd()
			}
			m := newScriptedModel(t,
				[]toolCall{read(e, "src/a.ts")},
				[]toolCall{edit(e, "src/a.ts", "export const one: number = 1;", `export const one: string = "1";`)},
				nil, // ends the turn: refused, b.ts is broken
				[]toolCall{read(e, "src/b.ts")},
				[]toolCall{edit(e, "src/b.ts", "one + 1", "Number(one) + 1")},
				nil,
			)
			out := e.runClaude(t, m)
			reqs := m.requests()
			if len(reqs) != 6 {
				t.Fatalf("%d requests of the loop, want 6:\n%s\n%s", len(reqs), lastOf(reqs), out)
			}
			if told := strings.Contains(reqs[2], "brings 1 new error into src/b.ts"); told != tc.atTheEdit {
				t.Errorf("the edit's context named the importer: %v, want %v:\n%s", told, tc.atTheEdit, reqs[2])
			}
			if !strings.Contains(reqs[3], "the session's changes leave 1 new error in src/b.ts") {
				t.Errorf("the refused end of the turn did not reach the model:\n%s", reqs[3])
			}
			if got := e.read(t, "src/b.ts"); !strings.Contains(got, "Number(one) + 1") {
				t.Errorf("b.ts: %q", got)
			}
			sessionsResumable(t, e)
		})
	}
}

// A rename across three files, edit by edit, ends with every file right
// and the end-of-turn check passing: each intermediate edit is clean in
// its own file, its importers' errors are told, and the turn ends at the
// first try.
func TestClaudeCodeRenameAcrossFiles(t *testing.T) {
	e := newHookEnv(t)
	m := newScriptedModel(t,
		[]toolCall{read(e, "src/a.ts"), read(e, "src/b.ts"), read(e, "src/c.ts")},
		[]toolCall{edit(e, "src/a.ts", "export const one", "export const uno")},
		[]toolCall{edit(e, "src/b.ts", renameB[0], renameB[1])},
		[]toolCall{edit(e, "src/c.ts", renameC[0], renameC[1])},
		nil,
	)
	out := e.runClaude(t, m)
	checkRename(t, e, m.requests(), out)
}

func lastOf(reqs []string) string {
	if len(reqs) == 0 {
		return "(no request)"
	}
	s := reqs[len(reqs)-1]
	if len(s) > 3000 {
		s = s[len(s)-3000:]
	}
	return s
}
