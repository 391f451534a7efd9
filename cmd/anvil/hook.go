package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/hooks"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/state"
)

type hookOptions struct {
	client          string
	timeout         time.Duration
	strict          bool
	importersWithin time.Duration
	// warning is said on the hook's standard error, where the client's
	// log keeps it: a setting the hook could not take.
	warning string
}

// importersWithinFrom reads ANVIL_HOOK_IMPORTERS_WITHIN through getenv:
// what it allows, or the default (none) and why the value was not taken.
func importersWithinFrom(getenv func(string) string) (time.Duration, string) {
	v := getenv("ANVIL_HOOK_IMPORTERS_WITHIN")
	if v == "" {
		return hooks.DefaultImportersWithin, ""
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return hooks.DefaultImportersWithin, fmt.Sprintf("ANVIL_HOOK_IMPORTERS_WITHIN=%q is not a positive duration (such as 800ms or 2s): the default is used (an edit's importers are left to the end of the turn)", v)
	}
	return d, ""
}

// maxHookInput bounds what a hook reads from its client (a Write of a
// large file is all in it).
const maxHookInput = 64 << 20

func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "What Anvil's installed hooks run (see 'anvil hooks install')",
		Long: `The commands a coding agent's hooks run, with the client's hook JSON on
stdin. Each answers as its client expects, within --timeout, and lets the
client go on unless it refuses: a malformed input, a file outside the
workspace, a tool it does not know, a gate that cannot answer in time are
let through with a note (--strict refuses what it could not verify).

  session-start  keeps the tree as the session starts, for the end-of-turn check
  pre-edit       checks the files an edit tool call would leave, before it writes
  post-edit      checks a file an edit wrote that pre-edit could not compute
                 (a loose match), and tells the model what it broke
  stop           checks every file the session changed, and their importers,
                 against the tree as the session started`,
	}
	cmd.AddCommand(
		newHookVerbCmd(hooks.VerbSessionStart, "Keep the workspace's tree as the session starts", hooks.PreEditTimeoutSeconds),
		newHookVerbCmd(hooks.VerbPreEdit, "Check an edit tool call before the client writes it", hooks.PreEditTimeoutSeconds),
		newHookVerbCmd(hooks.VerbPostEdit, "Check a file an edit wrote, where the edit could not be checked before", hooks.PreEditTimeoutSeconds),
		newHookVerbCmd(hooks.VerbStop, "Check what the session changed at the end of a turn", hooks.StopTimeoutSeconds),
	)
	return cmd
}

func newHookVerbCmd(verb, short string, timeout int) *cobra.Command {
	var opts hookOptions
	cmd := &cobra.Command{
		Use:   verb + " --client claude|codex|gemini|opencode|copilot",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHook(cmd, verb, opts)
		},
	}
	cmd.Flags().StringVar(&opts.client, "client", "", "the client whose hook this is: claude, codex, gemini, opencode or copilot")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", time.Duration(timeout)*time.Second, "bound on the hook's answer (below the client's own timeout)")
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "refuse what could not be verified, instead of letting it through with a note")
	if verb == hooks.VerbPreEdit || verb == hooks.VerbPostEdit {
		var within time.Duration
		within, opts.warning = importersWithinFrom(os.Getenv)
		cmd.Flags().DurationVar(&opts.importersWithin, "importers-within", within,
			"what an edit's check may expect to spend on the files that use what it changed, by the gate's learned cost of each (also $ANVIL_HOOK_IMPORTERS_WITHIN); by default nothing: the edit's own files are judged, and the files that use it are left to the end of the turn")
	}
	return cmd
}

// runHook answers one hook call. Whatever happens, the answer is one the
// client reads as it should: never an error exit of this command (exit 1
// is a broken hook to Claude Code, which goes on; exit 2 is a refusal to
// all three), and never a hang past --timeout.
func runHook(cmd *cobra.Command, verb string, opts hookOptions) error {
	c, err := hooks.ParseClient(opts.client)
	if err != nil {
		return badInput("%v", err)
	}
	if opts.timeout <= 0 {
		return badInput("--timeout must be greater than zero")
	}
	if opts.warning != "" && !cmd.Flags().Changed("importers-within") {
		fmt.Fprintf(cmd.ErrOrStderr(), "anvil: %s\n", opts.warning)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	a := answerHook(ctx, c, verb, opts, cmd.InOrStdin(), cmd.ErrOrStderr())
	if code := a.Write(c, verb, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

func answerHook(ctx context.Context, c hooks.Client, verb string, opts hookOptions, stdin io.Reader, stderr io.Writer) (a hooks.Answer) {
	defer func() {
		if r := recover(); r != nil {
			a = hooks.Answer{Message: fmt.Sprintf("Anvil: the hook failed (%v); not checked", r)}
		}
	}()
	data, err := readBounded(ctx, stdin, maxHookInput)
	if err != nil {
		return hooks.Answer{Message: fmt.Sprintf("Anvil: reading the hook's input: %v; not checked", err)}
	}
	in, err := hooks.ParseInput(data)
	if err != nil {
		return hooks.Answer{Message: fmt.Sprintf("Anvil: %v; not checked", err)}
	}
	g := &hooks.Gate{
		Client: c, Getenv: os.Getenv, Strict: opts.strict, ImportersWithin: opts.importersWithin,
		Snapshots:   hooks.NewStore(state.Dir(os.Getenv)),
		TrustNotice: func(dir string) string { return app.TrustNotice(dir, os.Getenv) },
		Open: func(ctx context.Context, dir string) (service.Service, func(), error) {
			return daemon.Open(ctx, daemon.OpenOptions{Dir: dir, OneRequest: true, Getenv: os.Getenv, Warn: func(m string) { fmt.Fprintf(stderr, "anvil: %s\n", m) }})
		},
		OpenShared: func(ctx context.Context, dir string) (service.Service, func(), error) {
			return daemon.Shared(ctx, daemon.OpenOptions{Dir: dir, Getenv: os.Getenv})
		},
	}
	switch verb {
	case hooks.VerbSessionStart:
		return g.SessionStart(ctx, in)
	case hooks.VerbStop:
		return g.Stop(ctx, in)
	case hooks.VerbPostEdit:
		return g.PostEdit(ctx, in)
	}
	return g.PreEdit(ctx, in)
}

// readBounded reads r to its end, at most limit bytes, giving up when ctx
// ends (a client that never closes the hook's stdin).
func readBounded(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		if res.err == nil && int64(len(res.data)) > limit {
			return nil, fmt.Errorf("more than %d MiB", limit>>20)
		}
		return res.data, res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("no end of input within the hook's bound")
	}
}
