// Package slash reads slash commands: Markdown files in .anvil/commands/
// (in the workspace, then in the user's config directory) whose first line
// describes the command and whose text is the request to run, with $ARGS
// standing for what the user typed after the command's name.
package slash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Command is one slash command.
type Command struct {
	Name        string
	Description string // the file's first line, without a leading "#"
	Body        string // the whole file
	Path        string
}

// Dirs returns where commands are looked up, most specific first: the
// workspace's .anvil/commands, then userConfigDir/anvil/commands.
func Dirs(workspace, userConfigDir string) []string {
	dirs := []string{filepath.Join(workspace, ".anvil", "commands")}
	if userConfigDir != "" {
		dirs = append(dirs, filepath.Join(userConfigDir, "anvil", "commands"))
	}
	return dirs
}

// List returns the commands in dirs, by name; a name in an earlier
// directory hides the same name in a later one.
func List(dirs []string) ([]Command, error) {
	seen := map[string]bool{}
	var out []Command
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".md")
			if !ok || e.IsDir() || seen[name] {
				continue
			}
			c, err := load(filepath.Join(dir, e.Name()), name)
			if err != nil {
				return nil, err
			}
			seen[name] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Find returns the command called name.
func Find(dirs []string, name string) (Command, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return Command{}, fmt.Errorf("%q is not a command name", name)
	}
	for _, dir := range dirs {
		c, err := load(filepath.Join(dir, name+".md"), name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return c, err
	}
	return Command{}, fmt.Errorf("no command /%s (looked in %s; 'anvil init' writes starters, 'anvil --commands' lists them)", name, strings.Join(dirs, ", "))
}

func load(path, name string) (Command, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Command{}, err
	}
	body := string(data)
	first, _, _ := strings.Cut(strings.TrimLeft(body, "\n"), "\n")
	first = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(first), "#"))
	return Command{Name: name, Description: first, Body: body, Path: path}, nil
}

// Request returns the command's text with $ARGS replaced by args. When the
// text has no $ARGS and args is not empty, the arguments are appended, so
// nothing the user typed is dropped.
func (c Command) Request(args string) string {
	body := strings.TrimSpace(c.Body)
	if strings.Contains(body, "$ARGS") {
		return strings.ReplaceAll(body, "$ARGS", args)
	}
	if args != "" {
		body += "\n\n" + args
	}
	return body
}
