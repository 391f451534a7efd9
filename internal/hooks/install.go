// Package hooks puts Anvil's gate in front of other coding agents' edits,
// through their hooks: a client's hook input (Claude Code's, Codex CLI's,
// Gemini CLI's, OpenCode's, GitHub Copilot CLI's) becomes a change set, the workspace's Service judges it,
// and the verdict goes back as the client's hook output. It also installs
// and removes Anvil's entries in the clients' settings.
package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Client is a coding agent whose hooks Anvil can serve.
type Client string

// The clients.
const (
	Claude   Client = "claude"
	Codex    Client = "codex"
	Gemini   Client = "gemini"
	OpenCode Client = "opencode"
	Copilot  Client = "copilot"
)

// Clients lists every client, in the order reports show them.
var Clients = []Client{Claude, Codex, Gemini, OpenCode, Copilot}

// Name is the client's product name.
func (c Client) Name() string {
	switch c {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex CLI"
	case Gemini:
		return "Gemini CLI"
	case OpenCode:
		return "OpenCode"
	}
	return "GitHub Copilot CLI"
}

// jsonc reports whether the client reads its settings as commented JSON
// (Gemini CLI's settings.json); the others' are plain JSON, and a comment
// there is an error the client would make too.
func (c Client) jsonc() bool { return c == Gemini }

// ownFile reports whether Anvil's hooks for the client are a file of
// their own (OpenCode's plugin, Copilot CLI's hooks file) rather than
// entries in the client's settings.
func (c Client) ownFile() bool { return c == OpenCode || c == Copilot }

// ParseClient reads a client's name.
func ParseClient(s string) (Client, error) {
	for _, c := range Clients {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown client %q (want claude, codex, gemini, opencode or copilot)", s)
}

// Scope is where a client's settings live: the project's or the user's.
type Scope string

// The scopes.
const (
	Project Scope = "project"
	User    Scope = "user"
)

// ParseScope reads a scope's name.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case Project, User:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q (want project or user)", s)
}

// Hook verbs: what 'anvil hook VERB' does for an event.
const (
	VerbSessionStart = "session-start"
	VerbPreEdit      = "pre-edit"
	VerbPostEdit     = "post-edit"
	VerbStop         = "stop"
)

// Bounds of the hooks' own work, each below the timeout the installed
// entry gives the client (which kills a hook past it): a hook answers
// before its client gives up on it.
const (
	PreEditTimeoutSeconds = 20
	StopTimeoutSeconds    = 60
	clientSlackSeconds    = 10
)

// entry is one hook Anvil installs for a client.
type entry struct {
	event, matcher, verb string
}

// entries are each client's hooks: a snapshot at the session's start,
// the gate before each edit (and after an edit it could not compute
// before, for the clients that match loosely), the session's check at the
// end of a turn.
func entries(c Client) []entry {
	switch c {
	case Claude:
		return []entry{
			{"SessionStart", "", VerbSessionStart},
			{"PreToolUse", "Edit|Write|MultiEdit|NotebookEdit", VerbPreEdit},
			{"Stop", "", VerbStop},
			{"SubagentStop", "", VerbStop},
		}
	case Codex:
		return []entry{
			{"SessionStart", "", VerbSessionStart},
			{"PreToolUse", "apply_patch", VerbPreEdit},
			{"Stop", "", VerbStop},
		}
	case Gemini:
		return []entry{
			{"SessionStart", "", VerbSessionStart},
			{"BeforeTool", "write_file|replace", VerbPreEdit},
			{"AfterTool", "replace", VerbPostEdit},
			{"AfterAgent", "", VerbStop},
		}
	}
	return nil
}

// timeout is the entry's timeout in the client's unit (seconds; Gemini
// CLI's are milliseconds).
func (e entry) timeout(c Client) int {
	s := PreEditTimeoutSeconds + clientSlackSeconds
	if e.verb == VerbStop {
		s = StopTimeoutSeconds + clientSlackSeconds
	}
	if c == Gemini {
		return s * 1000
	}
	return s
}

