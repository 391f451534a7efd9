// Package config reads and writes Anvil's settings: a user file
// ($XDG_CONFIG_HOME/anvil/config.toml) and a project file
// (.anvil/config.toml in the workspace), the project winning key by key.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/anvil-dev/anvil/internal/session"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/anvil-dev/anvil/internal/servers"
)

// ProjectFile is the project config's path inside a workspace.
const ProjectFile = ".anvil/config.toml"

// Config is the merged settings of one run. Zero values mean "default".
type Config struct {
	// Provider is "anthropic", "openai" or "replay"; empty means chosen
	// from the environment.
	Provider string `toml:"provider,omitempty"`
	Model    string `toml:"model,omitempty"`
	// BaseURL overrides the provider's API address (a local
	// OpenAI-compatible server, a proxy).
	BaseURL string `toml:"base_url,omitempty"`
	// MaxAttempts is how many commits the Executor may have rejected
	// before it gives up.
	MaxAttempts int `toml:"max_attempts,omitempty"`
	// MaxReplans is how many times one request may go back to the Planner
	// because the change breaks files outside the plan (nil: the default;
	// 0: never).
	MaxReplans *int `toml:"max_replans,omitempty"`
	// ValidationTimeout bounds one shadow validation, from when the
	// servers are ready.
	ValidationTimeout Duration `toml:"validation_timeout,omitempty"`
	// LoadTimeout bounds what comes before: starting the servers and
	// loading the project.
	LoadTimeout Duration `toml:"load_timeout,omitempty"`
	// MaxDependants bounds the dependants one server checks for a change;
	// a change with more is unverified.
	MaxDependants int `toml:"max_dependants,omitempty"`
	// ContextWindow is the model's context window in tokens (0: known for
	// the model); the agents compact their conversations to stay inside.
	ContextWindow int `toml:"context_window,omitempty"`
	// SessionDir is the base directory for session directories.
	SessionDir string `toml:"session_dir,omitempty"`
	// TestCommand is how the project runs its tests (shown to the agents).
	TestCommand string `toml:"test_command,omitempty"`
	// Languages are the project's languages, as detected by 'anvil init'.
	Languages []string `toml:"languages,omitempty"`
	// TypeScriptEngine chooses how TypeScript projects pinned to version 6
	// or older are checked: "auto" (unset), "native" or "tsserver".
	TypeScriptEngine string `toml:"typescript_engine,omitempty"`
	// CheckStrategy chooses how a change's files are checked: "auto"
	// (unset: the server file by file, or the project's batch checker
	// when the files are many), "per-file" or "batch".
	CheckStrategy string `toml:"check_strategy,omitempty"`
	// Servers override or add language servers by name.
	Servers map[string]servers.Spec `toml:"servers,omitempty"`
	// Run configures the run stage (anvil check --run).
	Run RunConfig `toml:"run,omitempty"`
	// Check is the project's own checker, for languages no server
	// checks before the write (see [CheckConfig]).
	Check CheckConfig `toml:"check,omitempty"`
	// Git records commits as git commits (opt-in).
	Git GitConfig `toml:"git,omitempty"`
	// TrustedProjects are the workspaces whose own file may name language
	// servers (commands that run as the user, outside any sandbox). Only
	// the user's file can list them.
	TrustedProjects []string `toml:"trusted_projects,omitempty"`
}

// GitConfig is the [git] table.
type GitConfig struct {
	// Commit makes each committed change set a git commit too.
	Commit bool `toml:"commit,omitempty"`
	// Branch is where the git commits go: "" for the checked-out branch,
	// else a branch of its own, "<slug>" standing for the session's first
	// request ("anvil/<slug>").
	Branch string `toml:"branch,omitempty"`
}

// CheckConfig is the [check] table: a command Anvil runs in a shadow
// tree over each change and over the unchanged tree, its diagnostics read
// in Format (one of diagformat's). A project's file sets it only for a
// workspace the user trusts, as [servers].
type CheckConfig struct {
	Command string `toml:"command,omitempty"`
	Format  string `toml:"format,omitempty"`
	// Languages (LSP ids: "java", "python") and Files (globs) say which
	// files it covers; with neither, every source and configuration file
	// no language server checks.
	Languages []string `toml:"languages,omitempty"`
	Files     []string `toml:"files,omitempty"`
}

