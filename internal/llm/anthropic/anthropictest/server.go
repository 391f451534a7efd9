// Package anthropictest serves the Anthropic Messages API over HTTP from a
// script of assistant turns, with server-sent-event streaming, so the real
// SDK (and the anvil binary, through ANTHROPIC_BASE_URL) can be tested
// without the network. Faults can be injected per request: an error status
// with retry-after, or a stream cut off in the middle of a tool call.
package anthropictest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/anvil-dev/anvil/internal/llm"
)

// Turn is one scripted reply.
type Turn struct {
	Content    []llm.Block
	StopReason string
}

// Fault replaces the answer to one request.
type Fault struct {
	// Status, if set, is returned with an error body (e.g. 529, 429).
	Status     int
	RetryAfter string
	// CutInTool, if set, streams the reply up to the middle of its first
	// tool call's input and then drops the connection.
	CutInTool bool
}

// Server is a fake Messages API.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	turns    []Turn
	faults   map[int]Fault // by request number, from 1
	requests []json.RawMessage
	headers  []http.Header
	// contextLimit, when set, refuses a request over it as the API does
	// ("prompt is too long"), counting a token per 4 bytes of the body.
	contextLimit int
	// summary answers the requests that ask to summarize (Anvil's
	// compaction), outside the script.
	summary string
	// hang makes requests wait, without an answer, until the client
	// leaves (a model that takes its time while the client is killed).
	hang bool
}

// Hang makes every request from now on wait for the client to leave, or
// (with false) answer again.
func (s *Server) Hang(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang = on
}

// LimitContext makes the server refuse requests over tokens tokens (a
// token counted per 4 bytes of the request body), as the API refuses a
// prompt longer than the model's context window.
func (s *Server) LimitContext(tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contextLimit = tokens
}

// Summarize makes the server answer every summarization request (a system
// prompt that asks to compress a history) with text, outside the script.
func (s *Server) Summarize(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summary = text
}

// tokens counts a request body as the server does for its limit.
func tokens(body []byte) int { return len(body) / 4 }

// New starts a server that answers requests with turns, in order.
func New(turns ...Turn) *Server {
	s := &Server{turns: turns, faults: map[int]Fault{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// FailRequest makes request n (from 1) fail with f; the script does not
// advance, so a retry gets the turn the failed request would have.
func (s *Server) FailRequest(n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[n] = f
}

// Requests returns the bodies received so far.
func (s *Server) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests...)
}

// Headers returns the headers of the requests received so far.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"no such endpoint"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, body)
	s.headers = append(s.headers, r.Header.Clone())
	n := len(s.requests)
	if s.hang {
		s.mu.Unlock()
		<-r.Context().Done()
		return
	}
	if s.contextLimit > 0 && tokens(body) > s.contextLimit {
		limit := s.contextLimit
		s.mu.Unlock()
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: %d tokens > %d maximum"}}`, tokens(body), limit)
		return
	}
	if s.summary != "" && bytes.Contains(body, []byte("You are compressing")) {
		text := s.summary
		s.mu.Unlock()
		streamTurn(w, Turn{Content: []llm.Block{llm.Text(text)}}, false, tokens(body))
		return
	}
	fault, faulty := s.faults[n]
	var turn Turn
	exhausted := false
	if !faulty || fault.CutInTool {
		if len(s.turns) == 0 {
			exhausted = true
		} else {
			turn = s.turns[0]
			if !faulty {
				s.turns = s.turns[1:]
			}
		}
	}
	s.mu.Unlock()

	switch {
	case faulty && fault.Status != 0:
		if fault.RetryAfter != "" {
			w.Header().Set("retry-after", fault.RetryAfter)
		}
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(fault.Status)
		kind := "overloaded_error"
		if fault.Status == http.StatusTooManyRequests {
			kind = "rate_limit_error"
		}
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"injected %d"}}`, kind, fault.Status)
		return
	case exhausted:
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"anthropictest: script exhausted"}}`)
		return
	}
	streamTurn(w, turn, faulty && fault.CutInTool, tokens(body))
}

// streamTurn writes turn as the event stream the API sends, reporting
// input tokens.
func streamTurn(w http.ResponseWriter, t Turn, cut bool, input int) {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": input / 5, "output_tokens": 1, "cache_read_input_tokens": input * 3 / 5, "cache_creation_input_tokens": input - input/5 - input*3/5},
	}})
	for i, b := range t.Content {
		switch b.Type {
		case llm.TypeText:
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range split(b.Text, 3) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		case llm.TypeToolUse:
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			input := string(b.Input)
			if input == "" {
				input = "{}"
			}
			parts := split(input, 3)
			for j, piece := range parts {
				if cut && j == len(parts)/2 {
					// Drop the connection mid-input: the client sees a
					// truncated stream.
					if hj, ok := w.(http.Hijacker); ok {
						conn, _, err := hj.Hijack()
						if err == nil {
							conn.Close()
						}
					}
					return
				}
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	stop := t.StopReason
	if stop == "" {
		stop = llm.StopEndTurn
		if len((llm.Message{Content: t.Content}).ToolUses()) > 0 {
			stop = llm.StopToolUse
		}
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 42}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// split cuts s into n pieces of similar length (on byte boundaries that
// keep UTF-8 intact).
func split(s string, n int) []string {
	r := []rune(s)
	if len(r) < n {
		return []string{s}
	}
	var out []string
	size := (len(r) + n - 1) / n
	for i := 0; i < len(r); i += size {
		out = append(out, string(r[i:min(i+size, len(r))]))
	}
	return out
}
