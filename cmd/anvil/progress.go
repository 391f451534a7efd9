package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/anvil-dev/anvil/internal/service"
)

// statusLine shows the gate's progress on a terminal: one line on stderr,
// rewritten in place, and cleared when the command has its answer. Off a
// terminal it shows nothing, so that pipes and --json output never carry
// it; notices (a wait for another run's lock) are printed either way.
type statusLine struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	shown    bool
}

func newStatusLine(stderr io.Writer) *statusLine {
	return &statusLine{w: stderr, terminal: streamIsTerminal(stderr)}
}

// show is the daemon's progress callback for s.
func (s *statusLine) show(p service.Progress) {
	if p.Notice {
		s.clear()
		s.mu.Lock()
		fmt.Fprintf(s.w, "anvil: %s\n", p.Message)
		s.mu.Unlock()
		return
	}
	s.set(p.Message)
}

// set shows text, replacing what was shown.
func (s *statusLine) set(text string) {
	if !s.terminal {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "\r\x1b[K%s", text)
	s.shown = true
}

// clear removes the line.
func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}
