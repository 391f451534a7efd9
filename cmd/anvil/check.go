package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Exit codes of check, by verdict.
const (
	exitRejected   = 1
	exitUnverified = 2
)

type checkOptions struct {
	dir      string
	json     bool
	commit   bool
	run      bool
	git      bool
	noDaemon bool
}

func newCheckCmd() *cobra.Command {
	var opts checkOptions
	cmd := &cobra.Command{
		Use:   "check CHANGESET.json|-",
		Short: "Validate a change set with the language servers, without touching your files",
		Long: `Validate a change set in the shadow workspace: the new contents are shown to
the project's language servers as unsaved overlays, and the errors they report
are compared with those already there. Only errors the change introduces, in
the changed files or in the files that depend on them, reject it. Nothing is
written unless --commit is given and the verdict is clean.

CHANGESET is {"changes": [{"path": P, "content": S} | {"path": P, "delete": true}]}
with paths relative to the workspace ("-" reads it from stdin).

With --run, a change set the servers find clean is also built and its tests
run in a shadow tree: a copy-on-write view of the workspace at its own path,
where nothing the build or the tests write reaches your files. Tests that
fail without the change do not block; one the change makes fail is re-run
once, then rejects it. The commands are detected (go build and go test for
a Go module, cargo for Rust, the project's vitest or jest, pytest for a
Python project) or set in .anvil/config.toml:
[run] build = "...", test = "...", timeout = "10m" (network = true only in
your own ~/.config/anvil/config.toml: a project's file cannot open it).

The check runs in the Anvil daemon, which keeps the servers warm between
calls and is started when it is not running (see 'anvil serve'); with
--no-daemon or ANVIL_DAEMON=off it runs with servers of its own.

Exit status: 0 clean, 1 rejected (or the commit was refused), 2 unverified
(a server was missing, crashed or timed out), 3 bad input, 4 the daemon went
away during --commit: the commit may or may not have been written (the next
check settles it from the journal and says which).`,
		Example: `  anvil check -C ./my-project changes.json
  anvil check --json --commit - < changes.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd, opts, args[0])
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "C", ".", "workspace root")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&opts.commit, "commit", false, "write the change set if the verdict is clean")
	cmd.Flags().BoolVar(&opts.run, "run", false, "also build and run the tests with the change in a shadow tree; a test it makes fail rejects it")
	cmd.Flags().BoolVar(&opts.git, "git-commit", false, "with --commit, also record the change set as a git commit (as [git] commit = true does)")
	cmd.Flags().BoolVar(&opts.noDaemon, "no-daemon", false, "check with language servers of this run's own")
	return cmd
}

func runCheck(cmd *cobra.Command, opts checkOptions, file string) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
	defer stop()

	specs, err := readChangeSet(cmd.InOrStdin(), file)
	if err != nil {
		return badInput("%v", err)
	}
	status := newStatusLine(cmd.ErrOrStderr())
	svc, closeSvc, err := openService(ctx, cmd, opts.dir, opts.noDaemon, true)
	if err != nil {
		return err
	}
	defer closeSvc()
	var out *service.Outcome
	gopts := service.GateOptions{Run: opts.run, Git: opts.git, Progress: status.show}
	if opts.commit {
		out, err = svc.Commit(ctx, specs, "anvil check --commit", gopts)
	} else {
		out, err = svc.Check(ctx, specs, gopts)
	}
	status.clear()
	if err != nil {
		return serviceError(err)
	}
	for _, r := range out.Recovered {
		fmt.Fprintf(cmd.ErrOrStderr(), "anvil: %s\n", r)
	}
	if len(out.Stale) > 0 {
		return &exitError{code: exitRejected, err: fmt.Errorf("nothing checked or written: %w", &changeset.StaleError{Paths: out.Stale})}
	}
	res := out.Result
	w := cmd.OutOrStdout()
	if opts.json {
		if err := writeJSON(w, checkJSON{Result: res, Committed: out.Committed, Git: out.Git}); err != nil {
			return err
		}
	} else {
		res.Report(w)
		if out.Committed {
			fmt.Fprintf(w, "\nCommitted %d %s (undo with 'anvil undo').\n", len(out.Files), pluralWord(len(out.Files), "file"))
			printGit(w, out.Git)
		} else if opts.commit && res.Verdict != shadow.Clean {
			fmt.Fprintln(w, "\nNothing written: only a clean change set is committed.")
		}
	}
	if len(out.Conflict) > 0 {
		return &exitError{code: exitRejected, err: fmt.Errorf("commit refused, nothing written: %w", &journal.ConflictError{Op: "commit", Paths: out.Conflict})}
	}
	switch res.Verdict {
	case shadow.Rejected:
		return &exitError{code: exitRejected}
	case shadow.Unverified:
		return &exitError{code: exitUnverified}
	}
	return nil
}

// openService returns the workspace's gate: the daemon's, or this
// process's when it is off or cannot start (said on stderr). oneRequest
// says the caller makes one request and exits (check, tool, undo; not
// the MCP server, which serves a session).
func openService(ctx context.Context, cmd *cobra.Command, dir string, noDaemon, oneRequest bool) (service.Service, func(), error) {
	svc, closeSvc, err := daemon.Open(ctx, daemon.OpenOptions{
		Dir: dir, NoDaemon: noDaemon, OneRequest: oneRequest, Getenv: os.Getenv,
		Warn: func(m string) { fmt.Fprintf(cmd.ErrOrStderr(), "anvil: %s\n", m) },
	})
	if err != nil {
		return nil, nil, serviceError(err)
	}
	return svc, closeSvc, nil
}

// serviceError maps a service's error to the exit codes of check, tool
// and undo.
func serviceError(err error) error {
	switch {
	case service.IsInput(err):
		return badInput("%v", err)
	case daemon.IsOutcomeUnknown(err):
		return &exitError{code: exitOutcomeUnknown, err: err}
	}
	return err
}

// checkJSON is check's --json output: the result plus whether it was written.
type checkJSON struct {
	*shadow.Result
	Committed bool                `json:"committed"`
	Git       *service.GitOutcome `json:"git,omitempty"`
}

// printGit says what became of a commit in git, if it was asked for.
func printGit(w io.Writer, g *service.GitOutcome) {
	switch {
	case g == nil:
	case g.Commit != "":
		fmt.Fprintf(w, "Git: %.12s on %s.\n", g.Commit, g.Branch)
		if g.Refused != "" {
			fmt.Fprintf(w, "Git: %s\n", g.Refused)
		}
	case g.Refused != "":
		fmt.Fprintf(w, "Git: %s\n", g.Refused)
	}
}

func readChangeSet(stdin io.Reader, file string) ([]changeset.Spec, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, fmt.Errorf("read change set: %w", err)
	}
	specs, err := changeset.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("change set %s: %v (want {\"changes\": [{\"path\": ..., \"content\": ...} | {\"path\": ..., \"delete\": true}]})", file, err)
	}
	return specs, nil
}

// recoverCrashed rolls back a commit a crash interrupted, before anything
// else touches the workspace, and says what it did and what it waits for.
// The service decides when recovery must run ([app.App.RecoverInterrupted]):
// with no commit interrupted the start takes no lock and waits for nothing.
func recoverCrashed(cmd *cobra.Command, a *app.App) error {
	stderr := cmd.ErrOrStderr()
	recs, err := a.RecoverInterrupted(cmd.Context(), func(holder string) {
		fmt.Fprintf(stderr, "anvil: a commit in this workspace was interrupted; waiting for another Anvil run committing here (%s) before recovering it…\n", holder)
	})
	if err != nil {
		return err
	}
	for _, r := range recs {
		fmt.Fprintf(cmd.ErrOrStderr(), "anvil: %s\n", r)
	}
	return nil
}
