package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// killGraceRun is the bound this test holds a killed check to: the
// sandbox kills its command within 2 s of losing its owner (killGrace),
// and the daemon cancels a departed client's request at once.
const killGraceRun = 5 * time.Second

// A kill -9 of 'anvil check --run' ends the project's test it started,
// in this process (--no-daemon) or in the daemon, within the stated
// bound, with TMPDIR outside /tmp.
func TestKilledCheckRunLeavesNoTest(t *testing.T) {
	for _, daemon := range []bool{false, true} {
		t.Run(fmt.Sprintf("daemon=%v", daemon), func(t *testing.T) {
			e := newHookEnv(t)
			marker := fmt.Sprintf("%d", 900+time.Now().Nanosecond()%99)
			testfs.Write(t, e.ws, map[string]string{".anvil/config.toml": "[run]\ntest = \"sh -c 'sleep " + marker + "'\"\n"})
			tmp, err := os.MkdirTemp("/var/tmp", "anvil-killrun-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(tmp) })
			vars := append(e.vars, "TMPDIR="+tmp)
			trust := exec.Command(filepath.Join(binDir, "anvil"), "trust", e.ws)
			trust.Env = vars
			if out, err := trust.CombinedOutput(); err != nil {
				t.Fatalf("anvil trust: %v\n%s", err, out)
			}
			change := filepath.Join(tmp, "change.json")
			os.WriteFile(change, []byte(`{"changes": [{"path": "src/a.ts", "content": "export const one: number = 1;\n// edited\n"}]}`), 0o644)
			args := []string{"check", "--run", "-C", e.ws, change}
			if !daemon {
				args = append(args, "--no-daemon")
			}
			cmd := exec.Command(filepath.Join(binDir, "anvil"), args...)
			cmd.Env = vars
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			running := func() int { return len(processesNamed("sleep " + marker)) }
			deadline := time.Now().Add(2 * time.Minute)
			for running() == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the project's test never started")
				}
				time.Sleep(100 * time.Millisecond)
			}
			cmd.Process.Kill()
			cmd.Wait()
			killed := time.Now()
			for running() > 0 {
				if time.Since(killed) > killGraceRun {
					t.Fatalf("the project's test outlived the killed check by %s: %v", killGraceRun, processesNamed("sleep "+marker))
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// processesNamed lists the processes whose command line contains s.
func processesNamed(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), s) && !strings.Contains(string(cmdline), "sh\x00-c") {
			out = append(out, e.Name())
		}
	}
	return out
}
