package hooks

import (
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

// Installing then uninstalling gives back the user's file: byte for byte
// when it was written as the clients write theirs, the same JSON value
// otherwise; installing twice changes nothing; every entry runs the
// binary with its verb and client, with a timeout in the client's unit.
func TestInstallUninstallKeepsTheUsersSettings(t *testing.T) {
	for _, c := range Clients {
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
				after, err := Uninstall(once)
				if err != nil {
					t.Fatal(err)
				}
				switch name {
				case "none":
					if string(after) != "{}\n" {
						t.Errorf("uninstall from a new file left %q", after)
					}
				case "not indented":
					if !sameJSON(t, before, string(after)) {
						t.Errorf("uninstall changed the settings:\n%s\nto\n%s", before, after)
					}
				default:
					if string(after) != before {
						t.Errorf("uninstall did not give back the file byte for byte:\n%s\nto\n%s", before, after)
					}
				}
				if cmds, _ := Installed(after); len(cmds) != 0 {
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
	b, err := parseObject([]byte(before))
	if err != nil {
		t.Fatal(err)
	}
	a, err := parseObject(after)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, k := range a.keys {
		if k != "hooks" {
			order = append(order, k)
		}
	}
	var want []string
	for _, k := range b.keys {
		if k != "hooks" {
			want = append(want, k)
			if string(a.vals[k]) != string(b.vals[k]) && !sameJSON(t, string(a.vals[k]), string(b.vals[k])) {
				t.Errorf("key %s changed: %s -> %s", k, b.vals[k], a.vals[k])
			}
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
	cmds, _ := Installed(got)
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
	if err := p.Apply(); err != nil {
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
	u, err := PlanUninstall(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode after uninstall: %v %v", info.Mode(), err)
	}
	if u, err := PlanUninstall(filepath.Join(dir, "missing.json")); err != nil || u.Changed() {
		t.Errorf("uninstall of a missing file: %v %v", u.Changed(), err)
	}
}
