package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/demo"
)

func newDemoCmd() *cobra.Command {
	var o runOptions
	var keep, ask bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on a bundled example, with replayed model turns",
		Long: `Copy a small TypeScript project to a temporary directory and run the request
"` + demo.Request + `" on it.

The model's turns are replayed from a script, so no API key is needed; the
tools, the language server (TypeScript 7's), the shadow workspace and the
journal are real. You see the Planner's tool calls, the plan, the approval,
a commit rejected because an importer breaks, the clean commit, the diff and
the summary. The plan is approved automatically unless --ask is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := os.MkdirTemp("", "anvil-demo-")
			if err != nil {
				return err
			}
			if !keep {
				defer os.RemoveAll(dir)
			}
			if err := demo.Extract(dir); err != nil {
				return err
			}
			provider, err := demo.Provider()
			if err != nil {
				return err
			}
			a, err := app.New(app.Options{Dir: dir})
			if err != nil {
				return err
			}
			defer a.Close()
			fmt.Fprintf(cmd.ErrOrStderr(), "anvil demo: example project in %s; the model's turns are replayed, everything else is real\n", dir)
			o.yes, o.throwaway = !ask, !keep
			err = execute(cmd, a, warmService(cmd, a), provider, o, demo.Request)
			if keep {
				fmt.Fprintf(cmd.ErrOrStderr(), "the example project is kept in %s (undo with: anvil undo -C %s)\n", dir, dir)
			} else {
				fmt.Fprintln(cmd.ErrOrStderr(), "the example project was removed; 'anvil demo --keep' keeps it, to look at it or undo there")
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print events as NDJSON, one per line")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the example project afterwards")
	cmd.Flags().BoolVar(&ask, "ask", false, "ask for approval instead of approving automatically")
	return cmd
}