// RunConfig is the [run] table: how the run stage builds and tests.
type RunConfig struct {
	// Build and Test replace the detected commands (shell command lines);
	// with them, pass or fail is the exit status.
	Build string `toml:"build,omitempty"`
	Test  string `toml:"test,omitempty"`
	// Timeout bounds one run of the build and tests; default 10 minutes.
	Timeout Duration `toml:"timeout,omitempty"`
	// Report is where the configured test command leaves per-test
	// results: "junit:PATH" (PATH relative to the workspace). Without it
	// the command's exit status is its only result, and a tree whose
	// tests already fail cannot be checked.
	Report string `toml:"report,omitempty"`
	// Env names the variables of Anvil's environment the commands get
	// besides the usual ones (PATH, HOME, the toolchains' settings).
	Env []string `toml:"env,omitempty"`
	// Network lets the commands reach the network (off by default). Only
	// the user's own file can turn it on: a project's file that sets it
	// is ignored (see [Layers.Merged]).
	Network bool `toml:"network,omitempty"`
	// Memory, TmpSize, Processes and FileSize bound a run: each
	// process's memory, the commands' private /tmp and /dev/shm (each),
	// the processes and threads, a file written. Unset, the run stage's
	// defaults (4G, 1G, 4096, 2G); a size "off" is no bound. Only the
	// user's file sets them: a repository's would take the machine.
	Memory    Size  `toml:"memory,omitzero"`
	TmpSize   Size  `toml:"tmp_size,omitzero"`
	Processes int64 `toml:"processes,omitzero"`
	FileSize  Size  `toml:"file_size,omitzero"`
}

// Size is a number of bytes written "2G", "512M", "64K" or "1048576";
// "off" (stored as -1) is no bound, 0 unset.
type Size int64

