package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const bin = "/opt/anvil/bin/anvil"

// settings files as users have them: none, empty, keys of their own,
// hooks of their own on the very events Anvil uses.
var existingSettings = map[string]string{
	"none":  "",
	"empty": "{}\n",
	"other keys": `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ]
  },
  "env": {
    "FOO": "1"
  }
}
`,
	"user hooks": `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "echo bash >> /tmp/log"
          }
        ]
      },
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --check",
            "timeout": 5
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "BeforeTool": [
      {
        "matcher": "run_shell_command",
        "hooks": [
          {
            "type": "command",
            "command": "audit"
          }
        ]
      }
    ]
  },
  "theme": "dark"
}
`,
	"not indented": `{"theme":"dark","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`,
}

// Installing then uninstalling gives back the user's file byte for byte,
// however it was written; installing twice changes nothing; every entry runs the
// binary with its verb and client, with a timeout in the client's unit.
func TestInstallUninstallKeepsTheUsersSettings(t *testing.T) {
	for _, c := range []Client{Claude, Codex, Gemini} {
		for name, before := range existingSettings {
			t.Run(string(c)+"/"+name, func(t *testing.T) {
				once, err := Install([]byte(before), c, bin)
				if err != nil {
					t.Fatal(err)
				}
				twice, err := Install(once, c, bin)
				if err != nil {
					t.Fatal(err)
				}
				if string(twice) != string(once) {
					t.Errorf("a second install changed the file:\n%s\nthen\n%s", once, twice)
				}
				checkEntries(t, c, once)
				userKeysKept(t, before, once)
				after, err := Uninstall(once, c)
				if err != nil {
					t.Fatal(err)
				}
				switch name {
				case "none":
					if string(after) != "{}\n" {
						t.Errorf("uninstall from a new file left %q", after)
					}
				default:
					if string(after) != before {
						t.Errorf("uninstall did not give back the file byte for byte:\n%s\nto\n%s", before, after)
					}
				}
				if cmds, _ := Installed(after, c); len(cmds) != 0 {
					t.Errorf("after uninstall, still installed: %v", cmds)
				}
			})
		}
	}
}

// checkEntries asserts each of the client's entries is there once, with
// its matcher, command and timeout.
func checkEntries(t *testing.T, c Client, data []byte) {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for _, e := range entries(c) {
		found := 0
		for _, g := range s.Hooks[e.event] {
			for _, h := range g.Hooks {
				if !IsAnvilCommand(h.Command) || !strings.Contains(h.Command, " "+e.verb+" ") {
					continue
				}
				found++
				if g.Matcher != e.matcher || h.Type != "command" || h.Command != bin+" hook "+e.verb+" --client "+string(c) {
					t.Errorf("%s: entry %+v / %+v", e.event, g, h)
				}
				want := PreEditTimeoutSeconds + clientSlackSeconds
				if e.verb == VerbStop {
					want = StopTimeoutSeconds + clientSlackSeconds
				}
				if c == Gemini {
					want *= 1000
				}
				if h.Timeout != want {
					t.Errorf("%s: timeout %d, want %d", e.event, h.Timeout, want)
				}
			}
		}
		if found != 1 {
			t.Errorf("%s: %d entries of Anvil's for %s, want 1:\n%s", e.event, found, e.verb, data)
		}
	}
}

