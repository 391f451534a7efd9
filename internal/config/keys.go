package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
)

// Key is one top-level setting that 'anvil config' reads and writes and
// that 'anvil init' and 'anvil doctor' reuse. Server tables are not keys:
// they are edited by hand as [servers.NAME] tables.
type Key struct {
	Name        string
	Description string
	// Default is the value in effect when no file sets the key, as text;
	// "" when the default is decided elsewhere (the provider, the model).
	Default string
	// defaultIn, if set, is the default where it depends on the
	// environment the paths were read from (the session directory's).
	defaultIn func(Paths) string
	// UserOnly keys count only in the user's file (see [Layers.Merged]).
	UserOnly bool

	get   func(Config) string // "" when unset
	value func(Config) any    // the TOML value to write
	parse func(*Config, string) error
	clear func(*Config)
}

// Get returns the key's value in c as text, "" when c does not set it.
func (k Key) Get(c Config) string { return k.get(c) }

// Line returns the key's assignment in c as it appears in a TOML file
// (languages = ["go", "typescript"]), or "" when c does not set it.
func (k Key) Line(c Config) string {
	if k.Get(c) == "" {
		return ""
	}
	line, err := encodeLine(k.Name, k.value(c))
	if err != nil { // unreachable: every value type encodes
		return k.Name + " = " + k.Get(c)
	}
	return line
}

// Set validates value and stores it in c. The error says what is allowed.
func (k Key) Set(c *Config, value string) error {
	if err := k.parse(c, strings.TrimSpace(value)); err != nil {
		return &ValueError{Key: k.Name, Value: value, Reason: err.Error()}
	}
	return nil
}

// Validate reports whether value is acceptable for the key, without
// storing it anywhere.
func (k Key) Validate(value string) error {
	var scratch Config
	return k.Set(&scratch, value)
}

// Clear removes the key from c, so the next layer or the default applies.
func (k Key) Clear(c *Config) { k.clear(c) }

// ValueError is a value a key does not accept.
type ValueError struct {
	Key, Value string
	Reason     string // what the key accepts
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("bad value %q for %s: %s", e.Value, e.Key, e.Reason)
}

// UnknownKeyError names a key that is not in [Keys].
type UnknownKeyError struct{ Name string }

func (e *UnknownKeyError) Error() string {
	if e.Name == "servers" || strings.HasPrefix(e.Name, "servers.") {
		return fmt.Sprintf("%s is not a key: language servers are [servers.NAME] tables, edited by hand in %s or the user config file", e.Name, ProjectFile)
	}
	return fmt.Sprintf("unknown key %q (known keys: %s)", e.Name, strings.Join(keyNames(), ", "))
}

