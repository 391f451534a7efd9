// Package openai is the provider for OpenAI-compatible Chat Completions
// APIs, built on the official SDK with a configurable base URL, so it works
// with OpenAI and with local or hosted compatible servers: Ollama
// (http://localhost:11434/v1/), llama.cpp's server, vLLM, LM Studio,
// OpenRouter.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/anvil-dev/anvil/internal/llm"
)

// DefaultModel is used with api.openai.com when no model is named; local
// servers need the model they serve named explicitly.
const DefaultModel = "gpt-5.1"

// Options configure the provider.
type Options struct {
	APIKey  string
	BaseURL string // e.g. http://localhost:11434/v1/
	Model   string
	llm.Retries
	HTTPClient *http.Client
}

// Provider calls a Chat Completions API.
type Provider struct {
	client sdk.Client
	opts   Options
}

// New returns a provider.
func New(opts Options) *Provider {
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	opts.Retries = opts.Retries.WithDefaults()
	key := opts.APIKey
	if key == "" {
		key = "not-needed" // local servers accept any key; the SDK wants one
	}
	reqOpts := []option.RequestOption{option.WithAPIKey(key), option.WithMaxRetries(opts.MaxRetries)}
	if opts.BaseURL != "" {
		base := opts.BaseURL
		if !strings.HasSuffix(base, "/") {
			base += "/"
		}
		reqOpts = append(reqOpts, option.WithBaseURL(base))
	}
	if opts.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	}
	return &Provider{client: sdk.NewClient(reqOpts...), opts: opts}
}

func (p *Provider) Name() string  { return "openai" }
func (p *Provider) Model() string { return p.opts.Model }

// Stream runs one call, retrying a stream that is cut off.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	params := p.params(req)
	return llm.RetryCutOff(ctx, p.opts.StreamRetries, p.opts.Backoff, onDelta, func() (*llm.Response, error) {
		return p.once(ctx, params, onDelta)
	})
}

func (p *Provider) once(ctx context.Context, params sdk.ChatCompletionNewParams, onDelta func(llm.Delta)) (*llm.Response, error) {
	stream := p.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	acc := sdk.ChatCompletionAccumulator{}
	finished := false
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			if ch.Delta.Content != "" {
				onDelta(llm.Delta{Kind: llm.DeltaText, Text: ch.Delta.Content})
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Name != "" {
					onDelta(llm.Delta{Kind: llm.DeltaToolStart, Name: tc.Function.Name})
				}
			}
			if ch.FinishReason != "" {
				finished = true
			}
		}
	}
	if err := stream.Err(); err != nil {
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) && apiErr.StatusCode == 400 && llm.IsContextTooLong(err.Error()) {
			return nil, fmt.Errorf("%w (openai: %v)", llm.ErrContextTooLong, err)
		}
		if errors.As(err, &apiErr) || ctx.Err() != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
		return nil, fmt.Errorf("%w: %v", llm.ErrCutOff, err)
	}
	if !finished || len(acc.Choices) == 0 {
		return nil, llm.ErrCutOff
	}
	choice := acc.Choices[0]
	msg := llm.Message{Role: llm.Assistant}
	if choice.Message.Content != "" {
		msg.Content = append(msg.Content, llm.Text(choice.Message.Content))
	}
	for _, tc := range choice.Message.ToolCalls {
		args := json.RawMessage(tc.Function.Arguments)
		if !json.Valid(args) {
			// Keep what the model sent; the tool answers with an error it
			// can fix, instead of the call vanishing.
			b, _ := json.Marshal(tc.Function.Arguments)
			args = b
		}
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		msg.Content = append(msg.Content, llm.Block{Type: llm.TypeToolUse, ID: tc.ID, Name: tc.Function.Name, Input: args})
	}
	stop := llm.StopEndTurn
	switch choice.FinishReason {
	case "tool_calls", "function_call":
		stop = llm.StopToolUse
	case "length":
		stop = llm.StopMaxTokens
	}
	if len(msg.ToolUses()) > 0 {
		stop = llm.StopToolUse
	}
	u := acc.Usage
	return &llm.Response{Message: msg, StopReason: stop, Model: acc.Model, Usage: llm.Usage{
		InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
		CacheReadTokens: int(u.PromptTokensDetails.CachedTokens),
	}}, nil
}

func (p *Provider) params(req llm.Request) sdk.ChatCompletionNewParams {
	model := req.Model
	if model == "" {
		model = p.opts.Model
	}
	params := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if req.MaxTokens > 0 {
		// max_tokens rather than max_completion_tokens: local servers
		// (llama.cpp, older vLLM) know only the older name.
		params.MaxTokens = sdk.Int(int64(req.MaxTokens))
	}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		params.Messages = append(params.Messages, convertMessage(m)...)
	}
	for _, t := range req.Tools {
		var schema map[string]any
		_ = json.Unmarshal(t.Schema, &schema)
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: sdk.String(t.Description), Parameters: shared.FunctionParameters(schema),
		}))
	}
	return params
}

// convertMessage maps one turn to Chat Completions messages: tool results
// become tool messages (one per call), assistant tool calls become
// tool_calls.
func convertMessage(m llm.Message) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	if m.Role == llm.Assistant {
		a := sdk.ChatCompletionAssistantMessageParam{}
		if text := m.TextContent(); text != "" {
			a.Content.OfString = sdk.String(text)
		}
		for _, b := range m.ToolUses() {
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID: b.ID, Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: string(b.Input)},
			}})
		}
		return append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
	}
	var text strings.Builder
	var images []sdk.ChatCompletionContentPartUnionParam
	for _, b := range m.Content {
		switch b.Type {
		case llm.TypeToolResult:
			content := b.Content
			if b.IsError {
				content = "Error: " + content
			}
			out = append(out, sdk.ToolMessage(content, b.ToolUseID))
		case llm.TypeText:
			text.WriteString(b.Text)
		case llm.TypeImage:
			// Chat Completions takes images as data URLs in a user
			// message's parts.
			images = append(images, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: "data:" + b.MediaType + ";base64," + b.Data}))
		}
	}
	switch {
	case len(images) > 0:
		parts := images
		if text.Len() > 0 {
			parts = append([]sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart(text.String())}, images...)
		}
		out = append(out, sdk.UserMessage(parts))
	case text.Len() > 0:
		out = append(out, sdk.UserMessage(text.String()))
	}
	return out
}
