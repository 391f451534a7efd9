package doctor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/llm/providers"
)

// checkProviders shows which provider variables are set (never their
// values: keys are secrets and URLs may carry credentials) and which
// provider a run would use. None of this blocks: 'anvil demo' works
// without a provider.
func checkProviders(cfg config.Config, getenv func(string) string) []Check {
	anthropic := getenv("ANTHROPIC_API_KEY") != ""
	openai := getenv("OPENAI_BASE_URL") != "" || getenv("OPENAI_API_KEY") != ""
	// Building the provider makes no request; it runs the same selection
	// as a run, config included.
	p, selErr := providers.Select(providers.Choice{Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL}, getenv)
	// An unconfigured provider is only worth a warning when nothing works.
	idle := OK
	if selErr != nil {
		idle = Warn
	}
	checks := []Check{
		providerCheck("anthropic", anthropic, idle, getenv, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
		providerCheck("openai", openai, idle, getenv, "OPENAI_BASE_URL", "OPENAI_API_KEY"),
	}
	sel := Check{Group: GroupProvider, Name: "selected"}
	switch {
	case errors.Is(selErr, providers.ErrNoProvider):
		sel.Status, sel.Detail = Warn, "no model provider is configured; 'anvil demo' runs without one"
		sel.Fix = "export ANTHROPIC_API_KEY=..., or OPENAI_BASE_URL=http://localhost:11434/v1 (plus OPENAI_API_KEY if the server needs one) for an OpenAI-compatible server"
	case selErr != nil:
		sel.Status, sel.Detail = Warn, selErr.Error()
		sel.Fix = "set the variables the provider needs, or choose another with 'anvil config set provider NAME'"
	default:
		how := "from the environment"
		if cfg.Provider != "" {
			how = "provider = " + cfg.Provider + " in the config"
		}
		sel.Detail = fmt.Sprintf("a run would use %s, model %s (%s)", p.Name(), orDefault(p.Model()), how)
	}
	return append(checks, sel)
}

func providerCheck(name string, configured bool, idle Status, getenv func(string) string, vars ...string) Check {
	var parts []string
	for _, v := range vars {
		state := "unset"
		if getenv(v) != "" {
			state = "set"
		}
		parts = append(parts, v+" "+state)
	}
	c := Check{Group: GroupProvider, Name: name, Detail: strings.Join(parts, ", ")}
	if !configured {
		c.Status = idle
		c.Detail = "not configured: " + c.Detail
	}
	return c
}

func orDefault(model string) string {
	if model == "" {
		return "(the server's default)"
	}
	return model
}
