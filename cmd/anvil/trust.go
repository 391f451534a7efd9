package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/config"
)

func newTrustCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a workspace: its own programs and settings run as you",
		Long: `Add DIR (default .) to trusted_projects in your own config file.

In a workspace you trust, Anvil checks with the project's own programs and
settings: its TypeScript (node_modules/typescript) and the plugins its
tsconfig names, node_modules/.bin, its compile database's compiler and flags,
its .anvil/config.toml [servers], [check] and [git]. Until then Anvil checks
with its own tools, or says unverified and why. Either way, what runs in a
shadow tree stays sealed: the allow-listed environment, the home's credential
stores hidden.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			info, err := os.Stat(dir)
			if err != nil || !info.IsDir() {
				return badInput("%s is not a directory", dir)
			}
			paths := config.DefaultPaths(dir, os.Getenv)
			trusted, err := config.TrustWorkspace(paths.User, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "trusted %s (trusted_projects in %s)\n", trusted, paths.User)
			return nil
		},
	}
}
