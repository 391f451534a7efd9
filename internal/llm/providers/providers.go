// Package providers chooses and builds the model provider for a run from
// flags, config and environment. It is the only package that imports every
// SDK; the CLI calls it, and nothing below the CLI does.
package providers

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/anthropic"
	"github.com/anvil-dev/anvil/internal/llm/openai"
	"github.com/anvil-dev/anvil/internal/llm/replay"
)

// Choice is what the user asked for; empty fields are chosen.
type Choice struct {
	Provider string // "anthropic", "openai", "replay" or ""
	Model    string
	BaseURL  string // from config; the environment's URL wins for its provider
	// ReplayScript is the JSONL script for the replay provider.
	ReplayScript string
}

// ErrNoProvider says nothing is configured. Its message tells the user how
// to set one up and points to the demo.
var ErrNoProvider = errors.New(`no model provider is configured.

  Anthropic:  export ANTHROPIC_API_KEY=sk-ant-...
  OpenAI-compatible (OpenAI, Ollama, llama.cpp, vLLM, LM Studio, OpenRouter):
              export OPENAI_BASE_URL=http://localhost:11434/v1   # e.g. a local Ollama
              export OPENAI_API_KEY=...                           # if the server needs one
              anvil --model qwen2.5-coder "<request>"

Or see the whole pipeline on a bundled example, with replayed model turns:
  anvil demo`)

// Select picks the provider: the flag wins; otherwise Anthropic when
// ANTHROPIC_API_KEY is set, else OpenAI-compatible when OPENAI_BASE_URL or
// OPENAI_API_KEY is set. getenv reads the environment Anvil started with.
func Select(c Choice, getenv func(string) string) (llm.Provider, error) {
	name := c.Provider
	if name == "" {
		switch {
		case getenv("ANTHROPIC_API_KEY") != "":
			name = "anthropic"
		case getenv("OPENAI_BASE_URL") != "" || getenv("OPENAI_API_KEY") != "":
			name = "openai"
		default:
			return nil, ErrNoProvider
		}
	}
	switch name {
	case "anthropic":
		key := getenv("ANTHROPIC_API_KEY")
		if key == "" {
			return nil, errors.New("--provider anthropic needs ANTHROPIC_API_KEY")
		}
		return anthropic.New(anthropic.Options{APIKey: key, BaseURL: cmp.Or(getenv("ANTHROPIC_BASE_URL"), c.BaseURL), Model: c.Model}), nil
	case "openai":
		base := cmp.Or(getenv("OPENAI_BASE_URL"), c.BaseURL)
		if base == "" && getenv("OPENAI_API_KEY") == "" {
			return nil, errors.New("--provider openai needs OPENAI_BASE_URL (a compatible server) or OPENAI_API_KEY")
		}
		model := c.Model
		if model == "" && base != "" {
			return nil, fmt.Errorf("name the model your server at %s serves: --model NAME (or 'anvil config set model NAME')", base)
		}
		return openai.New(openai.Options{APIKey: getenv("OPENAI_API_KEY"), BaseURL: base, Model: model}), nil
	case "replay":
		path := cmp.Or(c.ReplayScript, getenv("ANVIL_REPLAY"))
		if path == "" {
			return nil, errors.New("--provider replay needs a script: --replay FILE or ANVIL_REPLAY")
		}
		return replay.Load(path)
	}
	return nil, fmt.Errorf("unknown provider %q: use anthropic, openai or replay", name)
}
