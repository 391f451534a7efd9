package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/workspace"
)

type configOptions struct {
	dir  string
	user bool
	json bool
}

func newConfigCmd() *cobra.Command {
	var opts configOptions
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show and change settings in the user and project config files",
		Long: `Show and change Anvil's settings. They live in two TOML files:

  user     $XDG_CONFIG_HOME/anvil/config.toml (default ~/.config/anvil/config.toml)
  project  .anvil/config.toml in the workspace (-C DIR, default .)

The project file wins key by key; keys neither file sets have their defaults.
A repository's file does not decide for whoever runs Anvil in it: base_url,
session_dir, trusted_projects, [run] network and env count only in the user
file, and the project's [servers] tables (programs that run as you) only in
a workspace listed in trusted_projects. 'anvil doctor' names what it ignored.
'set' and 'unset' change the project file, or the user file with --user, and
touch only the key's line: comments and other settings are kept.

Keys:
` + keyHelp() + `
Language servers are not keys: override or add them by hand as TOML tables
(in the project file, used once the user file trusts the workspace:
anvil config set --user trusted_projects "$PWD", which replaces the list:
name every trusted workspace, comma-separated),

  [servers.gopls]
  command = "/opt/gopls/bin/gopls"

  [servers.rust-analyzer]
  command = "rust-analyzer"
  languages = ["rust"]

Unknown keys and bad values are refused with exit status 3.`,
		Example: `  anvil config list
  anvil config get model
  anvil config set model claude-sonnet-4-5
  anvil config set --user provider openai
  anvil config set languages go,typescript
  anvil config unset max_attempts`,
	}
	cmd.PersistentFlags().StringVarP(&opts.dir, "dir", "C", ".", "workspace whose .anvil/config.toml is the project file")

	list := &cobra.Command{
		Use:   "list",
		Short: "Show every key, its effective value and where it comes from",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runConfigList(cmd, opts) },
	}
	list.Flags().BoolVar(&opts.json, "json", false, "print the settings as JSON")
	get := &cobra.Command{
		Use:   "get KEY",
		Short: "Print a key's effective value (empty when unset without a default)",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runConfigGet(cmd, opts, args[0]) },
	}
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set a key in the project file (or the user file with --user)",
		Args:  cobra.ExactArgs(2),
		RunE:  func(cmd *cobra.Command, args []string) error { return runConfigSet(cmd, opts, args[0], &args[1]) },
	}
	unset := &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove a key from the project file (or the user file with --user)",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runConfigSet(cmd, opts, args[0], nil) },
	}
	for _, c := range []*cobra.Command{set, unset} {
		c.Flags().BoolVar(&opts.user, "user", false, "change the user file ($XDG_CONFIG_HOME/anvil/config.toml) instead of the project's")
	}
	cmd.AddCommand(list, get, set, unset)
	return cmd
}

// keyHelp lists the keys for the help text, from the same table the
// commands use, so it cannot drift.
func keyHelp() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, k := range config.Keys() {
		fmt.Fprintf(tw, "  %s\t%s\n", k.Name, k.Description)
	}
	tw.Flush()
	return b.String()
}

// configPaths returns the two files for the workspace opts.dir, which must
// exist; the project file's path is the one a run reads.
func configPaths(opts configOptions) (config.Paths, error) {
	root, err := workspace.New(opts.dir)
	if err != nil {
		return config.Paths{}, badInput("%v", err)
	}
	return config.DefaultPaths(root.Dir(), os.Getenv), nil
}

// readLayers reads both files; a file that does not parse is bad input.
func readLayers(opts configOptions) (config.Layers, error) {
	paths, err := configPaths(opts)
	if err != nil {
		return config.Layers{}, err
	}
	l, err := config.ReadLayers(paths)
	if err != nil {
		return config.Layers{}, badInput("%v", err)
	}
	return l, nil
}

