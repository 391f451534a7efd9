package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/demo"
	"github.com/anvil-dev/anvil/internal/servers"
)

// processesIn lists the processes whose working directory is dir: the
// language servers Anvil started there.
func processesIn(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && cwd == dir {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

// startBlocked starts a run that waits at the approval gate, with its
// language server already up (runs start the project's servers while
// planning), and returns it once the gate is asked.
func startBlocked(t *testing.T) (*exec.Cmd, string, io.WriteCloser) {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	if err := demo.Extract(ws); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script.jsonl")
	os.WriteFile(script, demo.Script(), 0o644)
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "--provider", "replay", "--replay", script, "-C", ws, demo.Request)
	cmd.Env = append(os.Environ(), "ANVIL_TOOLS_DIR="+servers.DefaultToolsDir(os.Getenv), "ANVIL_SESSION_DIR="+filepath.Join(dir, "sessions"),
		"ANVIL_STATE_DIR="+filepath.Join(dir, "state"))
	stdin, _ := cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	asked := make(chan struct{})
	go func() {
		r := bufio.NewReader(stderr)
		for {
			line, err := r.ReadString(':')
			if strings.Contains(line, "Approve this plan?") {
				close(asked)
				io.Copy(io.Discard, r)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-asked:
	case <-time.After(60 * time.Second):
		t.Fatal("the run never reached the approval gate")
	}
	real, _ := filepath.EvalSymlinks(ws)
	deadline := time.Now().Add(30 * time.Second)
	for len(processesIn(real)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no language server was started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmd, real, stdin
}

// descendants lists the processes below pid.
func descendants(pid int) []string {
	parent := map[int]int{}
	cmd := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses.
		rest := string(st[strings.LastIndexByte(string(st), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[0] != "Z" {
			parent[p], _ = strconv.Atoi(f[1])
			c, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			cmd[p] = strings.ReplaceAll(string(c), "\x00", " ")
		}
	}
	var out []string
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, strconv.Itoa(p)+" "+cmd[p])
				break
			}
		}
	}
	return out
}

func waitNoneIn(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := processesIn(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("language servers outlived anvil: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// However Anvil ends, no language server outlives it.
func TestNoServerOutlivesAnvil(t *testing.T) {
	t.Run("SIGTERM", func(t *testing.T) {
		cmd, ws, _ := startBlocked(t)
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
			t.Errorf("exit: %v", err)
		}
		waitNoneIn(t, ws)
	})
	t.Run("two SIGINTs", func(t *testing.T) {
		cmd, ws, _ := startBlocked(t)
		cmd.Process.Signal(os.Interrupt)
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		waitNoneIn(t, ws)
	})
	t.Run("SIGHUP", func(t *testing.T) {
		// The terminal the run was started from is closed.
		cmd, ws, _ := startBlocked(t)
		cmd.Process.Signal(syscall.SIGHUP)
		cmd.Wait()
		waitNoneIn(t, ws)
	})
	t.Run("SIGKILL", func(t *testing.T) {
		cmd, ws, _ := startBlocked(t)
		cmd.Process.Kill()
		cmd.Wait()
		waitNoneIn(t, ws)
	})
}
