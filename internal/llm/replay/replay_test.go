package replay

import (
	"context"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/llm"
)

func TestParseErrors(t *testing.T) {
	for script, want := range map[string]string{
		``:               "no turns",
		`{"content":[]}`: "needs content",
		`{"agent":"critic","content":[{"type":"text","text":"x"}]}`: "neither planner nor executor",
		`{"content":[{"type":"image"}]}`:                            `"image" is not text or tool_use`,
		`{"content":[{"type":"tool_use","name":"x"}]}`:              "needs id and name",
		`{"content":[{"type":"text","text":"x"}],"extra":1}`:        "unknown field",
		"// comment\n{not json":                                     "line 2",
	} {
		if _, err := Parse(strings.NewReader(script)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", script, err, want)
		}
	}
}

func TestStreamInOrder(t *testing.T) {
	p, err := Parse(strings.NewReader(`{"agent":"planner","content":[{"type":"text","text":"first reply, long enough to stream in pieces"},{"type":"tool_use","id":"1","name":"read_file","input":{"path":"a"}}]}
{"content":[{"type":"text","text":"second"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	deltas := 0
	resp, err := p.Stream(context.Background(), llm.Request{Agent: "planner"}, func(d llm.Delta) {
		if d.Kind == llm.DeltaText {
			deltas++
			text.WriteString(d.Text)
		}
	})
	if err != nil || resp.StopReason != llm.StopToolUse || text.String() != "first reply, long enough to stream in pieces" || deltas < 2 {
		t.Fatalf("turn 1: %+v %v %q (%d deltas)", resp, err, text.String(), deltas)
	}
	resp, err = p.Stream(context.Background(), llm.Request{Agent: "executor"}, func(llm.Delta) {})
	if err != nil || resp.StopReason != llm.StopEndTurn || p.Remaining() != 0 {
		t.Fatalf("turn 2: %+v %v", resp, err)
	}
	if _, err := p.Stream(context.Background(), llm.Request{Agent: "executor"}, func(llm.Delta) {}); err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("past the end: %v", err)
	}
}
