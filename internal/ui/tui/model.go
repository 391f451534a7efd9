package tui

import (
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/anvil-dev/anvil/internal/event"
)

// Messages that reach the model from outside the program's input.
type (
	// eventMsg carries one event of the run.
	eventMsg struct{ ev event.Event }
	// stoppingMsg says the run's context has ended: it is stopping.
	stoppingMsg struct{}
	// runOverMsg says the run has returned, whether or not a Done event
	// came before.
	runOverMsg struct{}
)

// model is the one Bubble Tea model of the TUI. It routes messages to its
// components, which are plain structs drawn with Render(width); Update does
// no I/O: cancelling the run and answering the gate happen in commands.
type model struct {
	st     *styles
	cancel func()
	now    func() time.Time

	width, height int

	vp     viewport.Model
	follow bool // keep the bottom in view as the transcript grows
	// showPlan asks the next layout to bring the plan's top into view, for
	// the gate.
	showPlan bool
	spin     spinner.Model
	clock    time.Time // the latest tick, or the run's end, for the status bar

	tr       transcript
	todo     todoList
	status   statusBar
	gate     gate
	todoView string // renders of the pinned parts, made by layout
	gateView string

	done     *event.Done // the run's outcome, from its Done event
	over     bool        // the run has ended: nothing more will come
	stopping bool        // Ctrl-C was pressed, or the run's context ended
	aborted  bool        // Ctrl-C twice: leave at once

	// A session (Options.Interactive): requests come from the prompt, one
	// at a time; working while one runs.
	interactive bool
	working     bool
	prompt      prompt
}

func newModel(opts Options, lines chan<- string) *model {
	d := defaultStyles()
	st := &d
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	vp := viewport.New()
	// Lines are cut to the width already; sideways scrolling would only
	// hide the left edge.
	vp.KeyMap.Left = key.NewBinding(key.WithDisabled())
	vp.KeyMap.Right = key.NewBinding(key.WithDisabled())
	start := now()
	return &model{
		st:     st,
		cancel: opts.Cancel,
		now:    now,
		vp:     vp,
		follow: true,
		spin:   spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		clock:  start,
		tr:     newTranscript(st),
		todo:   todoList{st: st},
		status: statusBar{st: st, start: start},
		gate:   newGate(st),

		interactive: opts.Interactive,
		prompt:      newPrompt(lines),
	}
}

// Init starts the spinner, which also drives the elapsed time.
func (m *model) Init() tea.Cmd { return m.spin.Tick }
