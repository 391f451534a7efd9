package main

import (
	"context"
	"errors"
	"io"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/mcpserver"
)

// mcpDrain bounds how long a stopped 'anvil mcp' waits for the tool calls
// in flight (a check with its servers) before it ends them.
const mcpDrain = 10 * time.Second

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
clean) and undo. Problems the model can fix come back as tool errors. A line
on stdin that is not a JSON-RPC message, or is over 16 MiB, is answered with a
JSON-RPC error (parse error or invalid request), and the session goes on.

The servers are the daemon's (see 'anvil serve'), so they stay warm between
sessions; with --no-daemon or ANVIL_DAEMON=off they are this process's own.
The workspace is -C DIR, else the current directory, which must not be /
(where some clients start their servers): without -C there, it exits 3.
It ends, with status 0, when its client closes stdin or sends SIGINT or
SIGTERM, once the calls in flight are answered (up to 10 s).`,
		Example: `  claude mcp add anvil -- anvil mcp -C /path/to/project`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// MCP clients stop their servers with signals (Claude Code:
			// SIGINT, then SIGTERM; Codex: SIGTERM and a closed stdin):
			// that is the session's normal end, so calls in flight finish
			// (within a bound) and the exit status is 0.
			if err := mcpWorkspace(cmd, dir); err != nil {
				return err
			}
			stopped, stop := signal.NotifyContext(context.Background(), stopSignals()...)
			defer stop()
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			svc, closeSvc, err := openService(ctx, cmd, dir, noDaemon, false)
			if err != nil {
				return err
			}
			defer closeSvc()
			s, err := mcpserver.New(ctx, svc, version())
			if err != nil {
				return err
			}
			go func() {
				select {
				case <-stopped.Done():
					s.Drain(mcpDrain)
					cancel()
				case <-ctx.Done():
				}
			}()
			// Anvil's own line reader: a bad line is answered with an
			// error, and the session goes on.
			err = s.Run(ctx, &mcpserver.LineTransport{In: cmd.InOrStdin(), Out: cmd.OutOrStdout()})
			if stopped.Err() != nil || errors.Is(err, io.EOF) || (err != nil && ctx.Err() != nil) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&dir, "dir", "C", ".", "workspace root")
	cmd.Flags().BoolVar(&noDaemon, "no-daemon", false, "run with language servers of this process's own")
	return cmd
}

// mcpWorkspace refuses a workspace no one chose: the client starts
// 'anvil mcp' in a directory of its choosing, and some (desktop apps)
// start it in /, which is no project. -C names the workspace; without it
// the current directory is taken when it is not /.
func mcpWorkspace(cmd *cobra.Command, dir string) error {
	if cmd.Flags().Changed("dir") {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return badInput("the workspace: %v", err)
	}
	if filepath.Dir(abs) == abs {
		return badInput("no workspace: anvil mcp was started in %s without -C, and the root of the file system is no project; "+
			"name the project in the client's command: anvil mcp -C /path/to/project", abs)
	}
	return nil
}