// Keys returns every settable key, in display order.
func Keys() []Key {
	return []Key{
		{
			Name: "provider", Description: "model provider: anthropic, openai or replay (unset: chosen from the environment)",
			get: func(c Config) string { return c.Provider }, value: func(c Config) any { return c.Provider },
			parse: func(c *Config, v string) error {
				switch v {
				case "anthropic", "openai", "replay":
					c.Provider = v
					return nil
				}
				return fmt.Errorf("provider must be one of anthropic, openai, replay")
			},
			clear: func(c *Config) { c.Provider = "" },
		},
		{
			Name: "model", Description: "model name (unset: the provider's default)",
			get: func(c Config) string { return c.Model }, value: func(c Config) any { return c.Model },
			parse: func(c *Config, v string) error {
				if v == "" {
					return fmt.Errorf("model must not be empty")
				}
				c.Model = v
				return nil
			},
			clear: func(c *Config) { c.Model = "" },
		},
		{
			Name: "base_url", Description: "the provider's API address, e.g. a local OpenAI-compatible server (the provider's environment variable wins); user file only",
			UserOnly: true,
			get:      func(c Config) string { return c.BaseURL }, value: func(c Config) any { return c.BaseURL },
			parse: func(c *Config, v string) error {
				u, err := url.Parse(v)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return fmt.Errorf("base_url must be an http:// or https:// URL")
				}
				c.BaseURL = v
				return nil
			},
			clear: func(c *Config) { c.BaseURL = "" },
		},
		{
			Name: "max_attempts", Description: "commits the Executor may have rejected before it gives up",
			Default: strconv.Itoa(DefaultMaxAttempts),
			get: func(c Config) string {
				if c.MaxAttempts == 0 {
					return ""
				}
				return strconv.Itoa(c.MaxAttempts)
			},
			value: func(c Config) any { return c.MaxAttempts },
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 {
					return fmt.Errorf("max_attempts must be a positive integer")
				}
				c.MaxAttempts = n
				return nil
			},
			clear: func(c *Config) { c.MaxAttempts = 0 },
		},
		{
			Name: "max_replans", Description: "times one request may go back to the Planner when the change breaks files outside the plan (0: never)",
			Default: strconv.Itoa(DefaultMaxReplans),
			get: func(c Config) string {
				if c.MaxReplans == nil {
					return ""
				}
				return strconv.Itoa(*c.MaxReplans)
			},
			value: func(c Config) any { return c.Replans() },
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return fmt.Errorf("max_replans must be a whole number, 0 or more")
				}
				c.MaxReplans = &n
				return nil
			},
			clear: func(c *Config) { c.MaxReplans = nil },
		},
		{
			Name: "validation_timeout", Description: "bound on one shadow validation, as a Go duration (45s, 2m)",
			Default: DefaultValidationTimeout.String(),
			get: func(c Config) string {
				if c.ValidationTimeout.Duration == 0 {
					return ""
				}
				return c.ValidationTimeout.String()
			},
			value: func(c Config) any { return c.ValidationTimeout },
			parse: func(c *Config, v string) error {
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return fmt.Errorf("validation_timeout must be a Go duration greater than zero, such as 45s or 2m")
				}
				c.ValidationTimeout = Duration{d}
				return nil
			},
			clear: func(c *Config) { c.ValidationTimeout = Duration{} },
		},
		{
			Name: "load_timeout", Description: "bound on starting the servers and loading the project before a validation, as a Go duration (10m)",
			Default: DefaultLoadTimeout.String(),
			get: func(c Config) string {
				if c.LoadTimeout.Duration == 0 {
					return ""
				}
				return c.LoadTimeout.String()
			},
			value: func(c Config) any { return c.LoadTimeout },
			parse: func(c *Config, v string) error {
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return fmt.Errorf("load_timeout must be a Go duration greater than zero, such as 5m")
				}
				c.LoadTimeout = Duration{d}
				return nil
			},
			clear: func(c *Config) { c.LoadTimeout = Duration{} },
		},
		{
			Name: "context_window", Description: "the model's context window in tokens, which the agents keep their conversations inside (compacting them past three quarters of it); unset: known for the model, else 128000",
			get: func(c Config) string {
				if c.ContextWindow == 0 {
					return ""
				}
				return strconv.Itoa(c.ContextWindow)
			},
			value: func(c Config) any { return c.ContextWindow },
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1000 {
					return fmt.Errorf("context_window must be a number of tokens, at least 1000")
				}
				c.ContextWindow = n
				return nil
			},
			clear: func(c *Config) { c.ContextWindow = 0 },
		},
		{
			Name: "max_dependants", Description: "the most files that depend on a change one server checks; a change with more is unverified",
			Default: strconv.Itoa(DefaultMaxDependants),
			get: func(c Config) string {
				if c.MaxDependants == 0 {
					return ""
				}
				return strconv.Itoa(c.MaxDependants)
			},
			value: func(c Config) any { return c.MaxDependants },
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 {
					return fmt.Errorf("max_dependants must be a positive integer")
				}
				c.MaxDependants = n
				return nil
			},
			clear: func(c *Config) { c.MaxDependants = 0 },
		},
		{
			Name: "session_dir", Description: "base directory of session directories (ANVIL_SESSION_DIR wins); user file only",
			defaultIn: func(p Paths) string { return p.SessionBase }, UserOnly: true,
			get: func(c Config) string { return c.SessionDir }, value: func(c Config) any { return c.SessionDir },
			parse: func(c *Config, v string) error {
				// A relative path would depend on where anvil happens to run,
				// and undo must find the journals of earlier runs.
				if !filepath.IsAbs(v) {
					return fmt.Errorf("session_dir must be an absolute path")
				}
				c.SessionDir = filepath.Clean(v)
				return nil
			},
			clear: func(c *Config) { c.SessionDir = "" },
		},
		{
			Name: "test_command", Description: "how the project runs its tests (shown to the agents)",
			get: func(c Config) string { return c.TestCommand }, value: func(c Config) any { return c.TestCommand },
			parse: func(c *Config, v string) error {
				if v == "" {
					return fmt.Errorf("test_command must not be empty")
				}
				c.TestCommand = v
				return nil
			},
			clear: func(c *Config) { c.TestCommand = "" },
		},
		{
			Name: "typescript_engine", Description: "how projects pinned to TypeScript 6 or older are checked: auto (tsserver of the project's own TypeScript), native (TypeScript 7's server) or tsserver",
			Default: string(servers.EngineAuto),
			get:     func(c Config) string { return c.TypeScriptEngine }, value: func(c Config) any { return c.TypeScriptEngine },
			parse: func(c *Config, v string) error {
				switch servers.Engine(v) {
				case servers.EngineAuto, servers.EngineNative, servers.EngineTSServer:
					c.TypeScriptEngine = v
					return nil
				}
				return fmt.Errorf("typescript_engine must be one of auto, native, tsserver")
			},
			clear: func(c *Config) { c.TypeScriptEngine = "" },
		},
		{
			Name: "check_strategy", Description: "how a change's files are checked: auto (the server file by file, or the project's batch checker over a shadow tree when the files are many), per-file or batch",
			Default: "auto",
			get:     func(c Config) string { return c.CheckStrategy }, value: func(c Config) any { return c.CheckStrategy },
			parse: func(c *Config, v string) error {
				switch v {
				case "auto", "per-file", "batch":
					c.CheckStrategy = v
					return nil
				}
				return fmt.Errorf("check_strategy must be one of auto, per-file, batch")
			},
			clear: func(c *Config) { c.CheckStrategy = "" },
		},
		{
			Name: "languages", Description: "the project's languages, comma-separated (go,typescript); unset: detected from the files",
			get: func(c Config) string { return strings.Join(c.Languages, ",") }, value: func(c Config) any { return c.Languages },
			parse: func(c *Config, v string) error {
				langs, err := ParseLanguages(v)
				if err != nil {
					return err
				}
				c.Languages = langs
				return nil
			},
			clear: func(c *Config) { c.Languages = nil },
		},
		{
			Name: "trusted_projects", Description: "workspaces whose own .anvil/config.toml may name language servers, comma-separated absolute paths; user file only",
			UserOnly: true,
			get:      func(c Config) string { return strings.Join(c.TrustedProjects, ",") }, value: func(c Config) any { return c.TrustedProjects },
			parse: func(c *Config, v string) error {
				var dirs []string
				for _, d := range strings.Split(v, ",") {
					if d = strings.TrimSpace(d); d == "" {
						continue
					}
					if !filepath.IsAbs(d) {
						return fmt.Errorf("trusted_projects must be absolute paths (got %q)", d)
					}
					if d = filepath.Clean(d); !slices.Contains(dirs, d) {
						dirs = append(dirs, d)
					}
				}
				if len(dirs) == 0 {
					return fmt.Errorf("trusted_projects must name at least one directory")
				}
				c.TrustedProjects = dirs
				return nil
			},
			clear: func(c *Config) { c.TrustedProjects = nil },
		},
	}
}

