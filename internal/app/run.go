package app

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/detect"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/session"
)

// RunOptions configure one agent run.
type RunOptions struct {
	Provider llm.Provider
	// Model overrides the provider's default model.
	Model    string
	Approver agent.Approver
	Events   event.Sink
	PlanOnly bool
	// Throwaway: the workspace is removed after the run (see
	// agent.Orchestrator.Throwaway).
	Throwaway bool
	// MaxAttempts overrides the config's commit attempts.
	MaxAttempts int
	// Service is the workspace's gate and tools the agents use: the
	// daemon's, whose servers are warm from earlier runs and stay warm for
	// the next; nil for the app's own.
	Service service.Service
}

// Orchestrator builds the agents of one run over the app's services: the
// Planner with the read-only tools, the Executor with the shadow workspace
// and the journal, both writing the session's transcript.
func (a *App) Orchestrator(opts RunOptions) (*agent.Orchestrator, error) {
	sess, err := a.Session()
	if err != nil {
		return nil, err
	}
	model := opts.Model
	if model == "" {
		model = a.Config.Model
	}
	if model == "" {
		model = opts.Provider.Model()
	}
	events := opts.Events
	if events == nil {
		events = event.Discard{}
	}
	transcriptFile := a.sessionFile(session.TranscriptFile)
	base := agent.Loop{
		Provider:      opts.Provider,
		Model:         model,
		Events:        events,
		Meter:         agent.NewMeter(model),
		Transcript:    agent.NewTranscript(transcriptFile, a.opts.Now),
		ContextWindow: a.Config.ContextWindow,
		Rules:         &agent.DirRules{Root: a.Root},
	}
	svc := opts.Service
	if svc == nil {
		svc = a.Service()
		a.prewarm()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	toolSet, err := service.Tools(ctx, svc)
	if err != nil {
		return nil, fmt.Errorf("the workspace's tools: %w", err)
	}
	planner := &agent.Planner{Root: a.Root, Loop: base}
	planner.Loop.Tools = toolSet.Only(agent.PlannerToolNames()...)

	readFile, _ := toolSet.Get("read_file")
	attempts := opts.MaxAttempts
	if attempts == 0 {
		attempts = a.Config.Attempts()
	}
	executor := &agent.Executor{
		Root: a.Root, Service: svc,
		Loop: base, ReadFile: readFile, MaxAttempts: attempts,
	}
	return &agent.Orchestrator{
		Root: a.Root, Session: sess, Planner: planner, Executor: executor,
		Approver: opts.Approver, Events: events, PlanOnly: opts.PlanOnly,
		TestCommand: a.Config.TestCommand, UserRules: a.UserRules(), Throwaway: opts.Throwaway, MaxReplans: a.Config.Replans(),
		Provider: opts.Provider.Name(), Model: model, Replayed: opts.Provider.Name() == "replay",
	}, nil
}

// UserRules is the user's own rules file, for every workspace:
// AGENTS.md in Anvil's configuration directory (it may not exist).
func (a *App) UserRules() string {
	if p := config.DefaultPaths("", a.opts.Getenv).User; p != "" {
		return filepath.Join(filepath.Dir(p), "AGENTS.md")
	}
	return ""
}

// prewarm starts the language servers of the project's languages in the
// background, so that they are up (gopls has loaded the workspace, pyright
// has registered pull diagnostics) by the time the Planner asks find_symbol
// or the Executor stages its first edit.
func (a *App) prewarm() {
	langs := a.Config.Languages
	if len(langs) == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if p, err := detect.Scan(ctx, a.Root); err == nil {
			langs = p.Names()
		}
	}
	// The servers' own lifetime is the manager's; this context only bounds
	// their start.
	a.Servers.Prewarm(context.Background(), langs...)
}
