// Package anthropic is the Anthropic Messages API provider, built on the
// official SDK: streaming, tool use, prompt caching of the system prompt,
// the tools and the recent turns, and retries.
//
// Rate limits (429), overload (529) and server errors (5xx) are retried by
// the SDK, which honours retry-after; a stream cut off before the message
// ends is retried here, with the partial output dropped.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/anvil-dev/anvil/internal/llm"
)

// DefaultModel is used when neither the flag nor the config names one.
const DefaultModel = sdk.ModelClaudeSonnet5_5

// Options configure the provider.
type Options struct {
	APIKey  string
	BaseURL string // ANTHROPIC_BASE_URL, or a proxy
	Model   string
	llm.Retries
	HTTPClient *http.Client
}

// Provider calls the Messages API.
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
	reqOpts := []option.RequestOption{option.WithAPIKey(opts.APIKey), option.WithMaxRetries(opts.MaxRetries)}
	if opts.BaseURL != "" {
		reqOpts = append(reqOpts, option.WithBaseURL(opts.BaseURL))
	}
	if opts.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	}
	return &Provider{client: sdk.NewClient(reqOpts...), opts: opts}
}

func (p *Provider) Name() string  { return "anthropic" }
func (p *Provider) Model() string { return p.opts.Model }

// Stream runs one call.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	return llm.RetryCutOff(ctx, p.opts.StreamRetries, p.opts.Backoff, onDelta, func() (*llm.Response, error) {
		return p.once(ctx, params, onDelta)
	})
}

func (p *Provider) once(ctx context.Context, params sdk.MessageNewParams, onDelta func(llm.Delta)) (*llm.Response, error) {
	stream := p.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var msg sdk.Message
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return nil, fmt.Errorf("%w: %v", llm.ErrCutOff, err)
		}
		switch e := ev.AsAny().(type) {
		case sdk.ContentBlockStartEvent:
			if tu, ok := e.ContentBlock.AsAny().(sdk.ToolUseBlock); ok {
				onDelta(llm.Delta{Kind: llm.DeltaToolStart, Name: tu.Name})
			}
		case sdk.ContentBlockDeltaEvent:
			if d, ok := e.Delta.AsAny().(sdk.TextDelta); ok {
				onDelta(llm.Delta{Kind: llm.DeltaText, Text: d.Text})
			}
		case sdk.MessageStopEvent:
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) && apiErr.StatusCode == 400 && llm.IsContextTooLong(err.Error()) {
			return nil, fmt.Errorf("%w (anthropic: %v)", llm.ErrContextTooLong, err)
		}
		if errors.As(err, &apiErr) || ctx.Err() != nil {
			return nil, fmt.Errorf("anthropic: %w", err)
		}
		return nil, fmt.Errorf("%w: %v", llm.ErrCutOff, err)
	}
	if !stopped {
		return nil, llm.ErrCutOff
	}
	return convert(msg)
}

func convert(msg sdk.Message) (*llm.Response, error) {
	out := llm.Message{Role: llm.Assistant}
	for _, b := range msg.Content {
		switch v := b.AsAny().(type) {
		case sdk.TextBlock:
			out.Content = append(out.Content, llm.Text(v.Text))
		case sdk.ToolUseBlock:
			input := json.RawMessage(v.Input)
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			out.Content = append(out.Content, llm.Block{Type: llm.TypeToolUse, ID: v.ID, Name: v.Name, Input: input})
		}
	}
	u := msg.Usage
	return &llm.Response{
		Message:    out,
		StopReason: string(msg.StopReason),
		Model:      string(msg.Model),
		Usage: llm.Usage{
			InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens),
			CacheReadTokens: int(u.CacheReadInputTokens), CacheWriteTokens: int(u.CacheCreationInputTokens),
		},
	}, nil
}

// params builds the request. Cache breakpoints go on the system prompt, the
// last tool (caching every tool definition) and the last block of the
// conversation, so each turn reads the previous turns from the cache.
func (p *Provider) params(req llm.Request) (sdk.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.opts.Model
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = 8192
	}
	params := sdk.MessageNewParams{Model: sdk.Model(model), MaxTokens: int64(maxTokens)}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for i, t := range req.Tools {
		var schema map[string]any
		if err := json.Unmarshal(t.Schema, &schema); err != nil {
			return params, fmt.Errorf("tool %s: schema: %w", t.Name, err)
		}
		var required []string
		if list, ok := schema["required"].([]any); ok {
			for _, r := range list {
				if s, ok := r.(string); ok {
					required = append(required, s)
				}
			}
		}
		extra := map[string]any{}
		for k, v := range schema {
			if k != "properties" && k != "required" && k != "type" {
				extra[k] = v
			}
		}
		tool := sdk.ToolParam{Name: t.Name, Description: sdk.String(t.Description),
			InputSchema: sdk.ToolInputSchemaParam{Properties: schema["properties"], Required: required, ExtraFields: extra}}
		if i == len(req.Tools)-1 {
			tool.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	for i, m := range req.Messages {
		var blocks []sdk.ContentBlockParamUnion
		for _, b := range m.Content {
			switch b.Type {
			case llm.TypeText:
				blocks = append(blocks, sdk.NewTextBlock(b.Text))
			case llm.TypeToolUse:
				var input any = map[string]any{}
				if len(b.Input) > 0 {
					input = json.RawMessage(b.Input)
				}
				blocks = append(blocks, sdk.NewToolUseBlock(b.ID, input, b.Name))
			case llm.TypeToolResult:
				blocks = append(blocks, sdk.NewToolResultBlock(b.ToolUseID, b.Content, b.IsError))
			case llm.TypeImage:
				blocks = append(blocks, sdk.NewImageBlockBase64(b.MediaType, b.Data))
			}
		}
		if i == len(req.Messages)-1 && len(blocks) > 0 {
			setCache(&blocks[len(blocks)-1])
		}
		if m.Role == llm.Assistant {
			params.Messages = append(params.Messages, sdk.NewAssistantMessage(blocks...))
		} else {
			params.Messages = append(params.Messages, sdk.NewUserMessage(blocks...))
		}
	}
	return params, nil
}

func setCache(b *sdk.ContentBlockParamUnion) {
	cc := sdk.NewCacheControlEphemeralParam()
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = cc
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cc
	case b.OfToolUse != nil:
		b.OfToolUse.CacheControl = cc
	}
}
