package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/anthropic/anthropictest"
)

func toolTurn() anthropictest.Turn {
	return anthropictest.Turn{Content: []llm.Block{
		llm.Text("Reading the file."),
		{Type: llm.TypeToolUse, ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"path":"src/db.ts","start_line":1}`)},
	}}
}

func request() llm.Request {
	return llm.Request{
		Agent: "planner", System: "You plan.", MaxTokens: 1000,
		Tools: []llm.ToolDef{{Name: "read_file", Description: "read", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
		Messages: []llm.Message{
			{Role: llm.User, Content: []llm.Block{llm.Text("rename User")}},
			{Role: llm.Assistant, Content: []llm.Block{{Type: llm.TypeToolUse, ID: "toolu_0", Name: "read_file", Input: json.RawMessage(`{"path":"a.ts"}`)}}},
			{Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_0", "1 line", false)}},
		},
	}
}

func newProvider(srv *anthropictest.Server) *Provider {
	return New(Options{APIKey: "test-key", BaseURL: srv.URL, Model: "claude-test", Retries: llm.Retries{Backoff: func(int) time.Duration { return time.Millisecond }}})
}

func TestStreamToolUse(t *testing.T) {
	srv := anthropictest.New(toolTurn())
	defer srv.Close()
	var text strings.Builder
	var started []string
	resp, err := newProvider(srv).Stream(context.Background(), request(), func(d llm.Delta) {
		switch d.Kind {
		case llm.DeltaText:
			text.WriteString(d.Text)
		case llm.DeltaToolStart:
			started = append(started, d.Name)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "Reading the file." || len(started) != 1 || started[0] != "read_file" {
		t.Errorf("deltas: %q %v", text.String(), started)
	}
	calls := resp.Message.ToolUses()
	if resp.StopReason != llm.StopToolUse || len(calls) != 1 || string(calls[0].Input) != `{"path":"src/db.ts","start_line":1}` {
		t.Fatalf("response: %+v", resp)
	}
	// The server counts a token per 4 bytes of the request, three fifths
	// of them read from the cache.
	sent := srv.Requests()[0]
	if u := resp.Usage; u.CacheReadTokens != len(sent)/4*3/5 || u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens != len(sent)/4 || u.OutputTokens != 42 {
		t.Errorf("usage: %+v for a request of %d bytes", resp.Usage, len(sent))
	}

	// What went over the wire: key, tools, and cache breakpoints on the
	// system prompt, the last tool and the last message.
	h := srv.Headers()[0]
	if h.Get("x-api-key") != "test-key" && h.Get("authorization") != "Bearer test-key" {
		t.Errorf("no api key in headers: %v", h)
	}
	var body map[string]any
	json.Unmarshal(srv.Requests()[0], &body)
	if body["stream"] != true || body["model"] != "claude-test" {
		t.Errorf("body: stream=%v model=%v", body["stream"], body["model"])
	}
	raw := string(srv.Requests()[0])
	if strings.Count(raw, `"cache_control":{"type":"ephemeral"}`) != 3 {
		t.Errorf("want 3 cache breakpoints:\n%s", raw)
	}
	if !strings.Contains(raw, `"additionalProperties":false`) || !strings.Contains(raw, `"tool_use_id":"toolu_0"`) {
		t.Errorf("schema extras or tool result missing:\n%s", raw)
	}
}

// A 529 (overloaded) answer is retried, honouring retry-after.
func TestRetryOverloaded(t *testing.T) {
	for _, status := range []int{529, http.StatusTooManyRequests, http.StatusInternalServerError} {
		srv := anthropictest.New(toolTurn())
		srv.FailRequest(1, anthropictest.Fault{Status: status, RetryAfter: "0"})
		resp, err := newProvider(srv).Stream(context.Background(), request(), func(llm.Delta) {})
		srv.Close()
		if err != nil {
			t.Fatalf("%d: %v", status, err)
		}
		if len(srv.Requests()) != 2 || len(resp.Message.ToolUses()) != 1 {
			t.Errorf("%d: %d requests, response %+v", status, len(srv.Requests()), resp)
		}
	}
}

// A stream cut in the middle of a tool call is retried, and the partial
// output is dropped (a retry delta tells the renderer).
func TestRetryCutStream(t *testing.T) {
	srv := anthropictest.New(toolTurn())
	defer srv.Close()
	srv.FailRequest(1, anthropictest.Fault{CutInTool: true})
	retries := 0
	resp, err := newProvider(srv).Stream(context.Background(), request(), func(d llm.Delta) {
		if d.Kind == llm.DeltaRetry {
			retries++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if retries != 1 || len(srv.Requests()) != 2 || string(resp.Message.ToolUses()[0].Input) != `{"path":"src/db.ts","start_line":1}` {
		t.Fatalf("retries=%d requests=%d resp=%+v", retries, len(srv.Requests()), resp)
	}
}

// When every attempt is cut off the call fails cleanly.
func TestCutStreamGivesUp(t *testing.T) {
	srv := anthropictest.New(toolTurn())
	defer srv.Close()
	for i := 1; i <= 3; i++ {
		srv.FailRequest(i, anthropictest.Fault{CutInTool: true})
	}
	_, err := newProvider(srv).Stream(context.Background(), request(), func(llm.Delta) {})
	if err == nil || !strings.Contains(err.Error(), "cut off") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("requests = %d, want 3 (1 + 2 retries)", len(srv.Requests()))
	}
}

// A request error the API will not change its mind about is not retried.
// A request longer than the context window comes back as
// llm.ErrContextTooLong, which the loop compacts for; and an image reaches
// the API as an image block.
func TestContextTooLongAndImages(t *testing.T) {
	srv := anthropictest.New(toolTurn())
	defer srv.Close()
	req := request()
	req.Messages[0].Content = append(req.Messages[0].Content, llm.Image("image/png", "iVBORw0KGgo="))
	srv.LimitContext(50)
	_, err := newProvider(srv).Stream(context.Background(), req, func(llm.Delta) {})
	if !errors.Is(err, llm.ErrContextTooLong) || !strings.Contains(err.Error(), "prompt is too long") {
		t.Fatalf("err = %v", err)
	}
	srv.LimitContext(0)
	if _, err := newProvider(srv).Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	last := string(srv.Requests()[len(srv.Requests())-1])
	if !strings.Contains(last, `"type":"image"`) || !strings.Contains(last, `"media_type":"image/png"`) || !strings.Contains(last, `"data":"iVBORw0KGgo="`) {
		t.Fatalf("the image did not reach the API:\n%s", last)
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	srv := anthropictest.New() // empty script: 400
	defer srv.Close()
	_, err := newProvider(srv).Stream(context.Background(), request(), func(llm.Delta) {})
	if err == nil || !strings.Contains(err.Error(), "script exhausted") || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v, %d requests", err, len(srv.Requests()))
	}
}
