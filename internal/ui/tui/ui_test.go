package tui

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/ui"
)

// startUI starts the whole UI on a pipe for keys and a buffer for the
// screen, as the CLI would on a terminal.
func startUI(t *testing.T, ctx context.Context, cancel func()) (*UI, *os.File, *bytes.Buffer) {
	t.Helper()
	keys, typed := keyPipe(t)
	var screen bytes.Buffer
	u := Start(ctx, Options{
		Input: keys, Output: &screen, Cancel: cancel,
		ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(100, 40)},
	})
	t.Cleanup(func() { u.Close() })
	return u, typed, &screen
}

// keyPipe returns the two ends of a pipe for key presses. It is an OS
// pipe, whose buffer takes a key even after the program stopped reading.
func keyPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		r.Close()
	})
	return r, w
}

// pressUntil writes key every few milliseconds until done is closed: a key
// that arrives before the UI can use it is ignored, so this waits on the
// outcome rather than on the screen.
func pressUntil(t *testing.T, w io.Writer, key string, done <-chan struct{}) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-done:
			return
		case <-deadline:
			t.Fatalf("pressing %q did not have its effect in 10s", key)
		case <-time.After(20 * time.Millisecond):
			if _, err := io.WriteString(w, key); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestUIRunsARunAndPrintsTheSummary(t *testing.T) {
	t.Parallel()
	u, typed, screen := startUI(t, context.Background(), nil)
	evs := recordedRun()
	sink := u.Sink()
	for _, e := range evs[:10] {
		sink.Emit(e)
	}
	var d agent.Decision
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		var err error
		if d, err = u.Approver().Approve(context.Background(), planOf(evs), 0); err != nil {
			t.Error(err)
		}
	}()
	pressUntil(t, typed, "y", answered)
	if d.Kind != agent.DecisionYes {
		t.Fatalf("decision = %+v, want yes", d)
	}
	for _, e := range evs[10:] {
		sink.Emit(e)
	}
	left := make(chan struct{})
	go func() {
		defer close(left)
		if err := u.Wait(); err != nil {
			t.Error(err)
		}
	}()
	pressUntil(t, typed, "q", left)
	// The summary is printed after the program has left the alternate
	// screen, so that it stays in the terminal.
	want := ui.SummaryText(evs[len(evs)-1].(event.Done))
	if got := screen.String(); !strings.HasSuffix(got, want) {
		t.Errorf("output does not end with the summary %q; its end: %q", want, got[max(0, len(got)-300):])
	}
}

func TestUIFirstCtrlCCancelsAndLeavesWhenTheRunEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	u, typed, _ := startUI(t, ctx, cancel)
	u.Sink().Emit(recordedRun()[0])
	pressUntil(t, typed, "\x03", ctx.Done()) // Ctrl-C
	// The run sees its context end and finishes; the UI then leaves by
	// itself, with no key.
	u.Sink().Emit(event.Done{Summary: event.Summary{Message: "context canceled"}})
	waited := make(chan error, 1)
	go func() { waited <- u.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the UI did not leave after the interrupted run ended")
	}
}

func TestUISecondCtrlCAborts(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	aborted := make(chan struct{})
	keys, typed := keyPipe(t)
	u := Start(ctx, Options{
		Input: keys, Output: io.Discard, Cancel: cancel, Abort: func() { close(aborted) },
		ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(80, 24)},
	})
	pressUntil(t, typed, "\x03", ctx.Done())
	pressUntil(t, typed, "\x03", aborted)
	if err := u.Close(); err != nil {
		t.Error(err)
	}
}

func TestUICloseBeforeTheRun(t *testing.T) {
	t.Parallel()
	u, _, screen := startUI(t, context.Background(), nil)
	done := make(chan error, 1)
	go func() { done <- u.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	if strings.Contains(screen.String(), "Done:") {
		t.Error("a summary was printed for a run that never ran")
	}
}
