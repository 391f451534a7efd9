package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/conversation"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/providers"
	"github.com/anvil-dev/anvil/internal/slash"
	"github.com/anvil-dev/anvil/internal/ui"
	"github.com/anvil-dev/anvil/internal/ui/tui"
)

// runInteractive is anvil with no request on a terminal: a session in
// the TUI. Each line is a request run in the same session (follow-ups see
// what came before), one at a time; Esc or Ctrl-C stops the current one,
// not the session; /commands act on the session. The workspace's servers
// stay warm between requests (the daemon's, or this process's own).
func runInteractive(cmd *cobra.Command, o runOptions) error {
	a, err := app.New(app.Options{Dir: cmp.Or(o.dir, ".")})
	if err != nil {
		return badInput("%v", err)
	}
	defer a.Close()
	model := cmp.Or(o.model, a.Config.Model)
	provider, err := providers.Select(providers.Choice{Provider: cmp.Or(o.provider, a.Config.Provider), Model: model, BaseURL: a.Config.BaseURL, ReplayScript: o.replay}, os.Getenv)
	if errors.Is(err, providers.ErrNoProvider) {
		return badInput("a session sends its requests to a model, and %v", err)
	}
	if err != nil {
		return badInput("%v", err)
	}
	sess, err := openSession(a, o, provider.Name(), cmp.Or(model, provider.Model()))
	if err != nil {
		return err
	}
	svc := warmService(cmd, a)
	defer svc.close()
	if err := recoverCrashed(cmd, a); err != nil {
		return err
	}
	ctx, stop, setScreen := screenSignals(cmd, a.Servers.KillAll)
	defer stop()
	opts := tuiOptions(cmd, a.Servers.KillAll)
	opts.Interactive = true
	screen := tui.Start(ctx, opts)
	setScreen(screen)
	s := &session{cmd: cmd, a: a, o: o, svc: svc, screen: screen, provider: provider, model: model, sess: sess}
	// /clear and /resume replace the session: the one open at the end is
	// closed.
	defer func() { s.sess.Close() }()
	s.greet()
	for {
		line, err := screen.Prompt(ctx)
		if err != nil {
			break
		}
		if cmdline, ok := strings.CutPrefix(line, "/"); ok {
			name, args, _ := strings.Cut(cmdline, " ")
			if request, run := s.command(ctx, name, strings.TrimSpace(args)); run {
				s.request(ctx, request)
			}
			continue
		}
		s.request(ctx, line)
	}
	a.StopServers()
	screen.Quit()
	fmt.Fprintf(cmd.OutOrStdout(), "session %s; continue it with: anvil --continue\n", s.sess.ID)
	return nil
}

// session is an interactive session's state.
type session struct {
	cmd      *cobra.Command
	a        *app.App
	o        runOptions
	svc      *runService
	screen   *tui.UI
	provider llm.Provider
	model    string
	sess     *conversation.Session
}

func (s *session) greet() {
	n := s.sess.Requests()
	what := "a new session"
	if n > 0 {
		what = fmt.Sprintf("session %s, %d earlier %s", s.sess.ID, n, pluralWord(n, "request"))
	}
	s.screen.Note(fmt.Sprintf("%s in %s · %s · /help lists the commands", what, s.a.Root.Dir(), cmp.Or(s.model, s.provider.Model())))
	if s.a.Notice != "" {
		s.screen.Note(s.a.Notice)
	}
	for _, l := range problemLines(s.sess) {
		s.screen.Note(l)
	}
}

// request runs one request in the session.
func (s *session) request(ctx context.Context, request string) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.screen.Begin(cancel)
	defer s.screen.Finished()
	var approver agent.Approver = s.screen.Approver()
	if s.o.yes {
		approver = ui.AutoApprover{}
	}
	orch, err := s.a.Orchestrator(app.RunOptions{Provider: s.provider, Model: s.model, Approver: approver, Events: s.screen.Sink(),
		MaxAttempts: s.o.maxAttempts, Service: s.svc.Service})
	if err != nil {
		s.screen.Note("error: " + err.Error())
		return
	}
	var stderr strings.Builder
	if err := attachRequest(rctx, &stderr, s.sess, request, s.o.gitCommit, contextWindow(s.a, orch), orch); err != nil {
		s.screen.Note("error: " + err.Error())
		return
	}
	// What a headless run says on stderr (an interrupted request, the
	// history summarized) goes to the screen.
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if line != "" {
			s.screen.Note(strings.TrimPrefix(line, "anvil: "))
		}
	}
	if _, err := orch.Run(rctx, request); errors.Is(err, context.Canceled) && ctx.Err() == nil {
		s.screen.Note("stopped; nothing more was written (undo a commit with /undo)")
	}
}

// command runs a /command; a project's command is a request to run.
func (s *session) command(ctx context.Context, name, args string) (request string, run bool) {
	note := s.screen.Note
	switch name {
	case "help":
		note(helpText(s.a.Root.Dir()))
	case "diff":
		note(cmp.Or(s.sess.Diff(), "this session has committed nothing yet"))
	case "plan":
		if p := s.sess.LastPlan(); p != nil {
			note(p.Markdown())
		} else {
			note("this session has no plan yet")
		}
	case "undo":
		var out strings.Builder
		c := *s.cmd
		c.SetOut(&out)
		c.SetErr(&out)
		if err := sessionUndo(&c, s.a, s.sess); err != nil {
			out.WriteString(err.Error())
		}
		note(out.String())
	case "compact":
		model := cmp.Or(s.model, s.provider.Model())
		summary, err := s.sess.Compact(ctx, s.provider, model, llm.ContextWindow(model, s.a.Config.ContextWindow))
		if err != nil {
			note("error: " + err.Error())
		} else {
			note("compacted: the earlier requests are now this summary (their plans kept verbatim):\n" + summary)
		}
	case "clear":
		next, err := openSession(s.a, runOptions{}, s.provider.Name(), cmp.Or(s.model, s.provider.Model()))
		if err != nil {
			note("error: " + err.Error())
			return "", false
		}
		s.sess.Close()
		s.sess = next
		note("a new session: the next requests start from nothing (the old one stays: /resume)")
	case "resume":
		if args == "" {
			var out strings.Builder
			c := *s.cmd
			c.SetOut(&out)
			if err := listSessions(&c, runOptions{dir: s.a.Root.Dir()}); err != nil {
				out.WriteString(err.Error())
			}
			note(out.String())
			return "", false
		}
		if args == s.sess.ID {
			note("session " + args + " is the one open here")
			return "", false
		}
		next, err := openSession(s.a, runOptions{resume: args}, "", "")
		if err != nil {
			note("error: " + err.Error())
			return "", false
		}
		s.sess.Close()
		s.sess = next
		s.greet()
	case "model":
		if args == "" {
			note("model: " + cmp.Or(s.model, s.provider.Model()))
			return "", false
		}
		s.model = args
		note("the next requests use " + args)
	case "memory":
		note(memoryText(ctx, s.a))
	default:
		c, err := slash.Find(commandDirs(s.a.Root.Dir()), name)
		if err != nil {
			note("error: " + err.Error())
			return "", false
		}
		return c.Request(args), true
	}
	return "", false
}
