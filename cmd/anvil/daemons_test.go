package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopDaemonsUnder ends every daemon listening on a socket below dir,
// whatever environment started it: a client (Gemini CLI with its own
// Node first on PATH) runs Anvil's hooks with an environment of its own,
// whose daemon `anvil serve stop` from the test's environment does not
// find. SIGTERM first (the daemon stops its servers), SIGKILL after 10 s.
func stopDaemonsUnder(t *testing.T, dir string) {
	t.Helper()
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if args := strings.Split(string(cmdline), "\x00"); len(args) > 3 && args[1] == "serve" && args[2] == "--socket" && strings.HasPrefix(args[3], dir+"/") {
			pids = append(pids, pid)
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			if state, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); err == nil && strings.Contains(string(state), ") Z ") {
				break // exited, its parent (the test binary's reaper or init) not yet told
			}
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
