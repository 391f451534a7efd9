package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/anvil-dev/anvil/internal/servers"
)

// TestTUIDemo runs the built binary's "anvil demo --ask" in a real
// pseudo-terminal and reads the screen as a user would: the plan, the
// approval gate (answered with "y"), the rejected attempt, the commit and
// its diff, then, after "q", the summary left on the normal screen.
//
// The bytes from the pty go through a terminal emulator rather than being
// searched with the escape sequences stripped: Bubble Tea redraws only the
// cells that changed, moving the cursor over the others, so stripped text
// has gaps wherever the old and new screens agreed.
func TestTUIDemo(t *testing.T) {
	t.Parallel()
	// Tall enough that the whole run stays on screen at the end; the
	// emulator costs nothing per row.
	const cols, rows = 120, 200
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "demo", "--ask")
	cmd.Env = append(os.Environ(),
		"HOME="+home,
		"TERM=xterm-256color",
		"NO_COLOR=",
		"ANVIL_TOOLS_DIR="+servers.DefaultToolsDir(os.Getenv),
		"ANVIL_SESSION_DIR="+filepath.Join(home, "sessions"),
		"ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=",
	)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
		tty.Close()
	})
	scr := watchScreen(tty, cols, rows)

	scr.expect(t, "Goal: Rename the User type")
	scr.expect(t, "Approve this plan?")
	write(t, tty, "y")
	scr.expect(t, "✓ plan approved")
	scr.expect(t, "rejected: 1 new error in src/auth.ts")
	scr.expect(t, "→ committed")
	scr.expect(t, "● committed src/auth.ts, src/db.ts, src/types.ts")
	scr.expect(t, `+import { Account } from "./types";`)
	scr.expect(t, "Done: Committed 3 files")
	scr.expect(t, "q quit")
	// A run left at its last screen keeps no server: they stop when the
	// run ends, not when the user leaves.
	for deadline := time.Now().Add(10 * time.Second); len(descendants(cmd.Process.Pid)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("servers still running at the final screen: %v", descendants(cmd.Process.Pid))
		}
	}
	write(t, tty, "q")

	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("anvil demo --ask: %v; screen:\n%s", waitErr, scr.final(t))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("anvil did not exit after q")
	}
	// Left on the normal screen once the alternate one is gone.
	final := scr.final(t)
	// The example project goes with the run: no undo is offered there.
	if strings.Contains(final, "undo with") {
		t.Errorf("an undo is offered for a directory that is removed:\n%s", final)
	}
	for _, want := range []string{"Done: Committed 3 files", "'anvil demo --keep' keeps it"} {
		if !strings.Contains(final, want) {
			t.Errorf("the terminal after exit lacks %q:\n%s", want, final)
		}
	}
}

// startDemo runs 'anvil demo --ask' in a terminal and returns its screen,
// the terminal and a channel closed when it exits.
func startDemo(t *testing.T, cols, rows uint16) (*screen, *os.File, *exec.Cmd, chan struct{}) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "demo", "--ask")
	cmd.Env = append(os.Environ(), "HOME="+home, "TERM=xterm-256color", "NO_COLOR=",
		"ANVIL_TOOLS_DIR="+servers.DefaultToolsDir(os.Getenv), "ANVIL_SESSION_DIR="+filepath.Join(home, "sessions"),
		"ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
		tty.Close()
	})
	return watchScreen(tty, int(cols), int(rows)), tty, cmd, exited
}

