// Package hooks puts Anvil's gate in front of other coding agents' edits,
// through their hooks: a client's hook input (Claude Code's, Codex CLI's,
// Gemini CLI's) becomes a change set, the workspace's Service judges it,
// and the verdict goes back as the client's hook output. It also installs
// and removes Anvil's entries in the clients' settings.
package hooks

import (
	"encoding/json"
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
	Claude Client = "claude"
	Codex  Client = "codex"
	Gemini Client = "gemini"
)

// Clients lists every client, in the order reports show them.
var Clients = []Client{Claude, Codex, Gemini}

// ParseClient reads a client's name.
func ParseClient(s string) (Client, error) {
	for _, c := range Clients {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown client %q (want claude, codex or gemini)", s)
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
// the gate before each edit, the session's check at the end of a turn.
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
	default:
		if s == Project {
			return filepath.Join(dir, ".gemini", "settings.json")
		}
		return filepath.Join(home, ".gemini", "settings.json")
	}
}

// Command is the command line an entry runs: bin (the anvil binary's
// absolute path), the verb and the client.
func Command(bin, verb string, c Client) string {
	return shellQuote(bin) + " hook " + verb + " --client " + string(c)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// anvilCommand matches the commands of Anvil's entries, whatever binary
// path an earlier install wrote.
var anvilCommand = regexp.MustCompile(`(?:^|[/'"\s])anvil(?:\.exe)?['"]?\s+hook\s+(?:` + VerbSessionStart + `|` + VerbPreEdit + `|` + VerbStop + `)\s+--client\s`)

// IsAnvilCommand reports whether a hook's command is one Anvil installed.
func IsAnvilCommand(cmd string) bool { return anvilCommand.MatchString(cmd) }

// Install returns settings (a client's settings file; empty for none)
// with Anvil's entries for client c, running bin: the entries of an
// earlier install are replaced, everything else is kept as it was.
func Install(settings []byte, c Client, bin string) ([]byte, error) {
	root, hooks, err := load(settings)
	if err != nil {
		return nil, err
	}
	removeAnvil(hooks)
	for _, e := range entries(c) {
		h := handler{Type: "command", Command: Command(bin, e.verb, c), Timeout: e.timeout(c)}
		if c == Gemini {
			h.Name = "anvil-" + e.verb
		}
		group := newObject()
		if e.matcher != "" {
			group.set("matcher", mustRaw(e.matcher))
		}
		group.set("hooks", mustRaw([]any{h}))
		var groups []json.RawMessage
		if raw, ok := hooks.get(e.event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, fmt.Errorf("hooks.%s is not a list: %w", e.event, err)
			}
		}
		groups = append(groups, group.compact())
		hooks.set(e.event, mustRaw(groups))
	}
	root.set("hooks", hooks.compact())
	return root.indented()
}

// Uninstall returns settings without Anvil's entries; the user's own
// hooks and every other key stay. Settings without Anvil's entries are
// returned as they are.
func Uninstall(settings []byte) ([]byte, error) {
	root, hooks, err := load(settings)
	if err != nil {
		return nil, err
	}
	if !removeAnvil(hooks) {
		return settings, nil
	}
	if hooks.len() == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks.compact())
	}
	return root.indented()
}

// Installed returns the commands of Anvil's entries in settings.
func Installed(settings []byte) ([]string, error) {
	_, hooks, err := load(settings)
	if err != nil {
		return nil, err
	}
	var cmds []string
	for _, event := range hooks.keys {
		var groups []json.RawMessage
		if json.Unmarshal(hooks.vals[event], &groups) != nil {
			continue
		}
		for _, g := range groups {
			for _, h := range handlers(g) {
				if cmd := commandOf(h); IsAnvilCommand(cmd) && !slices.Contains(cmds, cmd) {
					cmds = append(cmds, cmd)
				}
			}
		}
	}
	return cmds, nil
}

