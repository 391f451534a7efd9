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
	if !strings.Contains(out, "would write "+settings) || !strings.Contains(out, anvil+" hook pre-edit --client claude") {
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
