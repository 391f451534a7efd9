// Package setup writes the files 'anvil init' creates in a workspace: the
// project config (.anvil/config.toml), the ignore file (.anvil/ignore) and
// the starter slash commands (.anvil/commands/*.md). It never replaces what
// the user already has unless told to, and reports file by file what it
// wrote and what it kept. Deciding what to write is the caller's job (see
// package detect).
package setup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Plan is what to write.
type Plan struct {
	Languages   []string // empty: leave the key alone
	TestCommand string   // "": leave the key alone
	// Ignore are .gitignore-syntax patterns to add to .anvil/ignore.
	Ignore []string
	// Commands says whether to write the starter slash commands.
	Commands bool
	// Check is a project checker to propose for [check], nil for none.
	// It is written commented out: the user confirms it by uncommenting.
	Check *CheckProposal
}

// CheckProposal is a [check] command found from a project's files.
type CheckProposal struct {
	Command, Format string
	// Builtin: Anvil runs it already (cargo check); nothing is written.
	Builtin bool
	// Why names what it was found from ("pom.xml").
	Why string
}

// Action is what happened to one file or key.
type Action string

// Actions.
const (
	Wrote    Action = "wrote"    // created, or replaced with --force
	Updated  Action = "updated"  // keys set in an existing config file
	Appended Action = "appended" // lines added to the ignore file
	Kept     Action = "kept"     // left as it was
)

// Result is one line of the report.
type Result struct {
	Action Action `json:"action"`
	Path   string `json:"path"` // relative to the workspace, slash-separated
	Detail string `json:"detail,omitempty"`
}