// The demo answers all three of the gate's answers: r with feedback plays
// the script's revision (said plainly) and asks again; a second r says
// revising needs a model; y then runs it.
func TestDemoRevise(t *testing.T) {
	t.Parallel()
	scr, tty, cmd, exited := startDemo(t, 120, 200)
	scr.expect(t, "Approve this plan?")
	write(t, tty, "r")
	write(t, tty, "also rename the comments")
	write(t, tty, "\r")
	scr.expect(t, "Scripted revision")
	scr.expect(t, "No comment or string still names the User type")
	write(t, tty, "r")
	write(t, tty, "more\r")
	scr.expect(t, "revising needs a model")
	write(t, tty, "y")
	scr.expect(t, "Done: Committed 3 files")
	scr.expect(t, "q quit")
	write(t, tty, "q")
	select {
	case <-exited:
		if !cmd.ProcessState.Success() {
			t.Fatalf("exit: %v\n%s", cmd.ProcessState, scr.final(t))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("anvil did not exit after q")
	}
}

// n at the gate declines cleanly: nothing written, said so.
func TestDemoDecline(t *testing.T) {
	t.Parallel()
	scr, tty, cmd, exited := startDemo(t, 120, 200)
	scr.expect(t, "Approve this plan?")
	write(t, tty, "n")
	scr.expect(t, "q quit")
	write(t, tty, "q")
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("anvil did not exit after q")
	}
	final := scr.final(t)
	if !strings.Contains(final, "Declined: the plan was not approved, and nothing was written.") || strings.Contains(final, "error") {
		t.Errorf("after n:\n%s", final)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitStopped {
		t.Errorf("exit code %d, want %d", code, exitStopped)
	}
}

func TestUseTUI(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tests := []struct {
		name string
		out  io.Writer
		term string
		want bool
	}{
		{"terminal", tty, "xterm-256color", true},
		{"dumb terminal", tty, "dumb", false},
		{"no TERM", tty, "", false},
		{"file", file, "xterm-256color", false},
		{"not a file", io.Discard, "xterm-256color", false},
	}
	for _, tt := range tests {
		getenv := func(k string) string {
			if k == "TERM" {
				return tt.term
			}
			return ""
		}
		if got := useTUI(tt.out, getenv); got != tt.want {
			t.Errorf("%s: useTUI = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
}

// screen feeds what the program draws into a terminal emulator and keeps
// every state the screen went through, so that a line that showed up and
// scrolled away between two looks still counts as seen.
type screen struct {
	mu      sync.Mutex
	emu     *vt.Emulator
	last    string
	seen    strings.Builder
	ended   bool
	changed chan struct{}
}

func watchScreen(tty *os.File, cols, rows int) *screen {
	s := &screen{emu: vt.NewEmulator(cols, rows), changed: make(chan struct{}, 1)}
	// The emulator answers the program's terminal queries (colours,
	// modes) as a real terminal would; the answers go back as input.
	go func() { _, _ = io.Copy(tty, s.emu) }()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			if n > 0 {
				_, _ = s.emu.Write(buf[:n])
				if cur := s.emu.String(); cur != s.last {
					s.last = cur
					s.seen.WriteString(cur)
					s.seen.WriteString("\n\f\n")
				}
			}
			s.ended = err != nil
			s.mu.Unlock()
			select {
			case s.changed <- struct{}{}:
			default:
			}
			if err != nil {
				_ = s.emu.Close()
				return
			}
		}
	}()
	return s
}

// expect waits until want has been on screen.
func (s *screen) expect(t *testing.T, want string) {
	t.Helper()
	// The first plan needs the language server started; a loaded machine
	// can take a while.
	deadline := time.After(90 * time.Second)
	for {
		s.mu.Lock()
		seen, ended, last := strings.Contains(s.seen.String(), want), s.ended, s.last
		s.mu.Unlock()
		switch {
		case seen:
			return
		case ended:
			t.Fatalf("the program ended without showing %q; last screen:\n%s", want, last)
		}
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatalf("%q not on screen after 90s; last screen:\n%s", want, last)
		}
	}
}

// final waits for the output to end and returns the last screen.
func (s *screen) final(t *testing.T) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		ended, last := s.ended, s.last
		s.mu.Unlock()
		if ended {
			return last
		}
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatal(errors.New("the pty output did not end after the program exited"))
		}
	}
}
