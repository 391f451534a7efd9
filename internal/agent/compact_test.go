package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/tools"
)

// windowedModel behaves like an API with a context window: a request over
// limit tokens (counted as the real APIs roughly do, here a byte per 3.5)
// is refused as too long. It reads a file per turn for turns turns, then
// ends; a summarization request gets a summary naming what it saw.
type windowedModel struct {
	limit, turns int

	mu       sync.Mutex
	n        int
	refused  int
	biggest  int
	requests []llm.Request
}

func (m *windowedModel) Name() string  { return "windowed" }
func (m *windowedModel) Model() string { return "windowed-model" }

func (m *windowedModel) tokens(req llm.Request) int {
	n := len(req.System)
	for _, msg := range req.Messages {
		n += llm.MessageBytes(msg)
	}
	return n * 2 / 7
}

func (m *windowedModel) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	tok := m.tokens(req)
	if tok > m.limit {
		m.refused++
		return nil, fmt.Errorf("%w (prompt is too long: %d tokens > %d maximum)", llm.ErrContextTooLong, tok, m.limit)
	}
	m.biggest = max(m.biggest, tok)
	usage := llm.Usage{InputTokens: tok, OutputTokens: 10}
	if req.System == summaryPrompt {
		return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text("SUMMARY: read chunks so far; the answer is in chunk 7.")}}, Usage: usage}, nil
	}
	m.n++
	if m.n > m.turns {
		return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text("done")}}, Usage: usage}, nil
	}
	call := llm.Block{Type: llm.TypeToolUse, ID: fmt.Sprint("c", m.n), Name: "echo", Input: []byte(fmt.Sprintf(`{"text":"chunk %d "}`, m.n))}
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text(fmt.Sprint("reading chunk ", m.n)), call}}, Usage: usage}, nil
}

// bigEcho answers with a large result, as read_file of a big file does.
type bigEcho struct{}

func (bigEcho) Name() string        { return "echo" }
func (bigEcho) Description() string { return "echo text, many times" }
func (bigEcho) Run(_ context.Context, p echoParams) (tools.Result, error) {
	return tools.Result{Output: strings.Repeat(p.Text, 900)}, nil
}

// A run of 60 turns, each adding about 3,000 tokens, passes a 20,000-token
// window several times over: the loop compacts, the provider never gets a
// request over the window (or, once refused, the loop compacts and asks
// again), and the run ends normally with the request and what is pinned
// intact.
func TestLoopStaysInsideTheContextWindow(t *testing.T) {
	model := &windowedModel{limit: 20_000, turns: 60}
	rec := &event.Recorder{}
	pinned := "STAGED: src/a.ts (the pinned state)"
	l := Loop{Agent: "executor", Provider: model, Events: rec, Tools: tools.NewSet(tools.Adapt[echoParams](bigEcho{})),
		ContextWindow: 20_000, Pinned: func() string { return pinned }}
	task := "THE REQUEST: read every chunk"
	msgs, outcome, err := l.Run(context.Background(), []llm.Message{{Role: llm.User, Content: []llm.Block{llm.Text(task)}}})
	if err != nil || outcome != EndTurn {
		t.Fatalf("outcome %v, err %v", outcome, err)
	}
	if model.n != 61 {
		t.Fatalf("the model was asked %d times for work, want 61", model.n)
	}
	var compactions []event.Compaction
	for _, e := range rec.Events() {
		if c, ok := e.(event.Compaction); ok {
			compactions = append(compactions, c)
		}
	}
	if len(compactions) < 2 {
		t.Fatalf("%d compactions for a run of several windows", len(compactions))
	}
	summarized := false
	for _, c := range compactions {
		if c.TokensAfter >= c.TokensBefore || c.Window != 20_000 {
			t.Errorf("a compaction that did not shrink: %+v", c)
		}
		summarized = summarized || c.Summarized > 0
	}
	if !summarized {
		t.Error("no compaction summarized: shrinking alone cannot hold 60 turns")
	}
	first := msgs[0].TextContent()
	if !strings.HasPrefix(first, task) || !strings.Contains(first, "SUMMARY:") || !strings.Contains(first, pinned) {
		t.Errorf("the first message after compaction:\n%s", first)
	}
	if model.biggest > model.limit {
		t.Errorf("a request of %d tokens went through a window of %d", model.biggest, model.limit)
	}
}

// A provider that refuses a request as too long, though the loop's
// estimate said it fit, gets a compacted request instead of failing the
// run.
func TestTooLongIsCompactedAndRetried(t *testing.T) {
	// The window the loop believes in is larger than the provider's.
	model := &windowedModel{limit: 12_000, turns: 12}
	rec := &event.Recorder{}
	l := Loop{Agent: "planner", Provider: model, Events: rec, Tools: tools.NewSet(tools.Adapt[echoParams](bigEcho{})), ContextWindow: 60_000}
	_, outcome, err := l.Run(context.Background(), []llm.Message{{Role: llm.User, Content: []llm.Block{llm.Text("go")}}})
	if err != nil || outcome != EndTurn {
		t.Fatalf("outcome %v, err %v", outcome, err)
	}
	if model.refused == 0 {
		t.Fatal("the provider never refused: the case shows nothing")
	}
	tooLong := false
	for _, e := range rec.Events() {
		if c, ok := e.(event.Compaction); ok && c.Why == "too_long" {
			tooLong = true
		}
	}
	if !tooLong {
		t.Error("no compaction for a refused request")
	}
}
