package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"charm.land/huh/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/detect"
	"github.com/anvil-dev/anvil/internal/setup"
	"github.com/anvil-dev/anvil/internal/workspace"
)

type initOptions struct {
	dir         string
	languages   []string
	ignore      []string
	testCommand string
	yes         bool
	force       bool
}

func newInitCmd() *cobra.Command {
	var opts initOptions
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Set Anvil up in a project: languages, ignored directories, test command, slash commands",
		Long: `Look at the project's files and write Anvil's project files:

  .anvil/config.toml     languages and test_command
  .anvil/ignore          dependency and build directories to skip (.gitignore syntax)
  .anvil/commands/*.md   starter slash commands: /review, /document, /test

Languages are detected from file extensions and marker files (go.mod,
tsconfig.json, package.json, pyproject.toml, Cargo.toml); the directories
proposed for .anvil/ignore are node_modules (at any depth), dist, build,
.venv, target and vendor (at the root) when present and not ignored already;
the test command comes from go.mod, package.json's test script, the pytest
configuration or Cargo.toml.

On a terminal, init asks about each of them, with the detected values
filled in. Otherwise, or with --yes, it uses the flags, and the detected
values for what no flag gives. Existing files are kept, and config keys
already set are left alone, unless --force is given; the ignore file only
gains lines. The report says what was written and what was kept.`,
		Example: `  anvil init
  anvil init --yes -C ./my-project
  anvil init --languages go,typescript --ignore dist,build --test-command "go test ./..."`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInit(cmd, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.dir, "dir", "C", ".", "project root")
	f.StringSliceVar(&opts.languages, "languages", nil, "the project's languages, comma-separated (default: detected)")
	f.StringSliceVar(&opts.ignore, "ignore", nil, "patterns to add to .anvil/ignore, comma-separated (default: detected)")
	f.StringVar(&opts.testCommand, "test-command", "", "how the project runs its tests (default: detected)")
	f.BoolVarP(&opts.yes, "yes", "y", false, "do not ask: use the flags and the detected values")
	f.BoolVar(&opts.yes, "non-interactive", false, "same as --yes")
	f.BoolVar(&opts.force, "force", false, "overwrite existing starter commands and replace config keys already set")
	return cmd
}

func runInit(cmd *cobra.Command, opts initOptions) error {
	root, err := workspace.New(opts.dir)
	if err != nil {
		return badInput("%v", err)
	}
	proj, err := detect.Scan(cmd.Context(), root)
	if err != nil {
		return err
	}
	plan, err := initPlan(cmd, opts, proj)
	if err != nil {
		return err
	}
	valueFlags := cmd.Flags().Changed("languages") || cmd.Flags().Changed("ignore") || cmd.Flags().Changed("test-command")
	switch {
	case !opts.yes && streamIsTerminal(cmd.InOrStdin()) && streamIsTerminal(cmd.OutOrStdout()):
		if err := askInit(cmd, &plan, proj); err != nil {
			return err
		}
	case !opts.yes && !valueFlags:
		// Never guess silently on someone's behalf without a terminal to
		// show the guess on: make them say so.
		return badInput("init cannot ask without a terminal: pass --yes to accept the detected settings (%s), or give --languages, --ignore and --test-command",
			describePlan(plan))
	}
	out := cmd.OutOrStdout()
	if len(proj.Languages) > 0 {
		fmt.Fprintf(out, "detected: %s\n", describeLanguages(proj))
	}
	results, err := setup.Apply(root.Dir(), plan, opts.force)
	printResults(out, results)
	if err != nil {
		return badInput("%v", err)
	}
	fmt.Fprintln(out, "\nNext: 'anvil doctor' checks the language servers; 'anvil /review FILE' runs a starter command.")
	return nil
}

