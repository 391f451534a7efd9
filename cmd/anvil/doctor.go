package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/doctor"
)

type doctorOptions struct {
	dir     string
	json    bool
	timeout time.Duration
}

func newDoctorCmd() *cobra.Command {
	var opts doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that Anvil can work here: config, provider, language servers, tools, session directory",
		Long: `Check everything Anvil needs in a workspace and say how to fix what is wrong:

  config    the user and project config files parse and hold valid values
  provider  which of ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_BASE_URL and
            OPENAI_API_KEY are set (never their values) and which provider a
            run would use
  server    for each of the project's languages (the config's 'languages', or
            those detected as 'anvil init' does): the language server found,
            its path, and whether it starts and answers initialize, timed;
            it is shut down afterwards
  tool      ripgrep, git and patch
  session   the session directory base is writable
  hooks     for Claude Code, Codex and Gemini CLI, in the project's settings and
            yours: whether Anvil's hooks guard their edits (anvil hooks install)

Each check is ok, warn or fail. A missing provider is only a warning, since
'anvil demo' runs without one; a detected language whose server is missing or
does not start, a config file that does not parse and an unwritable session
directory fail.

Exit status: 0 when nothing fails, 1 when a check fails, 3 bad input.`,
		Example: `  anvil doctor
  anvil doctor -C ./my-project --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd, opts) },
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "C", ".", "workspace root")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the results as JSON")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 60*time.Second, "bound on each language server's start")
	return cmd
}

func runDoctor(cmd *cobra.Command, opts doctorOptions) error {
	if opts.timeout <= 0 {
		return badInput("--timeout must be greater than zero")
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
	defer stop()
	if streamIsTerminal(cmd.ErrOrStderr()) && !opts.json {
		fmt.Fprintln(cmd.ErrOrStderr(), "anvil doctor: starting the language servers…")
	}
	exe, _ := os.Executable()
	report, err := doctor.Run(ctx, doctor.Options{Dir: opts.dir, Getenv: os.Getenv, ServerTimeout: opts.timeout, Helper: exe})
	if err != nil {
		return badInput("%v", err)
	}
	out := cmd.OutOrStdout()
	if opts.json {
		if err := writeJSON(out, report); err != nil {
			return err
		}
	} else {
		renderDoctor(out, report, streamIsTerminal(out) && os.Getenv("NO_COLOR") == "")
	}
	if report.Blocking() {
		return &exitError{code: exitFailure}
	}
	return nil
}

// renderDoctor prints one aligned row per check, with the fix on a line of
// its own under the detail, then a summary.
func renderDoctor(w io.Writer, r doctor.Report, color bool) {
	fmt.Fprintf(w, "workspace: %s\n\n", r.Workspace)
	groupW, nameW := 0, 0
	for _, c := range r.Checks {
		groupW, nameW = max(groupW, len(c.Group)), max(nameW, len(c.Name))
	}
	indent := strings.Repeat(" ", 4+2+groupW+2+nameW+2)
	for _, c := range r.Checks {
		status := fmt.Sprintf("%-4s", c.Status)
		if color {
			status = colorStatus(c.Status, status)
		}
		fmt.Fprintf(w, "%s  %-*s  %-*s  %s\n", status, groupW, c.Group, nameW, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "%sfix: %s\n", indent, c.Fix)
		}
	}
	fails, warns := r.Count(doctor.Fail), r.Count(doctor.Warn)
	switch {
	case fails > 0:
		fmt.Fprintf(w, "\n%d %s, %d %s: fix the failures before running Anvil here.\n",
			fails, pluralWord(fails, "failure"), warns, pluralWord(warns, "warning"))
	case warns > 0:
		fmt.Fprintf(w, "\nNo failures; %d %s.\n", warns, pluralWord(warns, "warning"))
	default:
		fmt.Fprintln(w, "\nAll checks passed.")
	}
}

// colorStatus paints a status with the basic ANSI colours, which every
// terminal has.
func colorStatus(s doctor.Status, text string) string {
	code := "32" // green
	switch s {
	case doctor.Warn:
		code = "33" // yellow
	case doctor.Fail:
		code = "31" // red
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func pluralWord(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
