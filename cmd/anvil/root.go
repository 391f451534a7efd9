package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/conversation"
)

// Exit codes shared by every command. check and the agent add their own
// meanings for 1 and 2 (rejected, unverified); 3 is always bad input; 4
// is a commit or an undo whose daemon went away while it handled it (it
// may or may not have been made).
const (
	exitOK             = 0
	exitFailure        = 1
	exitBadInput       = 3
	exitOutcomeUnknown = 4
)

// exitError carries an exit code out of a command without printing twice.
type exitError struct {
	code int
	err  error // printed to stderr when non-nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, args...)}
}

// run executes the CLI with args and streams, returning the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "anvil:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors (unknown flag, wrong arg count) are usage errors.
	fmt.Fprintln(stderr, "anvil:", err)
	return exitBadInput
}

func newRootCmd() *cobra.Command {
	var opts runOptions
	var listSlash bool
	cmd := &cobra.Command{
		Use:   "anvil [flags] \"<request>\" [DIR]",
		Short: "A terminal coding agent whose edits pass a language server before they reach your files",
		Long: `Anvil plans a change with read-only tools, asks you to approve the plan, then
makes the edits in a shadow workspace where real language servers check them.
Only change sets that introduce no new errors are written to disk.

With no request, on a terminal, anvil opens a session: ask, look, ask again
(follow-ups see what came before); /help lists the session's commands.`,
		Example: `  anvil "Rename the User type to Account across all files" ./my-project
  anvil --plan-only "Add retries to the HTTP client"
  anvil --continue "Now add a test for it"
  anvil --resume                     # the workspace's sessions
  anvil --resume 20261201-091500-a1b2c3 "Undo the second part"
  anvil --provider openai --model qwen2.5-coder "Add a JSDoc comment to fetchUser in src/api.ts"
  anvil demo`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          slashOrRequestArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listSlash {
				return listCommands(cmd, cmp.Or(opts.dir, firstArg(args), "."))
			}
			if opts.resume == resumeList {
				// pflag reads "--resume ID" as --resume and an argument.
				if len(args) > 0 && conversation.IsID(args[0]) {
					opts.resume, args = args[0], args[1:]
				} else if len(args) == 0 {
					return listSessions(cmd, opts)
				} else {
					return badInput("--resume needs the session's id before the request; 'anvil --resume' lists them")
				}
			}
			if opts.cont && opts.resume != "" {
				return badInput("--continue and --resume exclude each other")
			}
			if len(args) == 0 {
				// On a terminal, a session: the TUI with an input box.
				if !opts.json && useTUI(cmd.OutOrStdout(), os.Getenv) {
					return runInteractive(cmd, opts)
				}
				if opts.cont || opts.resume != "" {
					return badInput("give the request to continue the session with: anvil --continue \"<request>\" (or run anvil on a terminal)")
				}
				return cmd.Help()
			}
			if name, ok := strings.CutPrefix(args[0], "/"); ok {
				return runSlash(cmd, opts, name, args[1:])
			}
			dir := ""
			if len(args) == 2 {
				dir = args[1]
			}
			return runRequest(cmd, opts, args[0], dir)
		},
	}
	addRunFlags(cmd, &opts)
	addSessionFlags(cmd, &opts)
	cmd.Flags().BoolVar(&listSlash, "commands", false, "list the slash commands (.anvil/commands/*.md) and exit")
	// Subcommands inherit this; CommandPath names the command as typed
	// ("anvil", "anvil serve status"), the root included once.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return badInput("%v (see '%s --help')", err, c.CommandPath())
	})
	cmd.AddCommand(newToolCmd(), newCheckCmd(), newUndoCmd(), newServeCmd(), newMCPCmd(), newDemoCmd(), newInitCmd(), newDoctorCmd(), newConfigCmd(), newHooksCmd(), newHookCmd(), newTrustCmd(), newReplayCmd())
	return cmd
}

// slashOrRequestArgs accepts a request and an optional directory, or a
// slash command with any number of arguments.
func slashOrRequestArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 && strings.HasPrefix(args[0], "/") {
		return nil
	}
	return cobra.RangeArgs(0, 2)(cmd, args)
}

func firstArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return ""
}

func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" {
		return "devel"
	}
	return info.Main.Version
}
