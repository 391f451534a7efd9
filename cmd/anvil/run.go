package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/conversation"
	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/providers"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/ui"
	"github.com/anvil-dev/anvil/internal/ui/tui"
)

// Exit codes of an agent run.
const (
	exitStopped     = 1   // declined, or the change could not be committed
	exitRunError    = 2   // the run failed (provider unreachable, ...)
	exitInterrupted = 130 // Ctrl-C
)

type runOptions struct {
	dir         string
	json        bool
	yes         bool
	planOnly    bool
	provider    string
	model       string
	replay      string
	maxAttempts int
	throwaway   bool // the workspace goes after the run (anvil demo)
	// cont continues the workspace's last session; resume continues the
	// session with that id ("list": no id given).
	cont   bool
	resume string
	// gitCommit records each commit as a git commit too.
	gitCommit bool
}

// resumeList is --resume given without an id.
const resumeList = "list"

func addRunFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.StringVarP(&o.dir, "dir", "C", "", "workspace root (default: DIR, or the current directory)")
	f.BoolVar(&o.json, "json", false, "print events as NDJSON, one per line")
	f.BoolVarP(&o.yes, "yes", "y", false, "approve plans without asking")
	f.BoolVar(&o.planOnly, "plan-only", false, "stop after the plan is shown; nothing is written")
	f.StringVar(&o.provider, "provider", "", "anthropic, openai or replay (default: from the environment)")
	f.StringVar(&o.model, "model", "", "model name (default: config, then the provider's)")
	f.StringVar(&o.replay, "replay", "", "JSONL script of model turns, with --provider replay")
	f.IntVar(&o.maxAttempts, "max-attempts", 0, "commits the Executor may have rejected before giving up (default 3)")
}

// addSessionFlags adds --continue and --resume (the agent run's, not the
// demo's).
func addSessionFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the workspace's last session: the agents see its earlier requests, plans and commits")
	f.StringVar(&o.resume, "resume", "", "continue the session with this id (anvil --resume alone lists them)")
	f.Lookup("resume").NoOptDefVal = resumeList
	f.BoolVar(&o.gitCommit, "git-commit", false, "record each committed change set as a git commit too (as [git] commit = true does); your staged and unstaged work is left as it is")
}

// runRequest runs the agent on request in the workspace.
func runRequest(cmd *cobra.Command, o runOptions, request, dirArg string) error {
	dir := o.dir
	if dir == "" {
		dir = dirArg
	}
	if dir == "" {
		dir = "."
	}
	if o.maxAttempts < 0 {
		return badInput("--max-attempts must be positive")
	}
	a, err := app.New(app.Options{Dir: dir})
	if err != nil {
		return badInput("%v", err)
	}
	defer a.Close()
	if a.Notice != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "anvil: %s\n", a.Notice)
	}
	provider, err := providers.Select(providers.Choice{
		Provider: cmp.Or(o.provider, a.Config.Provider), Model: cmp.Or(o.model, a.Config.Model),
		BaseURL: a.Config.BaseURL, ReplayScript: o.replay,
	}, os.Getenv)
	if err != nil {
		return badInput("%v", err)
	}
	return execute(cmd, a, warmService(cmd, a), provider, o, request)
}

// warmService returns the daemon's service for the app's workspace, whose
// language servers are warm from earlier runs and stay warm for the next;
// the app's own when the daemon is off or cannot be reached (said on
// stderr).
func warmService(cmd *cobra.Command, a *app.App) *runService {
	if os.Getenv("ANVIL_DAEMON") == "off" {
		return &runService{Service: a.Service(), close: func() {}}
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
	defer cancel()
	svc, closeSvc, err := daemon.Workspace(ctx, os.Getenv, a.Root.Dir())
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "anvil: the Anvil daemon is not available (%v); using language servers of this run's own\n", err)
		return &runService{Service: a.Service(), close: func() {}}
	}
	return &runService{Service: svc, close: closeSvc, remote: true}
}

// runService is the service an agent run uses, and how to let it go.
type runService struct {
	service.Service
	close  func()
	remote bool
}

