package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestKeyValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, value string
		want       string // the stored value as Get shows it
		wantErr    string // part of the error; "" for none
	}{
		{key: "provider", value: "anthropic", want: "anthropic"},
		{key: "provider", value: "openai", want: "openai"},
		{key: "provider", value: "replay", want: "replay"},
		{key: "provider", value: "gemini", wantErr: "one of anthropic, openai, replay"},
		{key: "model", value: "claude-sonnet-4-5", want: "claude-sonnet-4-5"},
		{key: "model", value: "  ", wantErr: "must not be empty"},
		{key: "base_url", value: "http://localhost:11434/v1", want: "http://localhost:11434/v1"},
		{key: "base_url", value: "localhost:11434", wantErr: "http:// or https://"},
		{key: "max_attempts", value: "5", want: "5"},
		{key: "max_attempts", value: "0", wantErr: "positive integer"},
		{key: "max_attempts", value: "-2", wantErr: "positive integer"},
		{key: "max_attempts", value: "three", wantErr: "positive integer"},
		{key: "validation_timeout", value: "45s", want: "45s"},
		{key: "validation_timeout", value: "2m", want: "2m0s"},
		{key: "validation_timeout", value: "0s", wantErr: "greater than zero"},
		{key: "validation_timeout", value: "30", wantErr: "Go duration"},
		{key: "session_dir", value: "/var/tmp/anvil/", want: "/var/tmp/anvil"},
		{key: "session_dir", value: "sessions", wantErr: "absolute path"},
		{key: "test_command", value: "go test ./...", want: "go test ./..."},
		{key: "test_command", value: "", wantErr: "must not be empty"},
		{key: "languages", value: "go, TypeScript,,go", want: "go,typescript"},
		{key: "languages", value: ",", wantErr: "at least one language"},
		{key: "languages", value: "go,type script", wantErr: "language ids"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			t.Parallel()
			k, err := LookupKey(tt.key)
			if err != nil {
				t.Fatal(err)
			}
			var c Config
			err = k.Set(&c, tt.value)
			if tt.wantErr != "" {
				var ve *ValueError
				if !errors.As(err, &ve) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a ValueError containing %q", err, tt.wantErr)
				}
				if k.Get(c) != "" {
					t.Errorf("a refused value was stored: %q", k.Get(c))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Get(c); got != tt.want {
				t.Errorf("Get = %q, want %q", got, tt.want)
			}
			k.Clear(&c)
			if got := k.Get(c); got != "" {
				t.Errorf("after Clear, Get = %q", got)
			}
		})
	}
}

func TestLookupKeyUnknown(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"modle":         `unknown key "modle" (known keys: provider, model,`,
		"servers.gopls": "edited by hand",
	} {
		_, err := LookupKey(name)
		var uk *UnknownKeyError
		if !errors.As(err, &uk) || !strings.Contains(err.Error(), want) {
			t.Errorf("LookupKey(%q) = %v, want %q", name, err, want)
		}
	}
}

func TestCheckFindsBadHandEditedValues(t *testing.T) {
	t.Parallel()
	c := Config{Provider: "gemini", MaxAttempts: -1, ValidationTimeout: Duration{time.Second}, Model: "m"}
	errs := Check(c)
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "provider") || !strings.Contains(errs[1].Error(), "max_attempts") {
		t.Errorf("Check = %v", errs)
	}
	if errs := Check(Config{}); len(errs) != 0 {
		t.Errorf("empty config: %v", errs)
	}
}