// load parses a settings file and its "hooks" object.
func load(settings []byte) (root, hooks *object, err error) {
	root, err = parseObject(settings)
	if err != nil {
		return nil, nil, fmt.Errorf("the settings are not a JSON object: %w", err)
	}
	hooks = newObject()
	if raw, ok := root.get("hooks"); ok {
		if hooks, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf("the settings' \"hooks\" is not an object: %w", err)
		}
	}
	return root, hooks, nil
}

// handler is a hook entry's command, as the clients read it (Gemini CLI
// also names it).
type handler struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// removeAnvil drops Anvil's handlers from every event's groups, a group
// left without handlers, and an event left without groups; it reports
// whether it dropped any. What holds none of Anvil's stays as written.
func removeAnvil(hooks *object) bool {
	removed := false
	for _, event := range slices.Clone(hooks.keys) {
		var groups []json.RawMessage
		if json.Unmarshal(hooks.vals[event], &groups) != nil {
			continue
		}
		var kept []json.RawMessage
		changed := false
		for _, g := range groups {
			hs := handlers(g)
			var rest []json.RawMessage
			for _, h := range hs {
				if !IsAnvilCommand(commandOf(h)) {
					rest = append(rest, h)
				}
			}
			if len(rest) == len(hs) {
				kept = append(kept, g)
				continue
			}
			changed = true
			if len(rest) == 0 {
				continue
			}
			obj, _ := parseObject(g)
			obj.set("hooks", mustRaw(rest))
			kept = append(kept, obj.compact())
		}
		if !changed {
			continue
		}
		removed = true
		if len(kept) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, mustRaw(kept))
		}
	}
	return removed
}

// handlers returns a group's hook handlers ({"matcher", "hooks": [...]}).
func handlers(group json.RawMessage) []json.RawMessage {
	obj, err := parseObject(group)
	if err != nil {
		return nil
	}
	raw, ok := obj.get("hooks")
	if !ok {
		return nil
	}
	var hs []json.RawMessage
	if json.Unmarshal(raw, &hs) != nil {
		return nil
	}
	return hs
}

func commandOf(handler json.RawMessage) string {
	var h struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(handler, &h)
	return h.Command
}

func mustRaw(v any) json.RawMessage {
	raw, err := marshalRaw(v)
	if err != nil {
		panic(err) // only strings, handlers and raw messages reach here
	}
	return raw
}

// Plan is what installing or removing Anvil's hooks does to one file.
type Plan struct {
	Path   string
	Before []byte // nil: the file does not exist
	After  []byte
	// Exists is whether the file exists now.
	Exists bool
}

// Changed reports whether the plan changes the file.
func (p Plan) Changed() bool {
	return !p.Exists && p.After != nil || p.Exists && string(p.Before) != string(p.After)
}

// PlanInstall reads path and computes its content with Anvil's entries.
func PlanInstall(path string, c Client, bin string) (Plan, error) {
	p, err := readPlan(path)
	if err != nil {
		return p, err
	}
	if p.After, err = Install(p.Before, c, bin); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// PlanUninstall reads path and computes its content without Anvil's
// entries; a missing file stays missing.
func PlanUninstall(path string) (Plan, error) {
	p, err := readPlan(path)
	if err != nil || !p.Exists {
		return p, err
	}
	if p.After, err = Uninstall(p.Before); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func readPlan(path string) (Plan, error) {
	p := Plan{Path: path}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return p, nil
	case err != nil:
		return p, err
	}
	p.Before, p.Exists = data, true
	return p, nil
}

// Apply writes the plan's content, atomically, keeping the file's mode.
func (p Plan) Apply() error {
	if !p.Changed() {
		return nil
	}
	mode := os.FileMode(0o644)
	if info, err := os.Stat(p.Path); err == nil {
		mode = info.Mode().Perm()
	}
	dir := filepath.Dir(p.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p.Path)+".anvil-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(p.After); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p.Path)
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
	in.Commands, in.Err = Installed(data)
	return in
}

// Binary returns the anvil binary an installed command runs.
func Binary(cmd string) string {
	i := strings.Index(cmd, " hook ")
	if i < 0 {
		return ""
	}
	return strings.Trim(strings.ReplaceAll(cmd[:i], `'\''`, "'"), "'")
}
