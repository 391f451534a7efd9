// Package tui is Anvil's terminal UI: a Bubble Tea program that draws a
// run's event stream (tool calls, shadow validation cycles, the plan, the
// diffs of commits, the todo list, streaming text, a status bar) and asks
// for approval of plans. It is one front end over the same events and
// [agent.Approver] contract as the plain and NDJSON renderers of package
// ui, which the CLI uses when stdout is not a terminal.
//
// Events flow one way: the run's goroutines emit into [UI.Sink], which
// queues them for a goroutine the UI owns that passes them to the
// program; the program acts on the run only through the cancel func it is
// given (Ctrl-C) and the approval replies.
//
// The program uses the alternate screen, so that a long run does not push
// the user's scrollback away and the transcript can be scrolled in place.
// What would be lost on leaving it, the outcome, is printed on the normal
// screen afterwards: once the program ends, the summary is printed there,
// worded as the plain renderer words it, before [UI.Wait] returns.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/ui"
)

// Options configure [Start].
type Options struct {
	// Input is where keys come from. Nil means the process's stdin, or
	// the controlling terminal when stdin is redirected.
	Input io.Reader
	// Output is the terminal the TUI draws on, and where the summary is
	// printed after it. Nil means os.Stdout.
	Output io.Writer
	// Cancel stops the run. The first Ctrl-C calls it; the screen stays,
	// showing "stopping…", until the run has ended.
	Cancel func()
	// Abort is called after a second Ctrl-C, once the terminal has been
	// restored; the CLI exits there. Without it the UI just goes away and
	// the run goes on stopping unseen.
	Abort func()
	// NoColor drops colours (NO_COLOR) but keeps bold, faint and reverse.
	NoColor bool
	// Now is the clock of the elapsed time; nil means time.Now.
	Now func() time.Time
	// ProgramOptions are added last, for tests (a fixed window size, say).
	ProgramOptions []tea.ProgramOption
	// Interactive makes the screen a session: an input box for requests
	// ([UI.Prompt]), each run drawn in turn ([UI.Begin], [UI.Finished]).
	Interactive bool
}

// UI is a running TUI. Its methods are safe to call from any goroutine.
type UI struct {
	prog  *tea.Program
	fwd   *forwarder
	out   io.Writer
	abort func()

	done chan struct{} // closed when the program has ended and the summary is out
	err  error         // the program's error, set before done closes
	// lines carries what the user sends in a session.
	lines chan string
}

// Start runs the TUI in its own goroutine until the user leaves it after
// the run (see [UI.Wait]) or [UI.Close] is called. ctx is the run's
// context: when it ends for any reason, such as a signal, the screen
// shows that the run is stopping.
func Start(ctx context.Context, opts Options) *UI {
	out := opts.Output
	if out == nil {
		out = os.Stdout
	}
	popts := []tea.ProgramOption{
		tea.WithOutput(out),
		// Ctrl-C arrives as a key in raw mode; signals from elsewhere
		// (kill -INT, SIGTERM) are the CLI's to handle, and they end ctx.
		tea.WithoutSignalHandler(),
	}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	popts = append(popts, opts.ProgramOptions...)
	u := &UI{out: out, abort: opts.Abort, done: make(chan struct{}), lines: make(chan string, 1)}
	u.prog = tea.NewProgram(newModel(opts, u.lines), popts...)
	u.fwd = newForwarder(u.prog.Send)
	go u.run()
	go u.watch(ctx)
	return u
}

// run owns the program: it runs it, then prints what must outlive the
// alternate screen.
func (u *UI) run() {
	final, err := u.prog.Run()
	u.fwd.close()
	m, _ := final.(*model)
	switch {
	case m != nil && m.aborted:
		if u.abort != nil {
			close(u.done)
			u.abort()
			return
		}
	case m != nil && m.done != nil && !m.interactive:
		fmt.Fprint(u.out, ui.SummaryText(*m.done))
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		u.err = fmt.Errorf("tui: %w", err)
	}
	close(u.done)
}

// watch tells the program when the run's context ends.
func (u *UI) watch(ctx context.Context) {
	select {
	case <-ctx.Done():
		u.fwd.push(stoppingMsg{})
	case <-u.done:
	}
}

// Sink returns the sink the run emits into. Emit only queues the event.
func (u *UI) Sink() event.Sink {
	return event.SinkFunc(func(e event.Event) { u.fwd.push(eventMsg{ev: e}) })
}

// Approver returns the approval gate, for the orchestrator.
func (u *UI) Approver() agent.Approver { return &approver{fwd: u.fwd, gone: u.done} }

// Wait tells the UI that the run has returned, then blocks until the user
// leaves (q, Enter or Esc; after Ctrl-C the UI leaves by itself) and the
// summary has been printed on the normal screen.
func (u *UI) Wait() error {
	u.fwd.push(runOverMsg{})
	<-u.done
	return u.err
}

// Close leaves the TUI at once, without waiting for the user, for a run
// that ends before it starts. It is a no-op after Wait.
func (u *UI) Close() error {
	select {
	case <-u.done:
	default:
		u.prog.Quit()
		<-u.done
	}
	return u.err
}
