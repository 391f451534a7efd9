package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/hooks"
)

type hooksOptions struct {
	dir   string
	scope string
	print bool
}

func newHooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Put Anvil's gate in front of Claude Code's, Codex's or Gemini CLI's edits",
		Long: `Install or remove Anvil's hooks in a coding agent's settings. With them, each
edit the agent makes is checked by the project's language servers before it
is written (an edit that brings new errors into the files it touches is
refused, with the errors, and the model tries again), and the end of each
turn checks every file the session changed, and their importers, against
the tree as it was when the session started.

  claude  .claude/settings.json (user: ~/.claude/settings.json)
  codex   .codex/hooks.json     (user: ~/.codex/hooks.json)
  gemini  .gemini/settings.json (user: ~/.gemini/settings.json)

The entries run this anvil binary by its absolute path. Installing merges
them into the file (your own hooks and settings stay), twice changes
nothing; uninstall removes only Anvil's entries. 'anvil doctor' says which
clients are guarded.`,
	}
	cmd.AddCommand(newHooksVerbCmd(true), newHooksVerbCmd(false))
	return cmd
}

func newHooksVerbCmd(install bool) *cobra.Command {
	var opts hooksOptions
	use, short := "install CLIENT...", "Add Anvil's hooks to the clients' settings (claude, codex, gemini)"
	if !install {
		use, short = "uninstall CLIENT...", "Remove Anvil's hooks from the clients' settings, leaving the rest"
	}
	cmd := &cobra.Command{
		Use:       use,
		Short:     short,
		Example:   "  anvil hooks install claude\n  anvil hooks install --scope user codex gemini\n  anvil hooks install --print claude\n  anvil hooks uninstall claude",
		Args:      cobra.MinimumNArgs(1),
		ValidArgs: []string{"claude", "codex", "gemini"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHooks(cmd, opts, install, args)
		},
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "C", ".", "the project (for --scope project)")
	cmd.Flags().StringVar(&opts.scope, "scope", "project", "project (the project's settings) or user (yours, for every project)")
	cmd.Flags().BoolVar(&opts.print, "print", false, "show what would be written, and write nothing")
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
	// Every file is planned before any is written: one that cannot be
	// read or parsed leaves all of them as they are.
	var plans []hooks.Plan
	for _, c := range clients {
		path := hooks.SettingsPath(c, scope, dir, os.Getenv)
		var p hooks.Plan
		if install {
			p, err = hooks.PlanInstall(path, c, bin)
		} else {
			p, err = hooks.PlanUninstall(path)
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
			fmt.Fprintf(w, "would write %s:\n%s", p.Path, p.After)
			continue
		case !p.Changed() && install:
			fmt.Fprintf(w, "%s: Anvil's hooks for %s are already installed (%s)\n", c, clientName(c), p.Path)
		case !p.Changed():
			fmt.Fprintf(w, "%s: no Anvil hooks in %s\n", c, p.Path)
		default:
			if err := p.Apply(); err != nil {
				return fmt.Errorf("writing %s: %w", p.Path, err)
			}
			if install {
				fmt.Fprintf(w, "%s: installed Anvil's hooks in %s\n", c, p.Path)
			} else {
				fmt.Fprintf(w, "%s: removed Anvil's hooks from %s\n", c, p.Path)
			}
		}
		if note := hooks.TrustNote(c); install && note != "" {
			fmt.Fprintf(w, "  note: %s\n", note)
		}
	}
	return nil
}

func clientName(c hooks.Client) string {
	switch c {
	case hooks.Claude:
		return "Claude Code"
	case hooks.Codex:
		return "Codex CLI"
	}
	return "Gemini CLI"
}

// anvilBinary is the running binary's absolute path, which the hooks run.
func anvilBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the anvil binary: %w", err)
	}
	return filepath.Abs(exe)
}