// Apply writes plan into the workspace at dir. With force, existing starter
// commands are overwritten and config keys already set are replaced; the
// ignore file only ever gains lines. A project config that does not parse
// is an error and nothing is written.
func Apply(dir string, plan Plan, force bool) ([]Result, error) {
	cfgPath := filepath.Join(dir, filepath.FromSlash(config.ProjectFile))
	existing, err := config.ReadFile(cfgPath)
	if err != nil {
		return nil, err
	}
	var out []Result
	res, err := writeConfig(cfgPath, existing, plan, force)
	if err != nil {
		return out, err
	}
	out = append(out, res...)
	if plan.Check != nil {
		r, err := proposeCheck(cfgPath, *plan.Check)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	// The ignore file is written even with nothing to ignore yet: its
	// header says what it is for, where the user will look for it.
	r, err := appendIgnore(filepath.Join(dir, filepath.FromSlash(workspace.IgnoreFile)), plan.Ignore)
	if err != nil {
		return out, err
	}
	out = append(out, r)
	if plan.Commands {
		for _, c := range starterCommands(plan.TestCommand) {
			r, err := writeNew(dir, ".anvil/commands/"+c.name+".md", c.text, force)
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// writeConfig sets languages and test_command in the project file, keeping
// values already there unless force.
func writeConfig(path string, existing config.Config, plan Plan, force bool) ([]Result, error) {
	values := map[string]string{"languages": strings.Join(plan.Languages, ","), "test_command": plan.TestCommand}
	var set, kept []string
	for _, name := range []string{"languages", "test_command"} {
		if values[name] == "" {
			continue
		}
		k, err := config.LookupKey(name)
		if err != nil {
			return nil, err
		}
		var proposed config.Config
		if err := k.Set(&proposed, values[name]); err != nil {
			return nil, err
		}
		if old := k.Get(existing); old != "" && !force {
			note := k.Line(existing)
			if old != k.Get(proposed) {
				note += fmt.Sprintf(" (--force would set %s)", k.Line(proposed))
			}
			kept = append(kept, note)
			continue
		}
		if err := config.SetInFile(path, k, values[name]); err != nil {
			return nil, err
		}
		set = append(set, k.Line(proposed))
	}
	rel := config.ProjectFile
	var out []Result
	if len(set) > 0 {
		action := Wrote
		if !isZero(existing) {
			action = Updated
		}
		out = append(out, Result{Action: action, Path: rel, Detail: strings.Join(set, ", ")})
	}
	if len(kept) > 0 {
		out = append(out, Result{Action: Kept, Path: rel, Detail: strings.Join(kept, ", ")})
	}
	return out, nil
}

func isZero(c config.Config) bool {
	for _, k := range config.Keys() {
		if k.Get(c) != "" {
			return false
		}
	}
	return len(c.Servers) == 0
}

// proposeCheck appends p to the project file as a commented-out [check]
// table, unless the file has a [check] table already (set or proposed):
// a command Anvil would run over every change is the user's to turn on.
func proposeCheck(path string, p CheckProposal) (Result, error) {
	rel := config.ProjectFile
	if p.Builtin {
		return Result{Action: Kept, Path: rel, Detail: fmt.Sprintf("%s: Anvil runs %s itself, nothing to write", p.Why, strings.Fields(p.Command)[0]+" check")}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); t == "[check]" {
			return Result{Action: Kept, Path: rel, Detail: "has a [check] table already"}, nil
		}
	}
	var b strings.Builder
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n# 'anvil init' found %s: the project's own checker can check each change\n", p.Why)
	b.WriteString("# before it is written, in a sealed shadow tree. Uncomment to use it.\n# [check]\n")
	fmt.Fprintf(&b, "# command = %q\n", p.Command)
	if p.Format != "" {
		fmt.Fprintf(&b, "# format = %q\n", p.Format)
	} else {
		b.WriteString("# format = \"\"  # no format Anvil reads fits this command's output yet\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Result{}, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return Result{}, err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return Result{}, err
	}
	if err := f.Close(); err != nil {
		return Result{}, err
	}
	return Result{Action: Appended, Path: rel, Detail: fmt.Sprintf("proposed [check] command = %q, commented out: uncomment it to use it", p.Command)}, nil
}

// ignoreHeader starts a new .anvil/ignore.
const ignoreHeader = "# Paths Anvil does not list, search or read, in .gitignore syntax,\n# on top of the project's .gitignore files.\n"

// appendIgnore adds the patterns the file does not have yet.
func appendIgnore(path string, patterns []string) (Result, error) {
	rel := workspace.IgnoreFile
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, err
	}
	// "dist" and "dist/" count as the same line: both ignore the directory.
	have := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		have[strings.TrimSuffix(strings.TrimSpace(sc.Text()), "/")] = true
	}
	var add []string
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if key := strings.TrimSuffix(p, "/"); key != "" && !have[key] {
			have[key] = true
			add = append(add, p)
		}
	}
	switch {
	case len(add) == 0 && len(data) > 0 && len(patterns) == 0:
		return Result{Action: Kept, Path: rel, Detail: "nothing to add"}, nil
	case len(add) == 0 && len(data) > 0:
		return Result{Action: Kept, Path: rel, Detail: "already lists " + strings.Join(patterns, " ")}, nil
	}
	var b strings.Builder
	if len(data) == 0 {
		b.WriteString(ignoreHeader)
	} else if !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteString("\n")
	}
	for _, p := range add {
		b.WriteString(p + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Result{}, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return Result{}, err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return Result{}, err
	}
	if err := f.Close(); err != nil {
		return Result{}, err
	}
	action := Appended
	if len(data) == 0 {
		action = Wrote
	}
	detail := strings.Join(add, " ")
	if detail == "" {
		detail = "nothing to ignore yet beside .gitignore"
	}
	return Result{Action: action, Path: rel, Detail: detail}, nil
}

// writeNew writes a file that does not exist yet, or replaces it with force.
func writeNew(dir, rel, text string, force bool) (Result, error) {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(path); err == nil && !force {
		return Result{Action: Kept, Path: rel, Detail: "exists; --force overwrites it"}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Result{}, err
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return Result{}, err
	}
	return Result{Action: Wrote, Path: rel}, nil
}
