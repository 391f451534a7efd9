package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/conversation"
	"github.com/anvil-dev/anvil/internal/slash"
)

// runSlash runs `anvil /NAME [ARGS] [DIR]`: the command's text becomes the
// request. With one argument after the name, it is the workspace if that
// directory has the command, and the command's arguments otherwise.
func runSlash(cmd *cobra.Command, o runOptions, name string, rest []string) error {
	if conversation.IsBuiltin(name) {
		return runSessionCommand(cmd, o, name, rest)
	}
	var args, dir string
	switch len(rest) {
	case 0:
	case 1:
		if hasCommand(rest[0], name) {
			dir = rest[0]
		} else {
			args = rest[0]
		}
	default:
		args, dir = strings.Join(rest[:len(rest)-1], " "), rest[len(rest)-1]
	}
	ws := cmp.Or(o.dir, dir, ".")
	c, err := slash.Find(commandDirs(ws), name)
	if err != nil {
		return badInput("%v", err)
	}
	o.dir = ws
	return runRequest(cmd, o, c.Request(args), "")
}

func hasCommand(dir, name string) bool {
	info, err := os.Stat(filepath.Join(dir, ".anvil", "commands", name+".md"))
	return err == nil && !info.IsDir()
}

func commandDirs(workspace string) []string {
	cfg, _ := os.UserConfigDir()
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		cfg = x
	}
	return slash.Dirs(workspace, cfg)
}

// listCommands prints the slash commands with their first lines.
func listCommands(cmd *cobra.Command, workspace string) error {
	cmds, err := slash.List(commandDirs(workspace))
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if len(cmds) == 0 {
		fmt.Fprintln(out, "no slash commands; 'anvil init' writes starters in .anvil/commands/")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, c := range cmds {
		fmt.Fprintf(tw, "/%s\t%s\n", c.Name, c.Description)
	}
	return tw.Flush()
}
