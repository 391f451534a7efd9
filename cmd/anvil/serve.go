package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/daemon"
)

func newServeCmd() *cobra.Command {
	var socket, memory string
	var idle, unused time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the daemon that keeps the gate's language servers warm",
		Long: `Run the Anvil daemon in the foreground: it owns the language servers of every
workspace a client asks about, keeps them warm between checks, and stops a
workspace's servers once it has been idle for --idle (the daemon exits once it
holds none for as long). 'anvil check', 'anvil tool' and 'anvil mcp' start it
on their own when it is not running, so running it by hand is only needed to
watch its log.

It listens on a socket private to you, in $XDG_RUNTIME_DIR/anvil (else a
directory of yours in the temporary directory), one per environment (state,
config and tools directories, PATH).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
			defer stop()
			if socket == "" {
				socket = daemon.SocketPath(os.Getenv)
			}
			var bound config.Size
			if memory != "" {
				if err := bound.UnmarshalText([]byte(memory)); err != nil || bound > 0 && bound < daemon.MinMemory {
					if err == nil {
						err = fmt.Errorf("%s is below the smallest bound, %d MiB", memory, daemon.MinMemory>>20)
					}
					return &exitError{code: exitFailure, err: fmt.Errorf("--memory (or ANVIL_DAEMON_MEMORY): %w", err)}
				}
			}
			err := daemon.Run(ctx, daemon.Options{Socket: socket, Idle: idle, Unused: unused, Memory: int64(bound), Log: cmd.ErrOrStderr(), Getenv: os.Getenv})
			if errors.Is(err, daemon.ErrRunning) {
				return &exitError{code: exitFailure, err: fmt.Errorf("%w on %s ('anvil serve status' shows it)", err, socket)}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "listen on this socket instead of the default")
	defaultIdle := daemon.DefaultIdle
	if d, err := time.ParseDuration(os.Getenv("ANVIL_DAEMON_IDLE")); err == nil && d > 0 {
		defaultIdle = d
	}
	cmd.Flags().DurationVar(&idle, "idle", defaultIdle, "stop a workspace's servers after this long without a request ($ANVIL_DAEMON_IDLE)")
	cmd.Flags().StringVar(&memory, "memory", os.Getenv("ANVIL_DAEMON_MEMORY"), "the memory everything the daemon starts may hold together (\"6G\"; \"off\"); over it, background work and then the least recently used idle workspaces are stopped; default half the machine's, or of a container's bound ($ANVIL_DAEMON_MEMORY)")
	cmd.Flags().DurationVar(&unused, "unused", 0, "exit if no client connects within this long (a daemon a client starts: 1m); 0 waits")
	cmd.AddCommand(newServeStatusCmd(), newServeStopCmd())
	return cmd
}

func newServeStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the daemon's workspaces, servers, memory and idle times",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := findDaemon(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			st, err := c.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), st)
			}
			printStatus(cmd.OutOrStdout(), st)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func newServeStopCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the daemon and its language servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := findDaemon(cmd.Context())
			if errors.Is(err, errNoDaemon) {
				fmt.Fprintln(cmd.OutOrStdout(), "No Anvil daemon is running.")
				return nil
			}
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			if err := c.Stop(ctx); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Stopped the Anvil daemon (pid %d).\n", c.PID)
			return nil
		},
	}
}

var errNoDaemon = errors.New("no Anvil daemon is running")

func findDaemon(ctx context.Context) (*daemon.Client, error) {
	socket := daemon.SocketPath(os.Getenv)
	c, err := daemon.Find(ctx, socket)
	if err != nil {
		return nil, &exitError{code: exitFailure, err: fmt.Errorf("%w (looked for %s)", errNoDaemon, socket)}
	}
	return c, nil
}

func printStatus(w io.Writer, st *daemon.Status) {
	fmt.Fprintf(w, "Anvil daemon: pid %d, version %s, up %s, workspaces stop after %s idle\n",
		st.PID, st.Version, time.Since(st.Started).Round(time.Second), st.Idle)
	if st.MemoryBoundKiB > 0 {
		fmt.Fprintf(w, "Memory: everything it started holds %d MiB of its bound of %d MiB\n", st.ChildrenKiB>>10, st.MemoryBoundKiB>>10)
	}
	if len(st.Workspaces) == 0 {
		fmt.Fprintln(w, "No workspace open.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKSPACE\tSERVER\tPID\tMEMORY\tIDLE\tREQUESTS")
	for _, ws := range st.Workspaces {
		idle := ws.IdleFor.Round(time.Second).String()
		if ws.Active > 0 {
			idle = fmt.Sprintf("busy (%d)", ws.Active)
		}
		if len(ws.Servers) == 0 {
			fmt.Fprintf(tw, "%s\t-\t\t\t%s\t%d\n", ws.Dir, idle, ws.Requests)
		}
		for _, s := range ws.Servers {
			name := s.Name
			if s.Version != "" {
				name += " " + s.Version
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f MiB\t%s\t%d\n", ws.Dir, name, s.PID, float64(s.RSSKiB)/1024, idle, ws.Requests)
		}
	}
	tw.Flush()
	for _, ws := range st.Workspaces {
		for _, j := range ws.Background {
			fmt.Fprintf(w, "%s: in the background, %s for %s (disk state %.12s, %s): %s\n",
				ws.Dir, j.Checker, strings.Join(j.Projects, ", "), j.DiskState, time.Since(j.Started).Round(time.Second), j.Why)
		}
	}
}
