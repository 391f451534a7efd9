package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/service"
)

func newUndoCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Restore the files of the last change set Anvil committed",
		Long: `Restore every file of the last committed change set in this workspace to what
it was before. Refuses, writing nothing, if you have changed any of those files
since. Run it again to undo the commit before that.

Exit status: 0 undone, 1 nothing to undo or refused, 3 bad input, 4 the daemon
went away while it undid: the undo may or may not have been made (the next
request settles it from the journal and says which).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, closeSvc, err := openService(cmd.Context(), cmd, dir, false, true)
			if err != nil {
				return err
			}
			defer closeSvc()
			out, err := svc.Undo(cmd.Context(), service.UndoOptions{})
			switch {
			case service.IsInput(err), daemon.IsOutcomeUnknown(err):
				return serviceError(err)
			case err != nil:
				return &exitError{code: exitFailure, err: err}
			case out.Nothing:
				return &exitError{code: exitFailure, err: errors.New("nothing to undo in this workspace")}
			case len(out.Conflict) > 0:
				return &exitError{code: exitFailure, err: &journal.ConflictError{Op: "undo", Paths: out.Conflict}}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Undid %s (%s): restored %d %s\n", out.Entry, out.Message, len(out.Restored), pluralWord(len(out.Restored), "file"))
			for _, p := range out.Restored {
				fmt.Fprintf(cmd.OutOrStdout(), "  %s\n", p)
			}
			if g := out.Git; g != nil && g.Commit != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "Git: reverted in %.12s on %s.\n", g.Commit, g.Branch)
			}
			if g := out.Git; g != nil && g.Refused != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "Git: %s\n", g.Refused)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "dir", "C", ".", "workspace root")
	return cmd
}
