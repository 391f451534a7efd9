// Package doctor checks that Anvil can work in a workspace: the config
// files parse, a model provider is configured, every detected language has
// a language server that starts and answers, the helper tools are present
// and the session directory is writable. It returns structured results;
// the CLI renders them.
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/config"
	"os/exec"
	"slices"
	"time"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// Status is a check's outcome.
type Status int

// Statuses, from best to worst.
const (
	// OK: nothing to do.
	OK Status = iota
	// Warn: Anvil works, with less (no provider: only 'anvil demo'; no
	// ripgrep: slower search).
	Warn
	// Fail: a blocking problem; runs would fail or go unverified.
	Fail
)

// String returns "ok", "warn" or "fail".
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	case Fail:
		return "fail"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// MarshalText writes the status as its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Groups of checks, in report order.
const (
	GroupConfig   = "config"
	GroupProvider = "provider"
	GroupServer   = "server"
	GroupTool     = "tool"
	GroupSession  = "session"
)

// Check is one result.
type Check struct {
	Group  string `json:"group"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// Fix says what to do, for a warning or a failure.
	Fix string `json:"fix,omitempty"`
	// Server is set for language server checks.
	Server *ServerInfo `json:"server,omitempty"`
}

// ServerInfo describes the language server found for a language.
type ServerInfo struct {
	Spec string `json:"spec"` // the spec's name in the registry ("tsgo")
	Path string `json:"path"`
	// Name and Version are what the server reported in initialize.
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	// StartMillis is how long it took to start and become ready.
	StartMillis int64 `json:"start_ms,omitempty"`
	// Choice explains why this server checks the language (TypeScript's
	// engine); Note what bears on its verdicts (a compiler other than the
	// project's).
	Choice string `json:"choice,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Report is every check of one run.
type Report struct {
	Workspace string  `json:"workspace"`
	Checks    []Check `json:"checks"`
}

// Blocking reports whether any check failed.
func (r Report) Blocking() bool { return r.Count(Fail) > 0 }

// Count returns how many checks have status s.
func (r Report) Count(s Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// MarshalJSON adds a schema version and the verdict, so scripts need not
// recompute it.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		SchemaVersion int  `json:"schema_version"`
		OK            bool `json:"ok"`
		plain
	}{SchemaVersion: 1, OK: !r.Blocking(), plain: plain(r)})
}

// Options configure a run.
type Options struct {
	// Dir is the workspace to check.
	Dir string
	// Getenv reads the environment Anvil was started with (the
	// composition root's; this package reads none itself).
	Getenv func(string) string
	// LookPath finds commands; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// ServerTimeout bounds each language server's start and readiness;
	// zero means the bound a run uses, the server manager's default (60 s).
	ServerTimeout time.Duration
	// Helper contains the language servers, as a run's do (the anvil
	// binary; see execpolicy.Options).
	Helper string
}

// Run performs every check. It fails only when the workspace cannot be
// opened; everything else is a result.
func Run(ctx context.Context, opts Options) (Report, error) {
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	root, err := workspace.New(opts.Dir)
	if err != nil {
		return Report{}, err
	}
	r := Report{Workspace: root.Dir()}
	cfgChecks, cfg := checkConfig(root.Dir(), opts.Getenv)
	r.Checks = append(r.Checks, cfgChecks...)
	r.Checks = append(r.Checks, checkTrust(root.Dir(), opts.Getenv))
	r.Checks = append(r.Checks, checkProviders(cfg, opts.Getenv)...)
	// One execution policy for every program the checks start, as a
	// run's would be: from the user's configuration and environment.
	layers, _ := config.ReadLayers(config.DefaultPaths(root.Dir(), opts.Getenv))
	policy := app.Policy(root.Dir(), layers, opts.Getenv, nil, opts.Helper)
	r.Checks = append(r.Checks, checkContainment(policy))
	serverChecks := checkServers(ctx, root, cfg, opts, policy)
	if rust := checkRust(ctx, root.Dir(), opts.LookPath, policy.Env()); len(rust) > 0 {
		// cargo check validates Rust, with or without a server.
		serverChecks = slices.DeleteFunc(serverChecks, func(c Check) bool { return c.Name == "rust" && c.Server == nil })
		serverChecks = append(serverChecks, rust...)
	}
	r.Checks = append(r.Checks, serverChecks...)
	r.Checks = append(r.Checks, checkTools(ctx, opts.LookPath, policy.Env())...)
	r.Checks = append(r.Checks, checkSession(cfg, opts.Getenv))
	r.Checks = append(r.Checks, checkShadowTree(ctx, policy.HostPlaces()))
	r.Checks = append(r.Checks, checkHooks(root.Dir(), opts.Getenv)...)
	return r, nil
}