// languageID is what a language name may look like: an LSP language id.
var languageID = regexp.MustCompile(`^[a-z][a-z0-9_+-]*$`)

// ParseLanguages splits a comma-separated list of language ids, dropping
// empty items and duplicates.
func ParseLanguages(v string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(v, ",") {
		l = strings.ToLower(strings.TrimSpace(l))
		if l == "" || seen[l] {
			continue
		}
		if !languageID.MatchString(l) {
			return nil, fmt.Errorf("languages must be language ids such as go, typescript, python (got %q)", l)
		}
		seen[l] = true
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("languages must name at least one language, e.g. go,typescript")
	}
	return out, nil
}

// keyNames returns the names of [Keys].
func keyNames() []string {
	var out []string
	for _, k := range Keys() {
		out = append(out, k.Name)
	}
	return out
}

// LookupKey returns the key called name or an [*UnknownKeyError].
func LookupKey(name string) (Key, error) {
	for _, k := range Keys() {
		if k.Name == name {
			return k, nil
		}
	}
	return Key{}, &UnknownKeyError{Name: name}
}

// Check validates every key c sets, so that a hand-edited file with a bad
// value is caught before a run trips over it.
func Check(c Config) []error {
	var errs []error
	for _, k := range Keys() {
		if v := k.Get(c); v != "" {
			if err := k.Validate(v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}
