package llm

import (
	"errors"
	"strings"
)

// ErrContextTooLong marks a request the provider refused because the
// conversation no longer fits the model's context window (Anthropic's
// "prompt is too long", OpenAI's context_length_exceeded). The loop
// compacts the conversation and asks again.
var ErrContextTooLong = errors.New("the conversation is longer than the model's context window")

// IsContextTooLong reports whether an API error's message says the
// request does not fit the context window, in the words of the providers
// Anvil speaks to (and of the local servers that mimic them).
func IsContextTooLong(message string) bool {
	m := strings.ToLower(message)
	for _, s := range []string{"prompt is too long", "context_length_exceeded", "maximum context length", "context window", "too many tokens"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// DefaultContextWindow is assumed for a model Anvil does not know.
const DefaultContextWindow = 128_000

// contextWindows are the models' context windows in tokens, by name prefix
// (the longest matching prefix wins).
var contextWindows = map[string]int{
	"claude-":       200_000,
	"gpt-4o":        128_000,
	"gpt-4.1":       1_047_576,
	"gpt-5":         400_000,
	"o3":            200_000,
	"o4-mini":       200_000,
	"qwen2.5-coder": 32_768,
	"llama3":        8_192,
	"replay":        200_000,
}

// ContextWindow returns model's context window in tokens: configured (when
// positive), else known by name, else [DefaultContextWindow].
func ContextWindow(model string, configured int) int {
	if configured > 0 {
		return configured
	}
	best, window := "", DefaultContextWindow
	for prefix, n := range contextWindows {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, window = prefix, n
		}
	}
	return window
}

// EstimateTokens estimates the tokens a request takes: about four bytes a
// token for English and code, counted over what the provider is sent.
// The loop corrects it with the usage the provider reports.
func EstimateTokens(req Request) int {
	n := len(req.System)
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	for _, m := range req.Messages {
		n += MessageBytes(m)
	}
	return n / 4
}

// MessageBytes is the size of a message as sent.
func MessageBytes(m Message) int {
	n := 0
	for _, b := range m.Content {
		n += len(b.Text) + len(b.Content) + len(b.Input) + len(b.Name) + 16
		if b.Type == TypeImage {
			n += imageBytes // providers bill an image by its size on screen, not its bytes
		}
	}
	return n
}

// imageBytes stands for an image in estimates: about 1,600 tokens, what a
// screenshot of a usual size costs.
const imageBytes = 6400

// visionModels are the model name prefixes that take images, by provider
// (Anthropic's models all do).
var visionModels = map[string][]string{
	"openai": {"gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4", "llava", "qwen2.5-vl", "qwen-vl", "gemma3", "llama3.2-vision"},
}

// TakesImages reports whether provider's model takes images as input.
// The replay provider takes what its script was recorded with.
func TakesImages(provider, model string) bool {
	switch provider {
	case "anthropic", "replay":
		return true
	}
	for _, p := range visionModels[provider] {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}