// execute runs one request with a provider already chosen (shared with the
// demo).
func execute(cmd *cobra.Command, a *app.App, svc *runService, provider llm.Provider, o runOptions, request string) error {
	defer svc.close()
	if err := recoverCrashed(cmd, a); err != nil {
		return err
	}
	// The screen is made after the signal handler, which may need to take
	// it down.
	ctx, stop, setScreen := screenSignals(cmd, a.Servers.KillAll)
	defer stop()
	// The TUI reads Ctrl-C as a key (the terminal is in raw mode, so no
	// SIGINT comes) and stops the run through this cancel.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	events, approver, screen := renderers(ctx, cancel, a.Servers.KillAll, cmd, o)
	if screen != nil {
		setScreen(screen)
		defer screen.Close()
	}
	orch, err := a.Orchestrator(app.RunOptions{
		Provider: provider, Model: o.model, Approver: approver, Events: events,
		PlanOnly: o.planOnly, MaxAttempts: o.maxAttempts, Throwaway: o.throwaway,
		Service: svc.Service,
	})
	if err != nil {
		return err
	}
	conv, err := beginRequest(ctx, cmd, a, o, provider, request, orch)
	if err != nil {
		return err
	}
	if conv != nil {
		defer conv.Close()
	}
	done, err := orch.Run(ctx, request)
	// The run is over: its servers go now, not when the user leaves the
	// screen, which may be never.
	a.StopServers()
	if screen != nil {
		// The screen stays until the user leaves it; then the summary is
		// printed on the normal screen. A failure of the screen itself does
		// not change what the run did, so it is only reported.
		if werr := screen.Wait(); werr != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "anvil:", werr)
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &exitError{code: exitInterrupted, err: errors.New("interrupted: nothing more was written; committed change sets can be undone with 'anvil undo'")}
	case errors.Is(err, agent.ErrDeclined):
		return &exitError{code: exitStopped, err: err}
	case err != nil:
		return &exitError{code: exitRunError}
	case !done.Success:
		return &exitError{code: exitStopped}
	}
	return nil
}

// renderers picks how events are shown and how plans are approved: the
// TUI when stdout is a terminal that can draw it, NDJSON with --json, one
// line per event otherwise. screen is the TUI, or nil; the caller waits
// for it once the run has returned. cancel stops the run (the TUI's
// Ctrl-C).
func renderers(ctx context.Context, cancel, killServers func(), cmd *cobra.Command, o runOptions) (_ event.Sink, _ agent.Approver, screen *tui.UI) {
	var approver agent.Approver = ui.NewLineApprover(cmd.InOrStdin(), cmd.ErrOrStderr())
	if o.yes {
		approver = ui.AutoApprover{}
	}
	switch {
	case o.json:
		return ui.NewJSONL(cmd.OutOrStdout(), time.Now), approver, nil
	case useTUI(cmd.OutOrStdout(), os.Getenv):
		opts := tuiOptions(cmd, killServers)
		opts.Cancel = cancel
		screen = tui.Start(ctx, opts)
		if !o.yes {
			approver = screen.Approver()
		}
		return screen.Sink(), approver, screen
	}
	return ui.NewPlain(cmd.OutOrStdout()), approver, nil
}

// tuiOptions are the TUI's options for a command: its terminal, and what
// a second Ctrl-C does (the terminal is restored by then; no server may
// outlive the exit).
func tuiOptions(cmd *cobra.Command, killServers func()) tui.Options {
	opts := tui.Options{
		Output: cmd.OutOrStdout(),
		Abort: func() {
			killServers()
			fmt.Fprintln(cmd.ErrOrStderr(), "anvil: interrupted; committed change sets can be undone with 'anvil undo'")
			os.Exit(exitInterrupted)
		},
		NoColor: os.Getenv("NO_COLOR") != "",
	}
	// Keys come from the process's stdin, or from the terminal itself
	// when stdin is redirected; another reader is a test's.
	if in := cmd.InOrStdin(); in != io.Reader(os.Stdin) {
		opts.Input = in
	}
	return opts
}

// screenSignals returns the context a command with a TUI stops on: the
// first stop signal cancels it and takes the screen (set later through
// the returned func) down, so a signal from outside (kill, a CI timeout)
// ends the command even while the TUI waits for a key; a second kills the
// servers' process groups and exits.
func screenSignals(cmd *cobra.Command, killServers func()) (context.Context, func(), func(*tui.UI)) {
	var mu sync.Mutex
	var screen *tui.UI
	ctx, stop := interruptible(cmd.Context(), cmd.ErrOrStderr(), signalHooks{
		stopping: func() {
			mu.Lock()
			s := screen
			mu.Unlock()
			if s != nil {
				s.Close()
			}
		},
		abort: killServers,
	})
	return ctx, stop, func(s *tui.UI) {
		mu.Lock()
		screen = s
		mu.Unlock()
	}
}

// useTUI reports whether the TUI can draw on out: it must be a terminal
// whose TERM is set and not "dumb" (a dumb terminal cannot move the
// cursor). NO_COLOR does not turn the TUI off: it asks for no colour, and
// the TUI draws without colour then.
func useTUI(out io.Writer, getenv func(string) string) bool {
	if !streamIsTerminal(out) {
		return false
	}
	t := getenv("TERM")
	return t != "" && t != "dumb"
}

