package main

import (
	"os/signal"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/mcpserver"
)

func newMCPCmd() *cobra.Command {
	var dir string
	var noDaemon bool
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the gate and the read-only tools to another agent over MCP (stdio)",
		Long: `Run a Model Context Protocol server on stdin and stdout for the workspace, so
that another agent (Claude Code, Codex, Cursor, crush...) can validate a change
set with the project's real language servers before it writes anything.

Tools: read_file, list_files, text_search, ast_search, find_symbol,
diagnostics, rename_symbol (computes a change set, writes nothing),
check_changes (the verdict of 'anvil check --json'; never writes),
apply_changes (validates, and commits atomically through the journal only when
clean) and undo. Problems the model can fix come back as tool errors.

The servers are the daemon's (see 'anvil serve'), so they stay warm between
sessions; with --no-daemon or ANVIL_DAEMON=off they are this process's own.
It exits when its client closes stdin.`,
		Example: `  claude mcp add anvil -- anvil mcp -C /path/to/project`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
			defer stop()
			svc, closeSvc, err := openService(ctx, cmd, dir, noDaemon)
			if err != nil {
				return err
			}
			defer closeSvc()
			s, err := mcpserver.New(ctx, svc, version())
			if err != nil {
				return err
			}
			return s.Run(ctx, &mcp.StdioTransport{})
		},
	}
	cmd.Flags().StringVarP(&dir, "dir", "C", ".", "workspace root")
	cmd.Flags().BoolVar(&noDaemon, "no-daemon", false, "run with language servers of this process's own")
	return cmd
}