// initPlan combines the flags with the detected values.
func initPlan(cmd *cobra.Command, opts initOptions, proj detect.Project) (setup.Plan, error) {
	plan := setup.Plan{Languages: proj.Names(), Ignore: proj.IgnoreDirs, TestCommand: proj.TestCommand, Commands: true}
	if c := proj.Check; c != nil {
		plan.Check = &setup.CheckProposal{Command: c.Command, Format: c.Format, Builtin: c.Builtin, Why: c.Why}
	}
	if cmd.Flags().Changed("languages") {
		langs, err := config.ParseLanguages(strings.Join(opts.languages, ","))
		if err != nil {
			return setup.Plan{}, badInput("--languages: %v", err)
		}
		plan.Languages = langs
	}
	if cmd.Flags().Changed("ignore") {
		plan.Ignore = nil
		for _, p := range opts.ignore {
			if p = strings.TrimSpace(p); p != "" {
				plan.Ignore = append(plan.Ignore, p)
			}
		}
	}
	if cmd.Flags().Changed("test-command") {
		plan.TestCommand = strings.TrimSpace(opts.testCommand)
	}
	return plan, nil
}

// askInit lets the user adjust the plan in a form on the terminal.
func askInit(cmd *cobra.Command, plan *setup.Plan, proj detect.Project) error {
	langOpts := huh.NewOptions(appendMissing(plan.Languages, "go", "typescript", "javascript", "python", "rust")...)
	for i := range langOpts {
		langOpts[i] = langOpts[i].Selected(slices.Contains(plan.Languages, langOpts[i].Value))
	}
	langDesc := "None detected."
	if len(proj.Languages) > 0 {
		langDesc = "Detected: " + describeLanguages(proj) + "."
	}
	fields := []huh.Field{
		huh.NewMultiSelect[string]().Title("Languages").Description(langDesc).Options(langOpts...).Value(&plan.Languages),
	}
	if len(plan.Ignore) > 0 {
		ignOpts := huh.NewOptions(plan.Ignore...)
		for i := range ignOpts {
			ignOpts[i] = ignOpts[i].Selected(true)
		}
		fields = append(fields, huh.NewMultiSelect[string]().Title("Add to .anvil/ignore").
			Description("Dependency and build directories present and not ignored yet.").Options(ignOpts...).Value(&plan.Ignore))
	}
	fields = append(fields,
		huh.NewInput().Title("Test command").Description("Shown to the agents; empty for none.").Value(&plan.TestCommand),
		huh.NewConfirm().Title("Write the starter slash commands /review, /document and /test?").Value(&plan.Commands),
	)
	form := huh.NewForm(huh.NewGroup(fields...)).WithInput(cmd.InOrStdin()).WithOutput(cmd.OutOrStdout())
	if err := form.RunWithContext(cmd.Context()); err != nil {
		if errors.Is(err, huh.ErrUserAborted) {
			return &exitError{code: exitInterrupted, err: errors.New("init cancelled; nothing written")}
		}
		return err
	}
	plan.TestCommand = strings.TrimSpace(plan.TestCommand)
	return nil
}

// appendMissing returns first followed by the items of more it lacks.
func appendMissing(first []string, more ...string) []string {
	out := slices.Clone(first)
	for _, m := range more {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func describeLanguages(p detect.Project) string {
	var parts []string
	for _, l := range p.Languages {
		evidence := []string{fmt.Sprintf("%d %s", l.Files, pluralWord(l.Files, "file"))}
		evidence = append(evidence, l.Markers...)
		parts = append(parts, fmt.Sprintf("%s (%s)", l.Name, strings.Join(evidence, ", ")))
	}
	return strings.Join(parts, ", ")
}

func describePlan(p setup.Plan) string {
	return fmt.Sprintf("languages %s; ignore %s; test command %s",
		orNothing(strings.Join(p.Languages, ",")), orNothing(strings.Join(p.Ignore, " ")), orNothing(p.TestCommand))
}

func orNothing(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// printResults lists what init did, file by file.
func printResults(w io.Writer, results []setup.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range results {
		if r.Detail == "" {
			fmt.Fprintf(tw, "%s\t%s\n", r.Action, r.Path)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Action, r.Path, r.Detail)
		}
	}
	tw.Flush()
}

// streamIsTerminal reports whether a command's stream is a terminal. Streams that are
// not files (tests, pipes wrapped in buffers) never are.
func streamIsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
