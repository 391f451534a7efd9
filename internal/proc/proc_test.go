package proc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as an owner process for the tests that kill an
// owner: with PROC_TEST_OWNER set it starts that shell command through
// Start, prints the child's pid and waits to be killed.
func TestMain(m *testing.M) {
	Main(os.Getenv)
	if script := os.Getenv("PROC_TEST_OWNER"); script != "" {
		p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", script}, groupOnly: os.Getenv("PROC_TEST_GROUP") != ""})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(p.PID())
		<-p.Exited()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// marker returns a sleep duration no other process uses, to find the
// processes a test started by their command line.
func marker(t *testing.T) string {
	return fmt.Sprintf("%d.%d", 900+os.Getpid()%100, time.Now().UnixNano()%1000000)
}

// running returns the pids of processes whose command line is "sleep arg".
func running(arg string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && string(cmd) == "sleep\x00"+arg+"\x00" {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !bytes.Contains(st, []byte(") Z ")) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// awaitGone fails unless no "sleep arg" process is left within bound.
func awaitGone(t *testing.T, arg string, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		left := running(arg)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes %v (sleep %s) still running %s later", left, arg, bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func awaitRunning(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(running(arg)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s never started", arg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStartsInAPIDNamespace(t *testing.T) {
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "echo $$"}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p.Stdout())
	<-p.Exited()
	// Inside a PID namespace the shell is process 1. The machines Anvil is
	// tested on allow namespaces, so the fallback must not be taken here.
	if p.Isolation() != PIDNamespace || strings.TrimSpace(string(out)) != "1" {
		t.Fatalf("isolation %s, pid inside %q; want a PID namespace with the shell as 1", p.Isolation(), out)
	}
}

// A background process, and what it starts, runs at a low priority, a
// contained one too (its helper sets it); a foreground one at Anvil's.
func TestBackgroundRunsAtALowPriority(t *testing.T) {
	for _, tc := range []struct {
		background, contained bool
		nice                  string
	}{{false, false, "0"}, {true, false, "10"}, {false, true, "0"}, {true, true, "10"}} {
		spec := Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 0.2; cut -d' ' -f19 /proc/self/stat"}, Background: tc.background}
		if tc.contained {
			spec.Contain = &Containment{Helper: os.Args[0], Hidden: []string{t.TempDir()}}
		}
		p, err := Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(p.Stdout())
		<-p.Exited()
		if got := strings.TrimSpace(string(out)); got != tc.nice {
			t.Errorf("background %v, contained %v: a child's nice %q, want %s", tc.background, tc.contained, got, tc.nice)
		}
	}
}

// Killing a process kills what it started, also a descendant that left
// its process group; with only a process group, such a descendant
// survives but no longer holds anything of Anvil's up.
func TestKillTakesDetachedDescendants(t *testing.T) {
	for _, groupOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("groupOnly=%v", groupOnly), func(t *testing.T) {
			detached, leader := marker(t), marker(t)+"1"
			p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "setsid sleep " + detached + " & exec sleep " + leader}, groupOnly: groupOnly})
			if err != nil {
				t.Fatal(err)
			}
			awaitRunning(t, detached)
			awaitRunning(t, leader)
			read := make(chan error, 1)
			go func() { _, err := io.Copy(io.Discard, p.Stdout()); read <- err }()
			start := time.Now()
			p.Kill()
			if d := time.Since(start); d > WaitDelay+time.Second {
				t.Errorf("Kill took %s", d)
			}
			select {
			case <-read:
			case <-time.After(drainDelay + time.Second):
				t.Fatal("the stdout reader did not end after the process was killed")
			}
			awaitGone(t, leader, 2*time.Second)
			if groupOnly {
				for _, pid := range running(detached) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				return
			}
			awaitGone(t, detached, 2*time.Second)
		})
	}
}

// A process that exits while a detached child still holds its stdout
// must not keep its reader waiting.
func TestExitedProcessReleasesItsReader(t *testing.T) {
	detached := marker(t)
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "setsid sleep " + detached + " & echo bye"}, groupOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, pid := range running(detached) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	done := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
		io.Copy(io.Discard, p.Stdout())
		done <- line
	}()
	select {
	case line := <-done:
		if line != "bye\n" {
			t.Fatalf("read %q before the end, want the process's output", line)
		}
	case <-time.After(WaitDelay + drainDelay + 2*time.Second):
		t.Fatal("reader still blocked after the process exited")
	}
}

// A write to a process that stopped reading gives up when aborted.
func TestAbortWritesUnblocksAndKills(t *testing.T) {
	leader := marker(t)
	p, err := Start(Spec{Path: "sleep", Args: []string{leader}})
	if err != nil {
		t.Fatal(err)
	}
	awaitRunning(t, leader)
	wrote := make(chan error, 1)
	go func() {
		_, err := p.Stdin().Write(make([]byte, 4<<20)) // far more than a pipe holds
		wrote <- err
	}()
	select {
	case err := <-wrote:
		t.Fatalf("write of 4 MiB to a process that never reads returned %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	p.AbortWrites()
	select {
	case err := <-wrote:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("aborted write: %v, want a deadline error", err)
		}
	case <-time.After(time.Second):
		t.Fatal("write still blocked after AbortWrites")
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, leader, 2*time.Second)
}

// Stop lets a process that exits by itself go, and kills one that does
// not once the grace period is over.
func TestStopBounded(t *testing.T) {
	p, err := Start(Spec{Path: "sleep", Args: []string{marker(t)}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p.Stop(context.Background(), 100*time.Millisecond)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Stop with 100ms grace took %s", d)
	}
	if p.Alive() {
		t.Fatal("alive after Stop")
	}
}

// When the owner dies without a word (kill -9), its processes die too,
// and in a PID namespace so do their detached descendants.
func TestOwnerDeathKillsProcesses(t *testing.T) {
	for _, groupOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("groupOnly=%v", groupOnly), func(t *testing.T) {
			detached, leader := marker(t), marker(t)+"2"
			owner := exec.Command(os.Args[0], "-test.run=^$")
			owner.Env = append(os.Environ(), "PROC_TEST_OWNER=setsid sleep "+detached+" & exec sleep "+leader)
			if groupOnly {
				owner.Env = append(owner.Env, "PROC_TEST_GROUP=1")
			}
			out, err := owner.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := owner.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if _, err := strconv.Atoi(strings.TrimSpace(line)); err != nil {
				t.Fatalf("owner said %q", line)
			}
			awaitRunning(t, leader)
			awaitRunning(t, detached)
			owner.Process.Kill()
			owner.Wait()
			awaitGone(t, leader, 2*time.Second)
			if groupOnly {
				for _, pid := range running(detached) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				return
			}
			awaitGone(t, detached, 2*time.Second)
		})
	}
}
