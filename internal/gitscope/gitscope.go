// Package gitscope reads where git's configuration sets a key: in the
// repository's own files (.git/config, a worktree's, what they include),
// which a repository brings with it, or in the user's (global, system).
// A program a key names runs only as its setter may: the user's always,
// the repository's once the user trusts the workspace.
package gitscope

import (
	"bytes"
	"errors"
	"strings"
)

// Entry is one setting git reports.
type Entry struct {
	Scope, Key, Value string
}

// Repository reports whether the repository's own configuration made e.
func (e Entry) Repository() bool { return e.Scope == "local" || e.Scope == "worktree" }

// Args are git's arguments that list the settings whose keys match the
// regular expression pattern, each with its scope, in the form Parse
// reads (NUL-terminated, so a value may hold a newline).
func Args(pattern string) []string {
	return []string{"config", "--show-scope", "-z", "--get-regexp", pattern}
}

// Parse reads what git printed for Args. A record it cannot read is an
// error: a reader that skipped it would let a program run unseen.
func Parse(out []byte) ([]Entry, error) {
	var entries []Entry
	fields := bytes.Split(out, []byte{0})
	if len(fields) > 0 && len(fields[len(fields)-1]) == 0 {
		fields = fields[:len(fields)-1]
	}
	if len(fields)%2 != 0 {
		return nil, errors.New("git config's listing has a scope without its setting")
	}
	for i := 0; i < len(fields); i += 2 {
		key, value, _ := strings.Cut(string(fields[i+1]), "\n")
		if key == "" {
			return nil, errors.New("git config's listing has a setting without its key")
		}
		entries = append(entries, Entry{Scope: string(fields[i]), Key: key, Value: value})
	}
	return entries, nil
}

// Read is the answer of a git run with Args: its output and error. Exit
// status 1 says nothing matched; any other failure (a git too old for
// --show-scope, 2.26) is an error, never "none".
func Read(out []byte, err error) ([]Entry, error) {
	var exit interface{ ExitCode() int }
	if err != nil && errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(out)
}

// FilterDriver returns the name of a filter driver whose program
// (filter.NAME.clean, .smudge or .process) the repository's own
// configuration names, "" for none.
func FilterDriver(entries []Entry) string {
	for _, e := range entries {
		if !e.Repository() {
			continue
		}
		name, ok := strings.CutPrefix(e.Key, "filter.")
		if i := strings.LastIndexByte(name, '.'); ok && i > 0 {
			return name[:i]
		}
	}
	return ""
}

// FilterPattern matches the keys that name a filter driver's program.
const FilterPattern = `^filter\..*\.(clean|smudge|process)$`
