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

// geminiModel is the model Gemini CLI is told to use (-m): a name it
// knows, so that it neither routes nor falls back.
const geminiModel = "gemini-2.5-flash"

// generateModel serves the Gemini API's generateContent and
// streamGenerateContent (alt=sse) to Gemini CLI: each request that offers
// tools (the agent's loop) gets the next step of the script, tool calls
// or, for a nil step, a closing text; the client's side requests get a
// short text. It keeps the loop's request bodies, and every request's
// path for a failure's report.
type generateModel struct {
	*httptest.Server
	mu    sync.Mutex
	steps [][]toolCall
	loop  []string
	paths []string
	n     int
}

func newGenerateModel(t *testing.T, steps ...[]toolCall) *generateModel {
	m := &generateModel{steps: steps}
	m.Server = httptest.NewServer(http.HandlerFunc(m.handle)) // on 127.0.0.1
	t.Cleanup(m.Close)
	return m
}

func (m *generateModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.loop...)
}

func (m *generateModel) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	_, method, _ := strings.Cut(r.URL.Path, ":")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		http.NotFound(w, r)
		return
	}
	if method == "countTokens" {
		fmt.Fprint(w, `{"totalTokens": 100}`)
		return
	}
	var req struct {
		Tools []struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	offers := false
	for _, tl := range req.Tools {
		offers = offers || len(tl.FunctionDeclarations) > 0
	}
	var step []toolCall
	m.mu.Lock()
	m.n++
	total, n := m.n, 0
	m.paths = append(m.paths, r.URL.Path)
	if offers {
		n = len(m.loop) + 1 // the call ids count the loop's requests
		m.loop = append(m.loop, string(body))
		if len(m.steps) > 0 {
			step, m.steps = m.steps[0], m.steps[1:]
		}
	}
	m.mu.Unlock()
	if total > maxScriptedRequests {
		http.Error(w, `{"error": {"code": 400, "message": "the script is over", "status": "INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	var parts []map[string]any
	for i, c := range step {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "name": c.name, "args": c.input}})
	}
	if step == nil {
		parts = append(parts, map[string]any{"text": "Done."})
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  geminiModel,
		"responseId":    fmt.Sprintf("resp_%d", total),
	}
	data, _ := json.Marshal(resp)
	if method != "streamGenerateContent" {
		w.Header().Set("content-type", "application/json")
		w.Write(data)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", data)
}

// runGemini installs Anvil's hooks in the workspace and runs Gemini CLI
// headless there ('gemini -p') against the model, bounded, with a HOME of
// its own: API-key auth at the model's address, the workspace trusted,
// edits auto-approved, no statistics, telemetry or update checks.
func (e *hookEnv) runGemini(t *testing.T, m *generateModel) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "hooks", "install", "-C", e.ws, "gemini")
	cmd.Env = e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("anvil hooks install: %v\n%s", err, out)
	}
	home := filepath.Join(filepath.Dir(e.ws), "gemini-home")
	settings := `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, agentBin(t, "gemini"), "-p", "Make the change.", "--approval-mode", "auto_edit",
		"-m", geminiModel, "--output-format", "text")
	cmd.Dir = e.ws
	env := []string{"PATH=" + testNodeDir() + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home}
	for _, v := range e.vars {
		if !strings.HasPrefix(v, "PATH=") && !strings.HasPrefix(v, "HOME=") {
			env = append(env, v)
		}
	}
	cmd.Env = append(env, "GOOGLE_GEMINI_BASE_URL="+m.URL, "GEMINI_API_KEY=test-key", "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1")
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini -p: %v\n%s\nrequests: %v", err, out.String(), m.paths)
	}
	return out.String()
}

func geminiReplace(e *hookEnv, rel, old, new string) toolCall {
	return toolCall{"replace", map[string]any{"file_path": e.abs(rel), "old_string": old, "new_string": new, "instruction": "Make the change."}}
}

// geminiContent is a turn of a generateContent request's contents.
type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text             string `json:"text"`
		FunctionResponse *struct {
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	} `json:"parts"`
}

