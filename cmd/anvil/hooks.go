package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/hooks"
	"github.com/anvil-dev/anvil/internal/state"
)

type hooksOptions struct {
	dir   string
	scope string
	print bool
}

func newHooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Put Anvil's gate in front of Claude Code's, Codex's, Gemini CLI's, OpenCode's or Copilot CLI's edits",
		Long: `Install or remove Anvil's hooks in a coding agent's settings. With them, each
edit the agent makes is checked by the project's language servers before it
is written (an edit that brings new errors into the files it touches is
refused, with the errors, and the model tries again), and the end of each
turn checks every file the session changed, and their importers, against
the tree as it was when the session started.

  claude    .claude/settings.json     (user: ~/.claude/settings.json)
  codex     .codex/hooks.json         (user: ~/.codex/hooks.json)
  gemini    .gemini/settings.json     (user: ~/.gemini/settings.json)
  opencode  .opencode/plugin/anvil.js (user: ~/.config/opencode/plugin/anvil.js)
  copilot   .github/hooks/anvil.json  (user: ~/.copilot/hooks/anvil.json)

The entries run this anvil binary by its absolute path, and are known by
their arguments (hook VERB --client C), whatever the binary is called.
Installing adds them to the file by editing its text: your own hooks,
settings, formatting and comments stay; twice changes nothing; an install
from another binary replaces the earlier entries; a linked settings file
stays a link, its target edited. Uninstall removes only Anvil's entries,
giving the file back byte for byte, and removes a file the install
created. OpenCode's plugin and Copilot CLI's hooks file are Anvil's own.
--print shows the change as a diff and writes nothing. 'anvil doctor' says
which clients are guarded.`,
	}
	cmd.AddCommand(newHooksVerbCmd(true), newHooksVerbCmd(false))
	return cmd
}

func newHooksVerbCmd(install bool) *cobra.Command {
	var opts hooksOptions
	use, short := "install CLIENT...", "Add Anvil's hooks to the clients' settings (claude, codex, gemini, opencode, copilot)"
	if !install {
		use, short = "uninstall CLIENT...", "Remove Anvil's hooks from the clients' settings, leaving the rest"
	}
	cmd := &cobra.Command{
		Use:       use,
		Short:     short,
		Example:   "  anvil hooks install claude\n  anvil hooks install --scope user codex gemini\n  anvil hooks install --print opencode\n  anvil hooks uninstall claude",
		Args:      cobra.MinimumNArgs(1),
		ValidArgs: []string{"claude", "codex", "gemini", "opencode", "copilot"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHooks(cmd, opts, install, args)
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "C", ".", "the project (for --scope project)")
	cmd.Flags().StringVar(&opts.scope, "scope", "project", "project (the project's settings) or user (yours, for every project)")
	cmd.Flags().BoolVar(&opts.print, "print", false, "show the change as a diff, and write nothing")
	return cmd
}

func runHooks(cmd *cobra.Command, opts hooksOptions, install bool, args []string) error {
	scope, err := hooks.ParseScope(opts.scope)
	if err != nil {
		return badInput("%v", err)
	}
	var clients []hooks.Client
	for _, a := range args {
		c, err := hooks.ParseClient(a)
		if err != nil {
			return badInput("%v", err)
		}
		clients = append(clients, c)
	}
	dir, err := filepath.Abs(opts.dir)
	if err != nil {
		return badInput("%v", err)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return badInput("%s is not a directory", opts.dir)
	}
	bin, err := anvilBinary()
	if err != nil {
		return err
	}
	ledger := hooks.NewLedger(state.Dir(os.Getenv))
	// Every file is planned before any is written: one that cannot be
	// read or parsed leaves all of them as they are.
	var plans []hooks.Plan
	for _, c := range clients {
		path := hooks.SettingsPath(c, scope, dir, os.Getenv)
		var p hooks.Plan
		if install {
			p, err = hooks.PlanInstall(path, c, bin)
		} else {
			p, err = hooks.PlanUninstall(path, c, ledger)
		}
		if err != nil {
			return badInput("%v; nothing written", err)
		}
		plans = append(plans, p)
	}
	w := cmd.OutOrStdout()
	for i, p := range plans {
		c := clients[i]
		switch {
		case opts.print:
			if !p.Changed() {
				fmt.Fprintf(w, "%s: unchanged\n", p.Path)
				continue
			}
			fmt.Fprint(w, p.Diff())
			continue
		case !p.Changed() && install:
			fmt.Fprintf(w, "%s: Anvil's hooks for %s are already installed (%s)\n", c, c.Name(), p.Path)
		case !p.Changed():
			fmt.Fprintf(w, "%s: no Anvil hooks in %s\n", c, p.Path)
		default:
			if err := p.Apply(ledger); err != nil {
				return fmt.Errorf("writing %s: %w", p.Path, err)
			}
			switch {
			case install:
				fmt.Fprintf(w, "%s: installed Anvil's hooks in %s\n", c, p.Path)
			case p.Remove:
				fmt.Fprintf(w, "%s: removed %s, which held only Anvil's hooks\n", c, p.Path)
			default:
				fmt.Fprintf(w, "%s: removed Anvil's hooks from %s\n", c, p.Path)
			}
		}
		if note := hooks.TrustNote(c); install && note != "" {
			fmt.Fprintf(w, "  note: %s\n", note)
		}
	}
	return nil
}

// anvilBinary is the running binary's absolute path, which the hooks run.
func anvilBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the anvil binary: %w", err)
	}
	return filepath.Abs(exe)
}
