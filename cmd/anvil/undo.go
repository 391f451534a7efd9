package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/journal"
)

func newUndoCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Restore the files of the last change set Anvil committed",
		Long: `Restore every file of the last committed change set in this workspace to what
it was before. Refuses, writing nothing, if you have changed any of those files
since. Run it again to undo the commit before that.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := app.New(app.Options{Dir: dir})
			if err != nil {
				return badInput("%v", err)
			}
			defer a.Close()
			if err := recoverCrashed(cmd, a); err != nil {
				return err
			}
			e, err := a.Journal.Undo(cmd.Context())
			switch {
			case errors.Is(err, journal.ErrNothingToUndo):
				return &exitError{code: exitFailure, err: errors.New("nothing to undo in this workspace")}
			case err != nil:
				return &exitError{code: exitFailure, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Undid %s (%s): restored %d %s\n", e.ID, e.Message, len(e.Files), pluralWord(len(e.Files), "file"))
			for _, p := range e.Paths() {
				fmt.Fprintf(cmd.OutOrStdout(), "  %s\n", p)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "dir", "C", ".", "workspace root")
	return cmd
}