// signalHooks say what the first and second signal (SIGINT, SIGTERM,
// SIGHUP from a closed terminal) do beyond cancelling the run.
type signalHooks struct {
	// stopping runs on the first signal, e.g. to take down the TUI, which
	// would otherwise wait for a key nobody will press.
	stopping func()
	// abort runs on the second, just before exiting: it must be quick.
	abort func()
}

// stopSignals end a run or a command: Ctrl-C, kill, and the hangup of a
// terminal that was closed.
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }

// interruptible returns a context cancelled by the first stop signal
// (the run stops at the next safe point: no file is ever half-written,
// since commits are atomic); a second one, whenever it comes, runs
// hooks.abort and exits at once.
func interruptible(parent context.Context, stderr io.Writer, hooks signalHooks) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, stopSignals()...)
	finished := make(chan struct{})
	go func() {
		select {
		case <-sig:
			cancel()
			// Take the TUI down before writing, so the message lands on the
			// normal screen rather than under the next redraw.
			if hooks.stopping != nil {
				hooks.stopping()
			}
			fmt.Fprintln(stderr, "\nanvil: stopping (again to quit at once)")
		case <-finished:
			return
		}
		select {
		case <-sig:
			if hooks.abort != nil {
				hooks.abort()
			}
			os.Exit(exitInterrupted)
		case <-finished:
		}
	}()
	return ctx, func() { signal.Stop(sig); close(finished); cancel() }
}

// beginRequest opens the request's session (a new one, the last one with
// --continue, a chosen one with --resume), records the request, and has
// orch tell the agents what came before and record what it does. The demo,
// whose workspace goes, has no session.
func beginRequest(ctx context.Context, cmd *cobra.Command, a *app.App, o runOptions, provider llm.Provider, request string, orch *agent.Orchestrator) (*conversation.Session, error) {
	if o.throwaway {
		return nil, nil
	}
	sess, err := openSession(a, o, provider.Name(), orch.Model)
	if err != nil {
		return nil, err
	}
	reportProblems(cmd.ErrOrStderr(), sess)
	// The run's context: a stop signal cancels the session's summary too.
	if err := attachRequest(ctx, cmd.ErrOrStderr(), sess, request, o.gitCommit, contextWindow(a, orch), orch); err != nil {
		sess.Close()
		return nil, err
	}
	return sess, nil
}

// openSession opens the session o asks for: the one --resume names, the
// workspace's last with --continue, else a new one.
func openSession(a *app.App, o runOptions, provider, model string) (*conversation.Session, error) {
	store, err := a.Conversations()
	if err != nil {
		return nil, err
	}
	var sess *conversation.Session
	switch {
	case o.resume != "" && o.resume != resumeList:
		sess, err = store.Resume(o.resume)
	case o.cont:
		sess, err = store.Latest()
	default:
		sess, err = store.New(provider, model)
	}
	if err != nil {
		// Never silently a fresh session: the user asked to continue.
		return nil, badInput("%v", err)
	}
	return sess, nil
}

// contextWindow is the run's model's context window, in tokens.
func contextWindow(a *app.App, orch *agent.Orchestrator) int {
	return llm.ContextWindow(orch.Model, a.Config.ContextWindow)
}

// attachRequest records request in sess and has orch tell the agents the
// session's earlier requests, note what was interrupted, commit as the
// session's (git), and record what it does.
func attachRequest(ctx context.Context, stderr io.Writer, sess *conversation.Session, request string, gitCommit bool, window int, orch *agent.Orchestrator) error {
	history, compacted, err := sess.HistoryFor(ctx, orch.Planner.Loop.Provider, orch.Model, window)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "anvil: session %s: summarizing its oldest requests failed (%v); the agents are told the latest ones only\n", sess.ID, err)
	case compacted:
		fmt.Fprintf(stderr, "anvil: session %s: its oldest requests were summarized to keep its history inside the model's window (/compact does it on request)\n", sess.ID)
	}
	c := agent.Conversation{ID: sess.ID, History: history}
	if n, text, ok := sess.Interrupted(); ok {
		c.Interrupted = fmt.Sprintf("request %d: %s", n, text)
		fmt.Fprintf(stderr, "anvil: session %s: request %d (%q) was interrupted before it finished; the agents are told so\n", sess.ID, n, text)
	}
	if c.N, err = sess.Begin(request); err != nil {
		return err
	}
	orch.Conversation = c
	// A per-session branch ([git] branch = "anvil/<slug>") is named after
	// the session's first request.
	slug := request
	for _, r := range sess.Records() {
		if r.Kind == conversation.KindRequest {
			slug = r.Text
			break
		}
	}
	orch.Executor.CommitOptions = service.GateOptions{Git: gitCommit, Slug: slug}
	orch.Events = sess.Recorder(c.N, orch.Events)
	orch.Planner.Loop.Events = orch.Events
	orch.Executor.Loop.Events = orch.Events
	return nil
}
