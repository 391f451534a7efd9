package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/llm"
)

// chatServer speaks the Chat Completions streaming protocol, as Ollama and
// llama.cpp do under /v1/chat/completions.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   []string
	failures int // answer this many requests with 503 first
}

func newChatServer(t *testing.T) *chatServer {
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		fail := s.failures > 0
		if fail {
			s.failures--
		}
		s.mu.Unlock()
		if fail {
			w.Header().Set("retry-after", "0")
			http.Error(w, `{"error":{"message":"busy","type":"server_error"}}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("content-type", "text/event-stream")
		chunk := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		base := map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "qwen2.5-coder"}
		with := func(choices any, extra ...any) map[string]any {
			m := map[string]any{}
			for k, v := range base {
				m[k] = v
			}
			m["choices"] = choices
			if len(extra) == 2 {
				m[extra[0].(string)] = extra[1]
			}
			return m
		}
		chunk(with([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": "Let me "}}}))
		chunk(with([]any{map[string]any{"index": 0, "delta": map[string]any{"content": "look."}}}))
		chunk(with([]any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": "read_file", "arguments": ""}}}}}}))
		for _, part := range []string{`{"path":`, `"src/db.ts"}`} {
			chunk(with([]any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": part}}}}}}))
		}
		chunk(with([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "tool_calls"}}))
		chunk(with([]any{}, "usage", map[string]any{"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}))
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(s.Close)
	return s
}

func TestStreamToolCall(t *testing.T) {
	srv := newChatServer(t)
	srv.failures = 1
	p := New(Options{BaseURL: srv.URL + "/v1", Model: "qwen2.5-coder", Retries: llm.Retries{Backoff: func(int) time.Duration { return time.Millisecond }}})
	var text strings.Builder
	resp, err := p.Stream(context.Background(), llm.Request{
		System: "You plan.",
		Tools:  []llm.ToolDef{{Name: "read_file", Description: "read", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			{Role: llm.User, Content: []llm.Block{llm.Text("go")}},
			{Role: llm.Assistant, Content: []llm.Block{llm.Text("ok"), {Type: llm.TypeToolUse, ID: "call_0", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}}},
			{Role: llm.User, Content: []llm.Block{llm.ToolResult("call_0", "no such file", true)}},
		},
	}, func(d llm.Delta) {
		if d.Kind == llm.DeltaText {
			text.WriteString(d.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "Let me look." {
		t.Errorf("text = %q", text.String())
	}
	calls := resp.Message.ToolUses()
	if resp.StopReason != llm.StopToolUse || len(calls) != 1 || calls[0].ID != "call_1" || string(calls[0].Input) != `{"path":"src/db.ts"}` {
		t.Fatalf("response %+v", resp)
	}
	if resp.Usage.InputTokens != 50 || resp.Usage.OutputTokens != 9 {
		t.Errorf("usage %+v", resp.Usage)
	}
	if len(srv.bodies) != 2 {
		t.Fatalf("the 503 was not retried: %d requests", len(srv.bodies))
	}
	body := srv.bodies[1]
	for _, want := range []string{`"role":"system"`, `"tool_call_id":"call_0"`, `"Error: no such file"`, `"tool_calls":[{"id":"call_0"`, `"include_usage":true`, `"model":"qwen2.5-coder"`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s:\n%s", want, body)
		}
	}
}

// An image reaches Chat Completions as a data URL in the user message's
// parts.
func TestImageAsDataURL(t *testing.T) {
	srv := newChatServer(t)
	p := New(Options{BaseURL: srv.URL + "/v1", Model: "gpt-4o"})
	_, err := p.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: []llm.Block{llm.Text("what is wrong here?"), llm.Image("image/png", "iVBORw0KGgo=")}}}}, func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	body := srv.bodies[0]
	for _, want := range []string{`"type":"image_url"`, `"url":"data:image/png;base64,iVBORw0KGgo="`, `"text":"what is wrong here?"`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s:\n%s", want, body)
		}
	}
}