// UnmarshalText parses a size.
func (s *Size) UnmarshalText(b []byte) error {
	t := strings.TrimSpace(string(b))
	if t == "off" {
		*s = -1
		return nil
	}
	mult := int64(1)
	if n := len(t); n > 0 {
		switch strings.ToUpper(t[n-1:]) {
		case "K":
			mult = 1 << 10
		case "M":
			mult = 1 << 20
		case "G":
			mult = 1 << 30
		case "T":
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > math.MaxInt64/mult {
		return fmt.Errorf("size %q: want a positive number of bytes, with K, M, G or T (\"2G\"), or \"off\"", string(b))
	}
	*s = Size(v * mult)
	return nil
}

// MarshalText writes the size as UnmarshalText reads it.
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// String is the size in the largest unit that divides it ("4G"), "off"
// for no bound.
func (s Size) String() string {
	if s < 0 {
		return "off"
	}
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if s > 0 && int64(s)%u.n == 0 {
			return strconv.FormatInt(int64(s)/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(s), 10)
}

// Duration is a time.Duration written as text ("30s") in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses "30s", "1m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as text.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Defaults applied where neither file sets a value.
const (
	DefaultMaxAttempts       = 3
	DefaultMaxReplans        = 2
	DefaultValidationTimeout = 30 * time.Second
	DefaultLoadTimeout       = 5 * time.Minute
	DefaultMaxDependants     = 5000
)

// Attempts returns MaxAttempts or its default.
func (c Config) Attempts() int {
	if c.MaxAttempts > 0 {
		return c.MaxAttempts
	}
	return DefaultMaxAttempts
}

// Replans returns MaxReplans or its default.
func (c Config) Replans() int {
	if c.MaxReplans != nil {
		return *c.MaxReplans
	}
	return DefaultMaxReplans
}

// Timeout returns ValidationTimeout or its default.
func (c Config) Timeout() time.Duration {
	if c.ValidationTimeout.Duration > 0 {
		return c.ValidationTimeout.Duration
	}
	return DefaultValidationTimeout
}

// ServerSpecs returns the server overrides as a list, names filled in.
func (c Config) ServerSpecs() []servers.Spec {
	var out []servers.Spec
	for name, s := range c.Servers {
		s.Name = name
		out = append(out, s)
	}
	return out
}

// Paths says where the two config files are.
type Paths struct {
	User    string // "" when there is no user config directory
	Project string // "" without a workspace
	// SessionBase is the default base of session directories in the
	// environment the paths were read from (session.DefaultBase).
	SessionBase string
}

// DefaultPaths returns the user file under the XDG config directory and the
// project file under workspace (if not empty), as the environment getenv
// reads names them.
func DefaultPaths(workspace string, getenv func(string) string) Paths {
	p := Paths{SessionBase: session.DefaultBase(getenv)}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" && getenv("HOME") != "" {
		dir = filepath.Join(getenv("HOME"), ".config")
	}
	if dir != "" {
		p.User = filepath.Join(dir, "anvil", "config.toml")
	}
	if workspace != "" {
		p.Project = filepath.Join(workspace, filepath.FromSlash(ProjectFile))
	}
	return p
}

// Load reads both files (a missing file is empty) and merges them, the
// project's values over the user's, as [Layers.Merged] does.
func Load(p Paths) (Config, error) {
	l, err := ReadLayers(p)
	if err != nil {
		return Config{}, err
	}
	return l.Merged(), nil
}

// ReadFile reads one config file; a missing file, or path "", is an empty
// config. Errors name the file.
func ReadFile(path string) (Config, error) {
	if path == "" {
		return Config{}, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return decode(path, data)
}

// merge lays the set fields of over on base.
func merge(base, over Config) Config {
	out := base
	if over.Provider != "" {
		out.Provider = over.Provider
	}
	if over.Model != "" {
		out.Model = over.Model
	}
	if over.BaseURL != "" {
		out.BaseURL = over.BaseURL
	}
	if over.MaxAttempts != 0 {
		out.MaxAttempts = over.MaxAttempts
	}
	if over.MaxReplans != nil {
		out.MaxReplans = over.MaxReplans
	}
	if over.Run.Build != "" {
		out.Run.Build = over.Run.Build
	}
	if over.Run.Test != "" {
		out.Run.Test = over.Run.Test
	}
	if over.Run.Timeout.Duration != 0 {
		out.Run.Timeout = over.Run.Timeout
	}
	if over.Git.Commit {
		out.Git.Commit = true
	}
	if over.Git.Branch != "" {
		out.Git.Branch = over.Git.Branch
	}
	if over.Run.Report != "" {
		out.Run.Report = over.Run.Report
	}
	if over.Run.Env != nil {
		out.Run.Env = over.Run.Env
	}
	if over.ValidationTimeout.Duration != 0 {
		out.ValidationTimeout = over.ValidationTimeout
	}
	if over.LoadTimeout.Duration != 0 {
		out.LoadTimeout = over.LoadTimeout
	}
	if over.MaxDependants != 0 {
		out.MaxDependants = over.MaxDependants
	}
	if over.ContextWindow != 0 {
		out.ContextWindow = over.ContextWindow
	}
	if over.SessionDir != "" {
		out.SessionDir = over.SessionDir
	}
	if over.TestCommand != "" {
		out.TestCommand = over.TestCommand
	}
	if over.Languages != nil {
		out.Languages = over.Languages
	}
	if over.TypeScriptEngine != "" {
		out.TypeScriptEngine = over.TypeScriptEngine
	}
	if over.CheckStrategy != "" {
		out.CheckStrategy = over.CheckStrategy
	}
	if over.Check.Command != "" {
		out.Check = over.Check
	}
	if len(over.Servers) > 0 {
		out.Servers = map[string]servers.Spec{}
		for k, v := range base.Servers {
			out.Servers[k] = v
		}
		for k, v := range over.Servers {
			out.Servers[k] = v
		}
	}
	return out
}

// write saves c to path as TOML, atomically and keeping the mode of the
// file it replaces, as [writeFileAtomic] does.
func write(path string, c Config) error {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(c); err != nil {
		return err
	}
	return writeFileAtomic(path, b.Bytes())
}
