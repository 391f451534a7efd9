package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The real binary installs its hooks with its own absolute path, --print
// writes nothing, a second install changes nothing, uninstall gives back
// the user's file, and Codex's install says how to trust the hooks.
func TestHooksInstallCLI(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	anvil := filepath.Join(binDir, "anvil")
	runAnvil := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(anvil, args...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("anvil %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	settings := filepath.Join(dir, ".claude", "settings.json")
	user := "{\n  \"model\": \"opus\"\n}\n"
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}

	out := runAnvil("hooks", "install", "--print", "-C", dir, "claude", "codex")
	if !strings.Contains(out, "--- a"+settings+"\n+++ b"+settings+"\n") || !strings.Contains(out, `+            "command": "`+anvil+` hook pre-edit --client claude",`) ||
		!strings.Contains(out, "--- /dev/null\n+++ b"+filepath.Join(dir, ".codex", "hooks.json")) || !strings.Contains(out, ` "model": "opus"`) {
		t.Errorf("--print:\n%s", out)
	}
	if data, _ := os.ReadFile(settings); string(data) != user {
		t.Errorf("--print wrote %s", data)
	}
	if _, err := os.Stat(filepath.Join(dir, ".codex")); !os.IsNotExist(err) {
		t.Errorf("--print made .codex: %v", err)
	}

	out = runAnvil("hooks", "install", "-C", dir, "claude", "codex")
	if !strings.Contains(out, "claude: installed") || !strings.Contains(out, "/hooks") {
		t.Errorf("install:\n%s", out)
	}
	installed, _ := os.ReadFile(settings)
	if !strings.Contains(string(installed), anvil+" hook stop --client claude") || !strings.Contains(string(installed), `"model": "opus"`) {
		t.Errorf("installed settings:\n%s", installed)
	}
	out = runAnvil("hooks", "install", "-C", dir, "claude")
	if !strings.Contains(out, "already installed") {
		t.Errorf("second install:\n%s", out)
	}
	if again, _ := os.ReadFile(settings); string(again) != string(installed) {
		t.Errorf("a second install changed the file")
	}
	out = runAnvil("doctor", "-C", dir, "--timeout", "1s")
	if !strings.Contains(out, "claude (project)") || !strings.Contains(out, "guarded: Anvil's hooks are in "+settings) {
		t.Errorf("doctor:\n%s", out)
	}

	runAnvil("hooks", "uninstall", "-C", dir, "claude", "codex", "gemini")
	if data, _ := os.ReadFile(settings); string(data) != user {
		t.Errorf("after uninstall:\n%s", data)
	}

	cmd := exec.Command(anvil, "hooks", "install", "-C", dir, "cursor")
	if out, err := cmd.CombinedOutput(); err == nil || cmd.ProcessState.ExitCode() != exitBadInput {
		t.Errorf("an unknown client: %v\n%s", err, out)
	}
}

// Each client's install through the real binary as a person has it: the
// binary under another name (a release binary, reached through a link of
// yet another name), the settings file a link into a dotfiles directory
// (commented JSON for Gemini CLI), installed twice, then removed by
// another binary: the link stays a link, the second install changes
// nothing, the uninstall gives the file back byte for byte; a settings
// file the install created goes at the uninstall, with its directory.
func TestHooksInstallAsAPersonHasIt(t *testing.T) {
	home := t.TempDir()
	release := filepath.Join(home, "dl", "anvil-linux-amd64")
	data, err := os.ReadFile(filepath.Join(binDir, "anvil"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(release), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(release, data, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "bin", "av")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(release, link); err != nil {
		t.Fatal(err)
	}
	run := func(bin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
		}
		return string(out)
	}
	user := map[string]string{
		"claude": "{\n    \"model\": \"opus\",\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]}\n}\n",
		"codex":  `{"hooks":{"PreToolUse":[{"matcher":"shell","hooks":[{"type":"command","command":"audit"}]}]}}`,
		"gemini": "// mine\n{\n  \"theme\": \"dark\", /* dark */\n  \"hooks\": {\n    // audit the shell\n    \"BeforeTool\": [{\"matcher\": \"run_shell_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}]\n  }\n}\n",
	}
	settings := map[string]string{"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}
	for _, c := range []string{"claude", "codex", "gemini"} {
		proj := filepath.Join(home, "proj-"+c)
		target := filepath.Join(home, "dotfiles", c+".json")
		testfsWrite(t, target, user[c])
		path := filepath.Join(proj, settings[c])
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		run(link, "hooks", "install", "-C", proj, c)
		once, _ := os.ReadFile(target)
		if !strings.Contains(string(once), release+" hook pre-edit --client "+c) {
			t.Errorf("%s: the install did not reach the link's target:\n%s", c, once)
		}
		if out := run(link, "hooks", "install", "-C", proj, c); !strings.Contains(out, "already installed") {
			t.Errorf("%s: the second install: %s", c, out)
		}
		if twice, _ := os.ReadFile(target); string(twice) != string(once) {
			t.Errorf("%s: the second install changed the file:\n%s", c, twice)
		}
		if info, err := os.Lstat(path); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the settings file is no longer a link: %v", c, err)
		}
		if out := run(filepath.Join(binDir, "anvil"), "hooks", "uninstall", "-C", proj, c); !strings.Contains(out, "removed Anvil's hooks") {
			t.Errorf("%s: uninstall by another binary: %s", c, out)
		}
		if after, _ := os.ReadFile(target); string(after) != user[c] {
			t.Errorf("%s: after uninstall:\n%q\nwant\n%q", c, after, user[c])
		}

		fresh := filepath.Join(home, "fresh-"+c)
		if err := os.MkdirAll(fresh, 0o755); err != nil {
			t.Fatal(err)
		}
		run(link, "hooks", "install", "-C", fresh, c)
		run(link, "hooks", "uninstall", "-C", fresh, c)
		if _, err := os.Stat(filepath.Dir(filepath.Join(fresh, settings[c]))); !os.IsNotExist(err) {
			t.Errorf("%s: the file the install created (or its directory) is still there: %v", c, err)
		}
	}
	// OpenCode's plugin and Copilot CLI's hooks file are files of Anvil's
	// own (no user settings to merge, link or comment): installed under
	// the release's name, a second install changes nothing, another
	// binary's uninstall removes the file and the folders it created.
	own := map[string]string{"opencode": ".opencode/plugin/anvil.js", "copilot": ".github/hooks/anvil.json"}
	for _, c := range []string{"opencode", "copilot"} {
		proj := filepath.Join(home, "proj-"+c)
		if err := os.MkdirAll(proj, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(proj, own[c])
		run(link, "hooks", "install", "-C", proj, c)
		once, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(once), release) {
			t.Fatalf("%s: the installed file does not run the release's binary (%v):\n%s", c, err, once)
		}
		if out := run(link, "hooks", "install", "-C", proj, c); !strings.Contains(out, "already installed") {
			t.Errorf("%s: the second install: %s", c, out)
		}
		if twice, _ := os.ReadFile(path); string(twice) != string(once) {
			t.Errorf("%s: the second install changed the file:\n%s", c, twice)
		}
		if out := run(filepath.Join(binDir, "anvil"), "hooks", "uninstall", "-C", proj, c); !strings.Contains(out, "removed "+path) {
			t.Errorf("%s: uninstall by another binary: %s", c, out)
		}
		top := filepath.Join(proj, strings.SplitN(own[c], "/", 2)[0])
		if _, err := os.Stat(top); !os.IsNotExist(err) {
			t.Errorf("%s: the file the install created (or its folders) is still there: %v", c, err)
		}
	}
}

func testfsWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
