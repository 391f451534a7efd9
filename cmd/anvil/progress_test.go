package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/anvil-dev/anvil/internal/demo"
	"github.com/anvil-dev/anvil/internal/servers"
)

// On a terminal, anvil check shows on stderr what the gate is doing while
// it runs; its --json output on stdout carries none of it, and without a
// terminal stderr is quiet.
func TestCheckProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	if err := demo.Extract(ws); err != nil {
		t.Fatal(err)
	}
	changes := filepath.Join(dir, "changes.json")
	os.WriteFile(changes, []byte(`{"changes": [{"path": "src/main.ts", "content": "export const x: number = 1;\n"}]}`), 0o644)
	run := func(stderr io.Writer) []byte {
		var stdout bytes.Buffer
		cmd := exec.Command(filepath.Join(binDir, "anvil"), "check", "--json", "-C", ws, changes)
		cmd.Env = append(os.Environ(), "ANVIL_TOOLS_DIR="+servers.DefaultToolsDir(os.Getenv),
			"ANVIL_SESSION_DIR="+filepath.Join(dir, "sessions"), "ANVIL_STATE_DIR="+filepath.Join(dir, "state"))
		cmd.Stdout, cmd.Stderr = &stdout, stderr
		_ = cmd.Run() // the verdict's exit status does not matter here
		var res struct{ Verdict string }
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.Verdict == "" {
			t.Fatalf("stdout is not the JSON verdict: %v\n%s", err, stdout.Bytes())
		}
		return stdout.Bytes()
	}

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(ptmx); got <- b }()
	out := run(tty)
	tty.Close()
	shown := string(<-got)
	if !strings.Contains(shown, "starting tsgo") || !strings.Contains(shown, "checking") {
		t.Errorf("terminal stderr = %q, want the gate's progress", shown)
	}
	if bytes.Contains(out, []byte("checking")) || bytes.Contains(out, []byte("\x1b")) {
		t.Errorf("progress leaked into --json output: %s", out)
	}

	var quiet bytes.Buffer
	run(&quiet)
	if quiet.Len() != 0 {
		t.Errorf("stderr to a pipe = %q, want nothing", quiet.String())
	}
}
