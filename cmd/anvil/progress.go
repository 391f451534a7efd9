package main

import (
	"fmt"
	"io"
	"sync"
)

// statusLine shows the gate's progress on a terminal: one line on stderr,
// rewritten in place, and cleared when the command has its answer. It is
// nil (nothing shown) when stderr is not a terminal, so that pipes and
// --json output never carry it.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

func newStatusLine(stderr io.Writer) *statusLine {
	if !streamIsTerminal(stderr) {
		return nil
	}
	return &statusLine{w: stderr}
}

// set shows text, replacing what was shown.
func (s *statusLine) set(text string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "\r\x1b[K%s", text)
	s.shown = true
}

// clear removes the line.
func (s *statusLine) clear() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}

// progress is the app's Progress callback for s, or nil.
func (s *statusLine) progress() func(string) {
	if s == nil {
		return nil
	}
	return s.set
}
