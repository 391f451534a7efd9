package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/gate"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Exit codes of check, by verdict.
const (
	exitRejected   = 1
	exitUnverified = 2
)

type checkOptions struct {
	dir    string
	json   bool
	commit bool
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

Exit status: 0 clean, 1 rejected (or the commit was refused), 2 unverified
(a server was missing, crashed or timed out), 3 bad input.`,
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
	a, err := app.New(app.Options{Dir: opts.dir, Progress: status.progress()})
	if err != nil {
		return badInput("%v", err)
	}
	defer a.Close()
	if err := recoverCrashed(cmd, a); err != nil {
		return err
	}
	set, err := changeset.Load(a.Root, specs)
	var stale *changeset.StaleError
	if errors.As(err, &stale) {
		return &exitError{code: exitRejected, err: fmt.Errorf("nothing checked or written: %w", err)}
	}
	if err != nil {
		return badInput("%v", err)
	}
	var res *shadow.Result
	var committed *journal.Entry
	var commitErr error
	if opts.commit {
		waiting := func(holder string) {
			fmt.Fprintf(cmd.ErrOrStderr(), "anvil: waiting for another Anvil run committing in this workspace (%s)…\n", holder)
		}
		var out gate.Outcome
		out, commitErr = a.Gate.Commit(ctx, set, 1, "anvil check --commit", waiting)
		res, committed = out.Result, out.Entry
		if res == nil {
			return commitErr
		}
	} else if res, err = a.Gate.Check(ctx, set, 1); err != nil {
		return err
	}

	status.clear()
	out := cmd.OutOrStdout()
	if opts.json {
		if err := writeJSON(out, checkJSON{Result: res, Committed: committed != nil}); err != nil {
			return err
		}
	} else {
		res.Report(out)
		if committed != nil {
			fmt.Fprintf(out, "\nCommitted %d %s (undo with 'anvil undo').\n", len(committed.Files), pluralWord(len(committed.Files), "file"))
		} else if opts.commit && res.Verdict != shadow.Clean {
			fmt.Fprintln(out, "\nNothing written: only a clean change set is committed.")
		}
	}
	if commitErr != nil {
		var conflict *journal.ConflictError
		if errors.As(commitErr, &conflict) {
			return &exitError{code: exitRejected, err: fmt.Errorf("commit refused, nothing written: %w", commitErr)}
		}
		if errors.Is(commitErr, journal.ErrNothingToCommit) {
			return nil
		}
		return commitErr
	}
	switch res.Verdict {
	case shadow.Rejected:
		return &exitError{code: exitRejected}
	case shadow.Unverified:
		return &exitError{code: exitUnverified}
	}
	return nil
}

// checkJSON is check's --json output: the result plus whether it was written.
type checkJSON struct {
	*shadow.Result
	Committed bool `json:"committed"`
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

// recoverCrashed rolls back commits a crash interrupted, before anything
// else touches the workspace, and says what it did.
func recoverCrashed(cmd *cobra.Command, a *app.App) error {
	recs, err := a.Journal.Recover(cmd.Context())
	if err != nil {
		return fmt.Errorf("recovering an interrupted commit: %w", err)
	}
	for _, r := range recs {
		fmt.Fprintf(cmd.ErrOrStderr(), "anvil: rolled back an interrupted commit (%s): restored %d files", r.Entry.ID, len(r.Restored))
		if len(r.Kept) > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "; left %v as you changed them since", r.Kept)
		}
		fmt.Fprintln(cmd.ErrOrStderr())
	}
	return nil
}
