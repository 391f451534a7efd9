package providers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":[{"type":"text","text":"hi"}]}`+"\n"), 0o644)
	tests := []struct {
		name    string
		choice  Choice
		env     map[string]string
		want    string
		model   string
		wantErr string
	}{
		{name: "nothing set", wantErr: "no model provider is configured"},
		{name: "anthropic key", env: map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "o"}, want: "anthropic", model: "claude-sonnet-5-5"},
		{name: "openai base url", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, choice: Choice{Model: "qwen"}, want: "openai", model: "qwen"},
		{name: "local server without model", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, wantErr: "name the model"},
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "o"}, want: "openai", model: "gpt-5.1"},
		{name: "flag wins", choice: Choice{Provider: "openai", Model: "m"}, env: map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "o"}, want: "openai", model: "m"},
		{name: "flag without key", choice: Choice{Provider: "anthropic"}, wantErr: "needs ANTHROPIC_API_KEY"},
		{name: "model flag", choice: Choice{Model: "claude-opus-5"}, env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "anthropic", model: "claude-opus-5"},
		{name: "replay", choice: Choice{Provider: "replay", ReplayScript: script}, want: "replay", model: "replay"},
		{name: "replay without script", choice: Choice{Provider: "replay"}, wantErr: "needs a script"},
		{name: "unknown", choice: Choice{Provider: "gemini"}, wantErr: "unknown provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Select(tt.choice, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tt.want || p.Model() != tt.model {
				t.Fatalf("got %s/%s, want %s/%s", p.Name(), p.Model(), tt.want, tt.model)
			}
		})
	}
	if _, err := Select(Choice{}, func(string) string { return "" }); !errors.Is(err, ErrNoProvider) || !strings.Contains(err.Error(), "anvil demo") {
		t.Errorf("the no-provider message should point to the demo: %v", err)
	}
}
