package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// chatModel serves the OpenAI Chat Completions API (POST
// /v1/chat/completions, streamed or not) to a real client (OpenCode,
// Copilot CLI): each request that offers tools (the agent's loop) gets
// the next step of the script, tool calls or, for a nil step, a closing
// text; other requests (a title) get a short text. It keeps the loop's
// request bodies.
type chatModel struct {
	*httptest.Server
	mu    sync.Mutex
	steps [][]toolCall
	loop  []string
	n     int
}

func newChatModel(t *testing.T, steps ...[]toolCall) *chatModel {
	m := &chatModel{steps: steps}
	m.Server = httptest.NewServer(http.HandlerFunc(m.handle))
	t.Cleanup(m.Close)
	return m
}

func (m *chatModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.loop...)
}

func (m *chatModel) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("content-type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"test-model","object":"model","created":0,"owned_by":"test"}]}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model  string            `json:"model"`
		Tools  []json.RawMessage `json:"tools"`
		Stream bool              `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	var step []toolCall
	text := "ok"
	m.mu.Lock()
	m.n++
	n := m.n
	if len(req.Tools) > 0 {
		if len(m.loop) >= maxScriptedRequests {
			m.mu.Unlock()
			http.Error(w, "past the script", http.StatusBadRequest)
			return
		}
		m.loop = append(m.loop, string(body))
		if len(m.steps) > 0 {
			step, m.steps = m.steps[0], m.steps[1:]
		}
		if step == nil {
			text = "Done."
		}
	}
	m.mu.Unlock()
	writeChat(w, n, req.Model, text, step, req.Stream)
}

// writeChat answers as the API does: chunks of an event stream ending in
// [DONE], or one chat.completion object.
func writeChat(w http.ResponseWriter, n int, model, text string, calls []toolCall, stream bool) {
	id := fmt.Sprintf("chatcmpl-%d", n)
	var tcs []map[string]any
	for i, c := range calls {
		args, _ := json.Marshal(c.input)
		tcs = append(tcs, map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": c.name, "arguments": string(args)}})
	}
	finish := "stop"
	if calls != nil {
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if calls == nil {
			msg["content"] = text
		} else {
			msg["tool_calls"] = tcs
		}
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	if calls == nil {
		chunk(map[string]any{"role": "assistant", "content": text}, nil, nil)
	} else {
		chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}, nil, nil)
	}
	chunk(map[string]any{}, finish, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
