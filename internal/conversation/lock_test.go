package conversation

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// holdEnv makes the test binary a process holding a session: it opens
// the latest session of the workspace in $ANVIL_TEST_HOLD_WS (state in
// $ANVIL_TEST_HOLD_STATE), begins a request, says "ready" and waits for
// its stdin to close or for a kill.
const holdEnv = "ANVIL_TEST_HOLD_WS"

func TestMain(m *testing.M) {
	if ws := os.Getenv(holdEnv); ws != "" {
		os.Exit(holdSession(ws, os.Getenv("ANVIL_TEST_HOLD_STATE")))
	}
	os.Exit(m.Run())
}

func holdSession(ws, stateDir string) int {
	root, err := workspace.New(ws)
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	store, err := Open(stateDir, root, nil)
	if err == nil {
		var sess *Session
		if sess, err = store.Latest(); err == nil {
			defer sess.Close()
			if _, err = sess.Begin("second, in the other process"); err == nil {
				os.Stdout.WriteString("ready\n")
				_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
				return 0
			}
		}
	}
	os.Stderr.WriteString(err.Error())
	return 1
}

// One process writes a session at a time: a TUI holding it, a --continue
// from another shell is refused with the holder named (its pid, its
// command, since when) and the options; while the holder runs a request,
// a reader sees it as running, never as interrupted; once the holder is
// killed, the request reads as interrupted and the session can be
// continued.
func TestOneWriterPerSession(t *testing.T) {
	stateDir := t.TempDir()
	ws := testfs.Tree(t, map[string]string{"a.ts": "x\n"})
	store, err := Open(stateDir, rootAt(t, ws), nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.New("p", "m")
	if err != nil {
		t.Fatal(err)
	}
	addRequest(t, sess, 1, "first", "+a\n")

	// In one process too: a second open of a session open for appending.
	if _, err := store.Resume(sess.ID); !isBusy(err, os.Getpid()) {
		t.Fatalf("a second writer in this process: %v", err)
	}
	sess.Close()

	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), holdEnv+"="+ws, "ANVIL_TEST_HOLD_STATE="+stateDir)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	holder.Stderr = &stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		holder.Process.Kill()
		holder.Wait()
	}()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		holder.Wait()
		t.Fatalf("the holder did not start: %q %s", line, stderr.String())
	}

	_, err = store.Latest()
	if !isBusy(err, holder.Process.Pid) {
		t.Fatalf("--continue while another process holds the session: %v", err)
	}
	for _, want := range []string{"open in another process", filepath.Base(os.Args[0]), "since ", "start a new session", "wait for it to end"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q: %v", want, err)
		}
	}
	// A reader sees the running request as running.
	look, err := store.Look("")
	if err != nil {
		t.Fatal(err)
	}
	if h := look.History(0); !strings.Contains(h, "Request 2: second, in the other process\nOutcome: running") {
		t.Errorf("the running request as a reader tells it:\n%s", h)
	}
	if n, _, ok := look.Interrupted(); ok {
		t.Errorf("the running request %d reads as interrupted", n)
	}
	if err := look.Append(Record{Kind: KindTodo, N: 2}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("a reader appended: %v", err)
	}
	look.Close()
	if list, err := store.List(); err != nil || len(list) != 1 || list[0].OpenBy == nil || list[0].OpenBy.PID != holder.Process.Pid || list[0].Interrupted {
		t.Errorf("list while held: %+v %v", list, err)
	}

	// Killed: the request was interrupted, and the session is free.
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	again, err := store.Latest()
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	defer again.Close()
	if n, _, ok := again.Interrupted(); !ok || n != 2 {
		t.Errorf("after the kill: interrupted %d %v, want request 2", n, ok)
	}
	if n, err := again.Begin("third"); n != 3 || err != nil {
		t.Errorf("the next request: %d %v", n, err)
	}
	again.Recorder(3, event.Discard{}).Emit(event.Done{Success: true})
	if h := again.History(0); !strings.Contains(h, "Request 2: second, in the other process\nOutcome: interrupted") {
		t.Errorf("history after the kill:\n%s", h)
	}
}

func isBusy(err error, pid int) bool {
	var busy *BusyError
	return errors.As(err, &busy) && busy.Holder.PID == pid && !busy.Holder.Since.IsZero()
}
