package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/replay"
	"github.com/anvil-dev/anvil/internal/tools"
)

type echoParams struct {
	Text string `json:"text"`
}

type echoTool struct{}

func (echoTool) Name() string        { return "echo" }
func (echoTool) Description() string { return "echo text" }
func (echoTool) Run(_ context.Context, p echoParams) (tools.Result, error) {
	return tools.Result{Output: strings.Repeat(p.Text, 1)}, nil
}

func script(t *testing.T, lines ...string) llm.Provider {
	t.Helper()
	p, err := replay.Parse(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoopDispatch(t *testing.T) {
	rec := &event.Recorder{}
	l := Loop{
		Agent: "planner", Events: rec, Tools: tools.NewSet(tools.Adapt[echoParams](echoTool{})), MaxResultChars: 100,
		Provider: script(t,
			`{"content":[{"type":"tool_use","id":"1","name":"echo","input":{"text":"hi"}},{"type":"tool_use","id":"2","name":"echo","input":{"txt":1}},{"type":"tool_use","id":"3","name":"delete_everything","input":{}}]}`,
			`{"content":[{"type":"tool_use","id":"4","name":"echo","input":{"text":"`+strings.Repeat("x", 500)+`"}}]}`,
			`{"content":[{"type":"text","text":"done"}]}`,
		),
	}
	msgs, outcome, err := l.Run(context.Background(), []llm.Message{{Role: llm.User, Content: []llm.Block{llm.Text("go")}}})
	if err != nil || outcome != EndTurn {
		t.Fatalf("outcome %v, err %v", outcome, err)
	}
	results := msgs[2].Content
	if results[0].IsError || results[0].Content != "hi" {
		t.Errorf("echo: %+v", results[0])
	}
	if !results[1].IsError || !strings.Contains(results[1].Content, "invalid arguments") {
		t.Errorf("malformed arguments should be a tool error: %+v", results[1])
	}
	if !results[2].IsError || !strings.Contains(results[2].Content, `"delete_everything" is not available to the planner`) {
		t.Errorf("unknown tool: %+v", results[2])
	}
	if capped := msgs[4].Content[0].Content; len(capped) > 200 || !strings.Contains(capped, "result cut at") {
		t.Errorf("result not capped: %d chars", len(capped))
	}
	var deltas strings.Builder
	for _, e := range rec.Events() {
		if d, ok := e.(event.MessageDelta); ok {
			deltas.WriteString(d.Text)
		}
	}
	if deltas.String() != "done" {
		t.Errorf("streamed text = %q", deltas.String())
	}
}

func TestLoopMaxTurns(t *testing.T) {
	turn := `{"content":[{"type":"tool_use","id":"1","name":"echo","input":{"text":"again"}}]}`
	l := Loop{Agent: "executor", Events: event.Discard{}, MaxTurns: 2, Tools: tools.NewSet(tools.Adapt[echoParams](echoTool{})),
		Provider: script(t, turn, turn, turn)}
	_, _, err := l.Run(context.Background(), nil)
	if !errors.Is(err, ErrMaxTurns) {
		t.Fatalf("err = %v", err)
	}
}

func TestReplayAgentMismatch(t *testing.T) {
	l := Loop{Agent: "executor", Events: event.Discard{}, Tools: tools.NewSet(), Provider: script(t, `{"agent":"planner","content":[{"type":"text","text":"x"}]}`)}
	_, _, err := l.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "is for the planner, but the executor is asking") {
		t.Fatalf("err = %v", err)
	}
}

func TestClosestLines(t *testing.T) {
	text := "function a() {\n  return users.get(id);\n}\n"
	msg := closestLines(text, "return user.get(id);")
	if !strings.Contains(msg, "     2\t  return users.get(id);") {
		t.Errorf("closest line not shown:\n%s", msg)
	}
	if msg := closestLines(text, "function a() {\nreturn users.get(id);"); !strings.Contains(msg, "whitespace") {
		t.Errorf("whitespace-only difference not explained: %s", msg)
	}
}