func lookupKey(name string) (config.Key, error) {
	k, err := config.LookupKey(name)
	if err != nil {
		return config.Key{}, badInput("%v", err)
	}
	return k, nil
}

func runConfigList(cmd *cobra.Command, opts configOptions) error {
	l, err := readLayers(opts)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if opts.json {
		return writeJSON(out, struct {
			UserFile    string           `json:"user_file"`
			ProjectFile string           `json:"project_file"`
			Settings    []config.Setting `json:"settings"`
			Servers     []string         `json:"servers"`
			Ignored     []string         `json:"ignored,omitempty"`
		}{l.Paths.User, l.Paths.Project, l.Settings(), l.ServerNames(), l.Ignored()})
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, s := range l.Settings() {
		value := s.Value
		if value == "" {
			value = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, value, s.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "user file:    %s\n", orNone(l.Paths.User))
	fmt.Fprintf(out, "project file: %s\n", l.Paths.Project)
	if names := l.ServerNames(); len(names) > 0 {
		fmt.Fprintf(out, "servers:      %s (edit their [servers.NAME] tables by hand)\n", strings.Join(names, ", "))
	}
	if ignored := l.Ignored(); len(ignored) > 0 {
		fmt.Fprintf(out, "ignored:      %s, in the project file: only the user file sets these ('anvil doctor' says how)\n", strings.Join(ignored, ", "))
	}
	return nil
}

func orNone(path string) string {
	if path == "" {
		return "(none: neither XDG_CONFIG_HOME nor HOME is set)"
	}
	return path
}

func runConfigGet(cmd *cobra.Command, opts configOptions, name string) error {
	k, err := lookupKey(name)
	if err != nil {
		return err
	}
	l, err := readLayers(opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), l.Setting(k).Value)
	return nil
}

// runConfigSet sets the key to *value, or unsets it when value is nil.
func runConfigSet(cmd *cobra.Command, opts configOptions, name string, value *string) error {
	k, err := lookupKey(name)
	if err != nil {
		return err
	}
	if value != nil {
		if err := k.Validate(*value); err != nil {
			return badInput("%v", err)
		}
	}
	if k.UserOnly && !opts.user {
		return badInput("%s counts only in the user file (a repository's file must not decide it for whoever runs Anvil there): add --user", k.Name)
	}
	paths, err := configPaths(opts)
	if err != nil {
		return err
	}
	path, which := paths.Project, "project"
	if opts.user {
		path, which = paths.User, "user"
		if path == "" {
			return badInput("there is no user config file: set XDG_CONFIG_HOME or HOME")
		}
	}
	// Both files must parse: the change is judged by the effective result.
	if _, err := config.ReadLayers(paths); err != nil {
		return badInput("%v", err)
	}
	if value == nil {
		err = config.UnsetInFile(path, k)
	} else {
		err = config.SetInFile(path, k, *value)
	}
	if err != nil {
		return err
	}
	l, err := config.ReadLayers(paths)
	if err != nil {
		return err
	}
	s := l.Setting(k)
	written := l.Project
	if opts.user {
		written = l.User
	}
	stderr := cmd.ErrOrStderr()
	if value == nil {
		fmt.Fprintf(stderr, "removed %s from the %s file %s; now %s\n", k.Name, which, path, describeSetting(s))
		return nil
	}
	fmt.Fprintf(stderr, "set %s in the %s file %s\n", k.Line(written), which, path)
	if s.Source != config.Source(which) {
		// A user value under a project value is not in effect: say so.
		fmt.Fprintf(stderr, "note: the %s file also sets %s, so the effective value stays %q\n", s.Source, k.Name, s.Value)
	}
	return nil
}

// describeSetting says what a setting's value is now and where it comes from.
func describeSetting(s config.Setting) string {
	if s.Value == "" {
		return "unset"
	}
	if s.Source == config.SourceDefault {
		return fmt.Sprintf("%q (the default)", s.Value)
	}
	return fmt.Sprintf("%q from the %s file", s.Value, s.Source)
}