// userKeysKept asserts every top-level key but "hooks" is unchanged and
// in its order, and every user hook is still there.
func userKeysKept(t *testing.T, before string, after []byte) {
	t.Helper()
	topLevel := func(text []byte) (keys []string, vals map[string]string) {
		vals = map[string]string{}
		if len(strings.TrimSpace(string(text))) == 0 {
			return nil, vals
		}
		n, err := parseJSONC(text, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range n.members {
			if m.key != "hooks" {
				keys = append(keys, m.key)
				vals[m.key] = string(text[m.val.start:m.val.end])
			}
		}
		return keys, vals
	}
	want, b := topLevel([]byte(before))
	order, a := topLevel(after)
	for k, v := range b {
		if a[k] != v {
			t.Errorf("key %s changed: %s -> %s", k, v, a[k])
		}
	}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("keys %v, want %v", order, want)
	}
	for _, cmd := range []string{"echo bash >> /tmp/log", "prettier --check", "notify-send done", "audit"} {
		if strings.Contains(before, cmd) && !strings.Contains(string(after), cmd) {
			t.Errorf("the user's hook %q is gone:\n%s", cmd, after)
		}
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// An install from another binary path replaces the earlier entries, and
// a handler of Anvil's that shares a group with the user's goes alone.
func TestInstallReplacesAnEarlierAnvil(t *testing.T) {
	old := `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write|MultiEdit|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "'/old path/anvil' hook pre-edit --client claude",
            "timeout": 30
          },
          {
            "type": "command",
            "command": "lint-staged"
          }
        ]
      }
    ]
  }
}
`
	got, err := Install([]byte(old), Claude, bin)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "/old path/") {
		t.Errorf("the old entry stayed:\n%s", got)
	}
	if !strings.Contains(string(got), "lint-staged") {
		t.Errorf("the user's handler in the same group is gone:\n%s", got)
	}
	checkEntries(t, Claude, got)
	cmds, _ := Installed(got, Claude)
	for _, c := range cmds {
		if Binary(c) != bin {
			t.Errorf("Binary(%q) = %q", c, Binary(c))
		}
	}
	if b := Binary(Command("/a b/it's/anvil", VerbStop, Codex)); b != "/a b/it's/anvil" {
		t.Errorf("Binary of a quoted path: %q", b)
	}
}

// Settings that are not a JSON object are refused, and nothing is
// computed to write over them.
func TestInstallRefusesMalformedSettings(t *testing.T) {
	for _, bad := range []string{`[1]`, `{"hooks": [1]}`, `{"hooks": {"Stop": {}}}`, `{"a": 1} {}`, `{"a":`} {
		if out, err := Install([]byte(bad), Claude, bin); err == nil {
			t.Errorf("Install(%s) = %s, want an error", bad, out)
		}
	}
}

// A plan writes only when applied, creates the directory, keeps the
// file's mode, and a second plan of the same install changes nothing.
func TestPlanApply(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": filepath.Join(dir, "home")}[k] }
	path := SettingsPath(Codex, Project, dir, getenv)
	if path != filepath.Join(dir, ".codex", "hooks.json") {
		t.Fatalf("path %s", path)
	}
	p, err := PlanInstall(path, Codex, bin)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Changed() {
		t.Fatal("a new install changes nothing")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("planning wrote the file: %v", err)
	}
	if err := p.Apply(nil); err != nil {
		t.Fatal(err)
	}
	if in := Inspect(Codex, Project, dir, getenv); len(in.Commands) != 3 || in.Err != nil {
		t.Errorf("inspect after install: %+v", in)
	}
	if in := Inspect(Codex, User, dir, getenv); len(in.Commands) != 0 || in.Err != nil {
		t.Errorf("the user scope: %+v", in)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	p2, err := PlanInstall(path, Codex, bin)
	if err != nil || p2.Changed() {
		t.Fatalf("a second install: changed %v, %v", p2.Changed(), err)
	}
	u, err := PlanUninstall(path, Codex, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(nil); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode after uninstall: %v %v", info.Mode(), err)
	}
	if u, err := PlanUninstall(filepath.Join(dir, "missing.json"), Codex, nil); err != nil || u.Changed() {
		t.Errorf("uninstall of a missing file: %v %v", u.Changed(), err)
	}
}

// commented is Gemini CLI's settings as a person keeps them: comments
// of both kinds, Anvil's events among the user's own.
const commented = `// My Gemini settings.
{
    /* the theme */
    "theme": "dark", // keep it dark
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "run_shell_command", // audit the shell
                "hooks": [{"type": "command", "command": "audit"}]
            }
        ]
    }
}
`

// An install a person can trust: Anvil's entries are known by their
// arguments whatever the binary is called (a release binary, a link, a
// versioned copy), so a second install changes nothing, an install from
// another binary replaces the earlier entries, and uninstall finds them
// and gives back the file byte for byte, comments and all where the
// client reads commented JSON.
func TestInstallWithTheBinaryUnderAnyName(t *testing.T) {
	bins := []string{"/opt/bin/anvil-linux-amd64", "/home/me/bin/anvil-1.4", "/usr/local/bin/av", "/a b/it's here/gate"}
	for _, c := range []Client{Claude, Codex, Gemini} {
		for _, before := range []string{existingSettings["user hooks"], existingSettings["not indented"], commented} {
			if before == commented && c != Gemini {
				continue
			}
			verbs := map[string]bool{}
			for _, e := range entries(c) {
				verbs[e.verb] = true
			}
			for i, b := range bins {
				once, err := Install([]byte(before), c, b)
				if err != nil {
					t.Fatalf("%s %s: %v", c, b, err)
				}
				if cmds, _ := Installed(once, c); len(cmds) != len(verbs) || Binary(cmds[0]) != b {
					t.Errorf("%s %s: installed %q", c, b, cmds)
				}
				if twice, _ := Install(once, c, b); string(twice) != string(once) {
					t.Errorf("%s %s: a second install changed the file:\n%s\nthen\n%s", c, b, once, twice)
				}
				other := bins[(i+1)%len(bins)]
				moved, err := Install(once, c, other)
				if err != nil {
					t.Fatal(err)
				}
				if cmds, _ := Installed(moved, c); len(cmds) != len(verbs) || Binary(cmds[0]) != other {
					t.Errorf("%s: an install from %s left %q", c, other, cmds)
				}
				for _, text := range [][]byte{once, moved} {
					after, err := Uninstall(text, c)
					if err != nil {
						t.Fatal(err)
					}
					if string(after) != before {
						t.Errorf("%s %s: uninstall did not give back the file:\n%s\ngot\n%s", c, b, before, after)
					}
				}
				if before == commented && !strings.Contains(string(once), "// keep it dark") {
					t.Errorf("the comments are gone:\n%s", once)
				}
			}
		}
	}
}

// A comment in a client's settings that are plain JSON is an error the
// client would make too: refused, nothing computed.
func TestInstallRefusesCommentsWhereTheClientDoes(t *testing.T) {
	for _, c := range []Client{Claude, Codex} {
		if out, err := Install([]byte(commented), c, bin); err == nil {
			t.Errorf("%s: Install of commented settings = %s, want an error", c, out)
		}
	}
}

// A settings file kept elsewhere and linked (a dotfiles repository)
// stays a link: its target is edited in place and given back byte for
// byte. A file the install created goes at the uninstall, with the
// directories made for it; one the user had stays, as it was.
func TestPlanKeepsLinksAndRemovesWhatItCreated(t *testing.T) {
	dir := t.TempDir()
	ledger := NewLedger(filepath.Join(dir, "state"))
	dotfiles := filepath.Join(dir, "dotfiles", "gemini.json")
	if err := os.MkdirAll(filepath.Dir(dotfiles), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dotfiles, []byte(commented), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "proj", ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../dotfiles/gemini.json", link); err != nil {
		t.Fatal(err)
	}
	apply := func(p Plan, err error) Plan {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Apply(ledger); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := apply(PlanInstall(link, Gemini, bin))
	if !strings.Contains(p.Diff(), "+++ b"+link) || !strings.Contains(p.Diff(), `+                        "command": "`+bin+` hook pre-edit --client gemini"`) {
		t.Errorf("the diff:\n%s", p.Diff())
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v %v", info, err)
	}
	if data, _ := os.ReadFile(dotfiles); !strings.Contains(string(data), "hook stop --client gemini") {
		t.Errorf("the link's target was not edited:\n%s", data)
	}
	apply(PlanUninstall(link, Gemini, ledger))
	if data, _ := os.ReadFile(dotfiles); string(data) != commented {
		t.Errorf("the target after uninstall:\n%s", data)
	}
	if info, err := os.Stat(dotfiles); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode: %v %v", info, err)
	}

	// Created by the install: gone at the uninstall, and its directory.
	made := filepath.Join(dir, "proj", ".claude", "settings.json")
	p = apply(PlanInstall(made, Claude, bin))
	if !strings.HasPrefix(p.Diff(), "--- /dev/null\n") {
		t.Errorf("the diff of a new file:\n%s", p.Diff())
	}
	u := apply(PlanUninstall(made, Claude, ledger))
	if !u.Remove {
		t.Errorf("the uninstall keeps the file it created: %s", u.After)
	}
	if _, err := os.Stat(filepath.Dir(made)); !os.IsNotExist(err) {
		t.Errorf("the directory the install made is still there: %v", err)
	}
	// The user's own "{}" stays.
	own := filepath.Join(dir, "proj", ".codex", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	apply(PlanInstall(own, Codex, bin))
	apply(PlanUninstall(own, Codex, ledger))
	if data, err := os.ReadFile(own); err != nil || string(data) != "{}\n" {
		t.Errorf("the user's file after uninstall: %q %v", data, err)
	}
}

// OpenCode's plugin and Copilot CLI's hooks file are Anvil's own: written
// whole, unchanged by a second install, rewritten for another binary,
// removed by the uninstall; a user's file of the same name is refused.
func TestInstallOwnFiles(t *testing.T) {
	for _, c := range []Client{OpenCode, Copilot} {
		once, err := Install(nil, c, "/opt/anvil-linux-amd64")
		if err != nil {
			t.Fatal(err)
		}
		if cmds, _ := Installed(once, c); len(cmds) == 0 || Binary(cmds[0]) != "/opt/anvil-linux-amd64" {
			t.Errorf("%s: installed %q\n%s", c, cmds, once)
		}
		if twice, _ := Install(once, c, "/opt/anvil-linux-amd64"); string(twice) != string(once) {
			t.Errorf("%s: a second install changed the file", c)
		}
		moved, _ := Install(once, c, "/usr/bin/av")
		if cmds, _ := Installed(moved, c); len(cmds) == 0 || Binary(cmds[0]) != "/usr/bin/av" {
			t.Errorf("%s: after a move, installed %q", c, cmds)
		}
		if after, err := Uninstall(moved, c); err != nil || after != nil {
			t.Errorf("%s: uninstall of Anvil's file: %q %v", c, after, err)
		}
		user := []byte(`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "lint"}]}}`)
		if c == OpenCode {
			user = []byte("export const Mine = async () => ({});\n")
		}
		if _, err := Install(user, c, bin); err == nil {
			t.Errorf("%s: an install over the user's file of the same name", c)
		}
		if after, err := Uninstall(user, c); err != nil || string(after) != string(user) {
			t.Errorf("%s: uninstall changed the user's file: %q %v", c, after, err)
		}
	}
}

// Whatever settings parse, installing then uninstalling gives them back
// byte for byte, and what the install writes parses as the client reads
// it, with Anvil's entries in it.
func FuzzInstallUninstall(f *testing.F) {
	for _, s := range existingSettings {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(commented), true)
	f.Add([]byte(`{"hooks":{}}`), false)
	f.Add([]byte("{\n\t\"a\": [1,\n\t\t2],\n\t\"hooks\": {\"Stop\": []}\n}"), true)
	f.Fuzz(func(t *testing.T, text []byte, jsonc bool) {
		c := Claude
		if jsonc {
			c = Gemini
		}
		if _, err := parseJSONC(text, jsonc); err != nil {
			return
		}
		if cmds, err := Installed(text, c); err != nil || len(cmds) > 0 {
			return
		}
		once, err := Install(text, c, bin)
		if err != nil {
			return // a "hooks" that is not an object, an event not a list
		}
		if _, err := parseJSONC(once, jsonc); err != nil {
			t.Fatalf("the install wrote what does not parse (%v):\n%s", err, once)
		}
		if s, _ := parseSettings(once, jsonc); len(s.anvilHandlers()) != len(entries(c)) {
			t.Fatalf("installed %v:\n%s", s.anvilHandlers(), once)
		}
		after, err := Uninstall(once, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(text)) > 0 && !bytes.Equal(after, text) && !emptiedOnly(t, text, after, jsonc) {
			t.Fatalf("uninstall did not give back\n%q\ngot\n%q", text, after)
		}
	})
}

// emptiedOnly reports whether after is before without an empty "hooks"
// object or an empty list of one of its events: what the uninstall
// cannot tell from the containers the install made, and removes.
func emptiedOnly(t *testing.T, before, after []byte, jsonc bool) bool {
	t.Helper()
	norm := func(text []byte) string {
		n, err := parseJSONC(text, jsonc)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(plain(text, n), &v); err != nil {
			t.Fatal(err)
		}
		if h, ok := v["hooks"].(map[string]any); ok {
			for k, l := range h {
				if l, ok := l.([]any); ok && len(l) == 0 {
					delete(h, k)
				}
			}
			if len(h) == 0 {
				delete(v, "hooks")
			}
		}
		out, _ := json.Marshal(v)
		return string(out)
	}
	return norm(before) == norm(after)
}

// Hooks an older Anvil installed (Gemini CLI's without the post-edit
// hook, an older OpenCode plugin) are told apart from current ones: the
// pre-edit hook then leaves a loose edit to the end of the turn instead
// of promising a check after it, and doctor says to install again.
func TestOutdatedInstallations(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }
	write := func(c Client, data []byte) {
		p := SettingsPath(c, Project, dir, getenv)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	older := `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "/bin/anvil hook session-start --client gemini"}]}],
  "BeforeTool": [{"matcher": "write_file|replace", "hooks": [{"type": "command", "command": "/bin/anvil hook pre-edit --client gemini"}]}],
  "AfterAgent": [{"hooks": [{"type": "command", "command": "/bin/anvil hook stop --client gemini"}]}]
}}`
	write(Gemini, []byte(older))
	in := Inspect(Gemini, Project, dir, getenv)
	if in.Has(VerbPostEdit) || !strings.Contains(in.Outdated, VerbPostEdit) {
		t.Errorf("an older Gemini CLI installation: has post-edit %v, outdated %q", in.Has(VerbPostEdit), in.Outdated)
	}
	current, err := Install([]byte(older), Gemini, "/bin/anvil")
	if err != nil {
		t.Fatal(err)
	}
	write(Gemini, current)
	if in := Inspect(Gemini, Project, dir, getenv); !in.Has(VerbPostEdit) || in.Outdated != "" {
		t.Errorf("installed again: has post-edit %v, outdated %q", in.Has(VerbPostEdit), in.Outdated)
	}

	plugin, err := Install(nil, OpenCode, "/bin/anvil")
	if err != nil {
		t.Fatal(err)
	}
	write(OpenCode, plugin)
	if in := Inspect(OpenCode, Project, dir, getenv); !in.Has(VerbPostEdit) || in.Outdated != "" {
		t.Errorf("a current plugin: has post-edit %v, outdated %q", in.Has(VerbPostEdit), in.Outdated)
	}
	write(OpenCode, bytes.ReplaceAll(plugin, []byte(`"post-edit"`), []byte(`"x"`)))
	if in := Inspect(OpenCode, Project, dir, getenv); in.Has(VerbPostEdit) || in.Outdated == "" {
		t.Errorf("an older plugin: has post-edit %v, outdated %q", in.Has(VerbPostEdit), in.Outdated)
	}
}
