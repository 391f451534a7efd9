// Package llm is the provider-neutral interface to language models: the
// message and tool shapes the agent loop speaks, one small Provider
// interface, and token and cost accounting. Each provider lives in its own
// subpackage (anthropic, openai, replay) so that packages and tests that do
// not talk to a model never compile an SDK.
package llm

import (
	"context"
	"encoding/json"
)

// Role is who wrote a message.
type Role string

// Roles.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// Block types.
const (
	TypeText       = "text"
	TypeToolUse    = "tool_use"
	TypeToolResult = "tool_result"
	TypeImage      = "image"
)

// Block is one piece of a message: text, a tool call from the model, or a
// tool result sent back to it.
type Block struct {
	Type string `json:"type"`
	// Text is the text of a text block.
	Text string `json:"text,omitempty"`
	// ID, Name and Input describe a tool call.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// ToolUseID, Content and IsError describe a tool result.
	ToolUseID string `json:"tool_use_id,omitempty"`
	Content   string `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
	// MediaType and Data describe an image: "image/png" and the bytes,
	// base64-encoded.
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
}

// Image returns an image block of data (base64) of mediaType.
func Image(mediaType, data string) Block {
	return Block{Type: TypeImage, MediaType: mediaType, Data: data}
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: TypeText, Text: s} }

// ToolResult returns a tool result block.
func ToolResult(id, content string, isError bool) Block {
	return Block{Type: TypeToolResult, ToolUseID: id, Content: content, IsError: isError}
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// ToolUses returns the message's tool calls.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == TypeToolUse {
			out = append(out, b)
		}
	}
	return out
}

// TextContent returns the message's text blocks joined.
func (m Message) TextContent() string {
	s := ""
	for _, b := range m.Content {
		if b.Type == TypeText {
			s += b.Text
		}
	}
	return s
}

// ToolDef is a tool as the model sees it.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Request is one model call.
type Request struct {
	// Agent names the caller ("planner", "executor"); the replay provider
	// checks it against its script.
	Agent     string
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolDef
	MaxTokens int
}

// Stop reasons, as the Messages API names them; other providers map theirs.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
)

// Response is a completed model turn.
type Response struct {
	Message    Message
	StopReason string
	Usage      Usage
	Model      string
}

// Usage counts tokens of one call.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.InputTokens + v.InputTokens, u.OutputTokens + v.OutputTokens, u.CacheReadTokens + v.CacheReadTokens, u.CacheWriteTokens + v.CacheWriteTokens}
}

// Delta kinds.
const (
	DeltaText      = "text"       // Text holds more of the reply
	DeltaToolStart = "tool_start" // Name is a tool the model began to call
	DeltaRetry     = "retry"      // the call is being retried; drop partial output
)

// Delta is a piece of a streaming reply.
type Delta struct {
	Kind string
	Text string
	Name string
}

// Provider is a model behind an API (or a script).
type Provider interface {
	// Name identifies the provider ("anthropic", "openai", "replay").
	Name() string
	// Model returns the model used when a request names none.
	Model() string
	// Stream runs one call, reporting pieces of the reply to onDelta as
	// they arrive, and returns the whole turn. Transient failures (rate
	// limits, overload, a stream cut off) are retried inside; the error
	// returned is final.
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
}