func geminiContents(t *testing.T, body string) []geminiContent {
	t.Helper()
	var req struct {
		Contents []geminiContent `json:"contents"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("a request is not JSON: %v", err)
	}
	return req.Contents
}

// functionResponse is the response a request gives the model for its
// call id ("" when there is none).
func functionResponse(t *testing.T, body, id string) string {
	t.Helper()
	for _, c := range geminiContents(t, body) {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.ID == id {
				return string(p.FunctionResponse.Response)
			}
		}
	}
	return ""
}

// lastUserPrompt is the text of a request's last user turn that is not a
// tool's response.
func lastUserPrompt(t *testing.T, body string) string {
	t.Helper()
	text := ""
	for _, c := range geminiContents(t, body) {
		if c.Role != "user" || len(c.Parts) == 0 || c.Parts[0].FunctionResponse != nil {
			continue
		}
		text = ""
		for _, p := range c.Parts {
			text += p.Text
		}
	}
	return text
}

// Gemini CLI itself, headless, with Anvil's hooks installed by 'anvil
// hooks install gemini': a replace with a type error is refused, the file
// stays as it was, and the model's next request carries the reason.
func TestGeminiEditRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newGenerateModel(t,
		[]toolCall{geminiReplace(e, "src/a.ts", "export const one: number = 1;", `export const one: number = "1";`)},
		nil,
	)
	out := e.runGemini(t, m)
	if got := e.read(t, "src/a.ts"); got != hookProject["src/a.ts"] {
		t.Errorf("the refused edit reached the file: %q", got)
	}
	reqs := m.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests of the loop, want 2:\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if got := functionResponse(t, reqs[1], "call_1_0"); !strings.Contains(got, "Tool execution blocked: Anvil refused this edit") || !strings.Contains(got, "src/a.ts:1:14") {
		t.Fatalf("the model was not told why: %s\n%s", got, out)
	}
}

// A turn that leaves an importer broken is refused at its end (Gemini
// CLI's AfterAgent hook) with the importer named, and completes once the
// model fixes it: the refusal comes back to the model as a new prompt.
// (BeforeTool cannot hand the model context: the importer's errors reach
// it only here.)
func TestGeminiTurnEndRefused(t *testing.T) {
	e := newHookEnv(t)
	m := newGenerateModel(t,
		[]toolCall{geminiReplace(e, "src/a.ts", "export const one: number = 1;", `export const one: string = "1";`)},
		nil, // ends the turn: refused, b.ts is broken
		[]toolCall{geminiReplace(e, "src/b.ts", "one + 1", "Number(one) + 1")},
		nil,
	)
	out := e.runGemini(t, m)
	reqs := m.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests of the loop, want 4:\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if got := functionResponse(t, reqs[1], "call_1_0"); got == "" || strings.Contains(got, "error") {
		t.Errorf("the first replace was not applied: %s", got)
	}
	if got := lastUserPrompt(t, reqs[2]); !strings.Contains(got, "the session's changes leave 1 new error in src/b.ts") {
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

// A rename across three files, replace by replace, ends with every file
// right and the end-of-turn check passing at the first try.
func TestGeminiRenameAcrossFiles(t *testing.T) {
	e := newHookEnv(t)
	m := newGenerateModel(t,
		[]toolCall{geminiReplace(e, "src/a.ts", "export const one", "export const uno")},
		[]toolCall{geminiReplace(e, "src/b.ts", "import { one } from \"./a\";\n\nexport const two: number = one + 1;", "import { uno } from \"./a\";\n\nexport const dos: number = uno + 1;")},
		[]toolCall{geminiReplace(e, "src/c.ts", "import { two } from \"./b\";\n\nexport const three: number = two + 1;", "import { dos } from \"./b\";\n\nexport const three: number = dos + 1;")},
		nil,
	)
	out := e.runGemini(t, m)
	reqs := m.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests of the loop, want 4 (a refused end of turn adds one):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	for i, id := range []string{"call_1_0", "call_2_0", "call_3_0"} {
		if got := functionResponse(t, reqs[i+1], id); got == "" || strings.Contains(got, "error") {
			t.Errorf("replace %d was not applied: %s", i+1, got)
		}
	}
	for rel, want := range map[string]string{"src/a.ts": "export const uno", "src/b.ts": "dos: number = uno", "src/c.ts": "dos + 1"} {
		if got := e.read(t, rel); !strings.Contains(got, want) {
			t.Errorf("%s: %q", rel, got)
		}
	}
}

// A replace whose old_string is in the file only up to indentation is
// one Gemini CLI matches loosely, so its result is not known before it is
// written: the pre-edit hook lets it through, Gemini CLI writes it, and
// the AfterTool hook hands the model, with the tool's result, the
// importer the file as written breaks; the model fixes it and the turn
// ends at the first try.
func TestGeminiLooseReplaceCheckedAsWritten(t *testing.T) {
	e := newHookEnv(t)
	m := newGenerateModel(t,
		[]toolCall{geminiReplace(e, "src/a.ts", "    export const one: number = 1;", `    export const one: string = "1";`)},
		[]toolCall{geminiReplace(e, "src/b.ts", "one + 1", "Number(one) + 1")},
		nil,
	)
	out := e.runGemini(t, m)
	if got := e.read(t, "src/a.ts"); !strings.Contains(got, `one: string = "1"`) {
		t.Fatalf("Gemini CLI did not apply the loosely matched replace: %q\n%s", got, out)
	}
	reqs := m.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests of the loop, want 3 (a refused end of turn adds one):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if got := functionResponse(t, reqs[1], "call_1_0"); !strings.Contains(got, "matched loosely") || !strings.Contains(got, "src/b.ts") {
		t.Fatalf("the model was not told what the replace as written breaks: %s\n%s", got, out)
	}
	if got := e.read(t, "src/b.ts"); !strings.Contains(got, "Number(one) + 1") {
		t.Errorf("b.ts: %q", got)
	}
}
