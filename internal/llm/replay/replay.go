// Package replay is a scripted model: it plays back assistant turns from a
// JSONL file, one turn per line, in the shape of a Messages API response:
//
//	{"agent": "planner", "content": [{"type": "text", "text": "..."},
//	  {"type": "tool_use", "id": "t1", "name": "read_file", "input": {...}}],
//	 "stop_reason": "tool_use"}
//
// "agent" is optional; when present it must match the agent asking, so a
// script that drifts out of step with the run fails loudly instead of
// feeding the Executor the Planner's turns. A turn marked "optional": true
// is played only if its agent asks for it next, and skipped otherwise: a
// revision of the plan that is used only when the user asks for one. Tests
// and 'anvil demo' use it.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/llm"
)

// Turn is one scripted assistant turn.
type Turn struct {
	Agent      string      `json:"agent,omitempty"`
	Content    []llm.Block `json:"content"`
	StopReason string      `json:"stop_reason,omitempty"`
	Usage      *llm.Usage  `json:"usage,omitempty"`
	// Optional turns are skipped when another agent asks (see the package
	// doc); they need an agent.
	Optional bool `json:"optional,omitempty"`
	line     int
}

// Provider plays a script. It is safe for concurrent use, though a script
// is consumed in order.
type Provider struct {
	name  string
	mu    sync.Mutex
	turns []Turn
	next  int
}

// Load reads a script file.
func Load(path string) (*Provider, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay script: %w", err)
	}
	defer f.Close()
	p, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("replay script %s: %w", path, err)
	}
	return p, nil
}

// Parse reads a script: one JSON turn per line; blank lines and lines
// starting with // are skipped.
func Parse(r io.Reader) (*Provider, error) {
	p := &Provider{name: "replay"}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		var t Turn
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := check(t); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		t.line = n
		p.turns = append(p.turns, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(p.turns) == 0 {
		return nil, fmt.Errorf("no turns")
	}
	return p, nil
}

func check(t Turn) error {
	if t.Agent != "" && t.Agent != "planner" && t.Agent != "executor" {
		return fmt.Errorf("agent %q is neither planner nor executor", t.Agent)
	}
	if t.Optional && t.Agent == "" {
		return fmt.Errorf("an optional turn needs an agent")
	}
	if len(t.Content) == 0 {
		return fmt.Errorf("a turn needs content")
	}
	for _, b := range t.Content {
		switch b.Type {
		case llm.TypeText:
		case llm.TypeToolUse:
			if b.ID == "" || b.Name == "" {
				return fmt.Errorf("tool_use needs id and name")
			}
		default:
			return fmt.Errorf("content type %q is not text or tool_use", b.Type)
		}
	}
	return nil
}

func (p *Provider) Name() string  { return p.name }
func (p *Provider) Model() string { return "replay" }

// Serves reports whether the script's next turn for agent is there: the
// next turn is the agent's, or any agent's, once the optional turns of
// other agents are skipped. A replayed run asks before revising a plan,
// since a script cannot write a revision it does not hold.
func (p *Provider) Serves(agent string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := p.next; i < len(p.turns); i++ {
		t := p.turns[i]
		if t.Optional && t.Agent != agent {
			continue
		}
		return t.Agent == "" || t.Agent == agent
	}
	return false
}

// Remaining returns how many turns are left.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.turns) - p.next
}

// Stream returns the next turn, streaming its text in small pieces as a
// model would.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.next >= len(p.turns) {
		p.mu.Unlock()
		return nil, fmt.Errorf("replay script exhausted: the %s asked for turn %d, the script has %d", req.Agent, p.next+1, len(p.turns))
	}
	for p.next < len(p.turns)-1 && p.turns[p.next].Optional && p.turns[p.next].Agent != req.Agent {
		p.next++
	}
	t := p.turns[p.next]
	if t.Agent != "" && req.Agent != "" && t.Agent != req.Agent {
		p.mu.Unlock()
		return nil, fmt.Errorf("replay script line %d is for the %s, but the %s is asking", t.line, t.Agent, req.Agent)
	}
	p.next++
	p.mu.Unlock()

	for _, b := range t.Content {
		switch b.Type {
		case llm.TypeText:
			for _, piece := range chunks(b.Text, 24) {
				onDelta(llm.Delta{Kind: llm.DeltaText, Text: piece})
			}
		case llm.TypeToolUse:
			onDelta(llm.Delta{Kind: llm.DeltaToolStart, Name: b.Name})
		}
	}
	stop := t.StopReason
	if stop == "" {
		stop = llm.StopEndTurn
		if len((llm.Message{Content: t.Content}).ToolUses()) > 0 {
			stop = llm.StopToolUse
		}
	}
	usage := llm.Usage{}
	if t.Usage != nil {
		usage = *t.Usage
	} else {
		usage = estimateUsage(req, t)
	}
	content := make([]llm.Block, len(t.Content))
	copy(content, t.Content)
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: content}, StopReason: stop, Usage: usage, Model: "replay"}, nil
}

// estimateUsage counts about four characters a token, so a replayed run
// shows plausible token counts.
func estimateUsage(req llm.Request, t Turn) llm.Usage {
	in := len(req.System)
	for _, m := range req.Messages {
		for _, b := range m.Content {
			in += len(b.Text) + len(b.Content) + len(b.Input)
		}
	}
	out := 0
	for _, b := range t.Content {
		out += len(b.Text) + len(b.Input)
	}
	return llm.Usage{InputTokens: in / 4, OutputTokens: out / 4}
}

func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := strings.LastIndexByte(s[:n], ' ')
		if cut <= 0 {
			cut = n
		}
		out = append(out, s[:cut+1])
		s = s[cut+1:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// Turns returns the script's turns, for serving them through another
// wire protocol in tests.
func (p *Provider) Turns() []Turn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Turn(nil), p.turns...)
}