// SettingsPath is the file holding client's hooks in scope: dir is the
// project, getenv reads HOME and the clients' own config variables.
func SettingsPath(c Client, s Scope, dir string, getenv func(string) string) string {
	home := getenv("HOME")
	switch c {
	case Claude:
		if s == Project {
			return filepath.Join(dir, ".claude", "settings.json")
		}
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json")
	case Codex:
		if s == Project {
			return filepath.Join(dir, ".codex", "hooks.json")
		}
		if d := getenv("CODEX_HOME"); d != "" {
			return filepath.Join(d, "hooks.json")
		}
		return filepath.Join(home, ".codex", "hooks.json")
	case OpenCode:
		if s == Project {
			return filepath.Join(dir, ".opencode", "plugin", "anvil.js")
		}
		if d := getenv("XDG_CONFIG_HOME"); d != "" {
			return filepath.Join(d, "opencode", "plugin", "anvil.js")
		}
		return filepath.Join(home, ".config", "opencode", "plugin", "anvil.js")
	case Copilot:
		if s == Project {
			return filepath.Join(dir, ".github", "hooks", "anvil.json")
		}
		if d := getenv("COPILOT_HOME"); d != "" {
			return filepath.Join(d, "hooks", "anvil.json")
		}
		return filepath.Join(home, ".copilot", "hooks", "anvil.json")
	default:
		if s == Project {
			return filepath.Join(dir, ".gemini", "settings.json")
		}
		return filepath.Join(home, ".gemini", "settings.json")
	}
}

// Command is the command line an entry runs: bin (the anvil binary's
// absolute path), the verb and the client. Its arguments are Anvil's
// marker: an entry is Anvil's when its command runs some program with
// "hook VERB --client C", whatever the program's file is called (a
// release binary named anvil-linux-amd64, a versioned copy, a link).
func Command(bin, verb string, c Client) string {
	return shellQuote(bin) + " hook " + verb + " --client " + string(c)
}

// anvilCommand matches the commands of Anvil's entries: one shell word
// (the binary, as Command quotes it or a user wrote it), then Anvil's
// own arguments.
var anvilCommand = regexp.MustCompile(`^\s*(?:'(?:[^']|'\\'')*'|"[^"]*"|[^\s'"]+)\s+hook\s+(?:` +
	VerbSessionStart + `|` + VerbPreEdit + `|` + VerbPostEdit + `|` + VerbStop + `)\s+--client\s+(?:claude|codex|gemini|opencode|copilot)(?:\s|$)`)

// IsAnvilCommand reports whether a hook's command is one Anvil installed.
func IsAnvilCommand(cmd string) bool { return anvilCommand.MatchString(cmd) }

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TrustNote is what a client needs after an install before the hooks
// run, or "".
func TrustNote(c Client) string {
	if c != Codex {
		return ""
	}
	return "Codex runs only the hooks you have trusted, and skips the others without a word: start codex in this project and trust Anvil's hooks with /hooks (a project's hooks also need the project trusted; a headless 'codex exec' can pass --dangerously-bypass-hook-trust)"
}

// Installation is what a client's settings file in one scope holds of
// Anvil's hooks.
type Installation struct {
	Client Client
	Scope  Scope
	Path   string
	// Commands are the installed entries' commands; none when Anvil's
	// hooks are not installed there.
	Commands []string
	// Err says why the file could not be read.
	Err error
	// Outdated says what the installed hooks lack of what this Anvil
	// installs (an older Anvil's: the post-edit hook, an older plugin);
	// "" when current or not installed.
	Outdated string
}

// Has reports whether the installed hooks include verb's.
func (in Installation) Has(verb string) bool {
	if in.Client == OpenCode {
		return len(in.Commands) > 0 && !strings.Contains(in.Outdated, "plugin")
	}
	return slices.ContainsFunc(in.Commands, func(cmd string) bool { return strings.Contains(cmd, " hook "+verb+" ") })
}

// Inspect reads what client c's settings in scope hold of Anvil's hooks.
func Inspect(c Client, s Scope, dir string, getenv func(string) string) Installation {
	in := Installation{Client: c, Scope: s, Path: SettingsPath(c, s, dir, getenv)}
	data, err := os.ReadFile(in.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return in
	case err != nil:
		in.Err = err
		return in
	}
	in.Commands, in.Err = Installed(data, c)
	if in.Err == nil && len(in.Commands) > 0 {
		in.Outdated = outdated(c, data, in)
	}
	return in
}

// outdated says what an installation of client c (its file's text data)
// lacks of what this Anvil installs.
func outdated(c Client, data []byte, in Installation) string {
	want := entries(c)
	switch c {
	case OpenCode:
		if !bytes.Equal(data, opencodePlugin(Binary(in.Commands[0]))) {
			return "an older Anvil's plugin"
		}
		return ""
	case Copilot:
		want = copilotEvents
	}
	var missing []string
	for _, e := range want {
		if !in.Has(e.verb) && !slices.Contains(missing, e.verb) {
			missing = append(missing, e.verb)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "an older Anvil's hooks, without " + strings.Join(missing, ", ")
}

// Binary returns the anvil binary an installed command runs.
func Binary(cmd string) string {
	i := strings.Index(cmd, " hook ")
	if i < 0 {
		return ""
	}
	return strings.Trim(strings.ReplaceAll(cmd[:i], `'\''`, "'"), "'")
}
