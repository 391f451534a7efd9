package main

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/replay"
)

type replayOptions struct {
	dir     string
	commits int
	since   string
	json    string
}

func newReplayCmd() *cobra.Command {
	var opts replayOptions
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Show what the gate would have done on this repository's recent commits",
		Long: `Replay the repository's recent commits through the gate, without touching
your files: each commit is applied to a scratch tree of its parent, whole and
file by file (a change set as an agent has it mid-task), and the gate's verdict
is held to the project's own batch checker (tsc, pyright, go vet, cargo check, your
[check] command) over the same trees: agreement, breaking changes caught,
false rejects, what the gate could not verify and why, and both sides' times.

The scratch tree is filled by git through an index of its own: your work tree,
index and HEAD are not read for it or written. Dependency directories
(node_modules, .venv) are shown to it through links to yours.`,
		Example: `  anvil replay
  anvil replay -C ./my-project --commits 20 --json replay.json
  anvil replay --since v1.2.0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
			defer stop()
			if opts.since != "" && !cmd.Flags().Changed("commits") {
				opts.commits = 0 // every commit after --since
			}
			status := newStatusLine(cmd.ErrOrStderr())
			rep, err := app.Replay(ctx, replay.Options{Dir: opts.dir, Commits: opts.commits, Since: opts.since,
				Progress: func(m string) { status.set(m) }}, os.Getenv)
			status.clear()
			if err != nil {
				return err
			}
			rep.Print(cmd.OutOrStdout())
			if opts.json != "" {
				f, err := os.Create(opts.json)
				if err != nil {
					return err
				}
				if err := writeJSON(f, rep); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "anvil: the report is in %s\n", opts.json)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "C", ".", "workspace root, in a git work tree")
	cmd.Flags().IntVar(&opts.commits, "commits", 10, "how many of HEAD's latest commits to replay")
	cmd.Flags().StringVar(&opts.since, "since", "", "replay the commits after this revision (all of them, unless --commits is given)")
	cmd.Flags().StringVar(&opts.json, "json", "", "also write the report as JSON to this file")
	return cmd
}
