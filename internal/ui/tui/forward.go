package tui

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/anvil-dev/anvil/internal/event"
)

// forwarder hands messages from the run's goroutines to the program, in
// the order they were pushed, from one goroutine it owns. push never
// waits for the program: the queue is unbounded, which is safe because a
// run emits a few hundred small events, and consecutive text deltas of an
// agent are merged before sending, so a fast stream costs one Update per
// batch rather than one per token.
type forwarder struct {
	send func(tea.Msg)

	mu     sync.Mutex
	queue  []tea.Msg
	closed bool

	wake chan struct{} // has room for one pending wake-up
	quit chan struct{}
	done chan struct{}
}

// newForwarder starts the goroutine that calls send; close stops it.
func newForwarder(send func(tea.Msg)) *forwarder {
	f := &forwarder{send: send, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go f.run()
	return f
}

// push queues msg; after close it is dropped.
func (f *forwarder) push(msg tea.Msg) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.queue = append(f.queue, msg)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// close stops the goroutine and waits for it; what is still queued is
// dropped. The program's Send returns once the program has ended, so
// close does not hang on a program that is gone.
func (f *forwarder) close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		<-f.done
		return
	}
	f.closed = true
	f.mu.Unlock()
	close(f.quit)
	<-f.done
}

func (f *forwarder) run() {
	defer close(f.done)
	for {
		select {
		case <-f.quit:
			return
		case <-f.wake:
		}
		f.mu.Lock()
		batch := f.queue
		f.queue = nil
		f.mu.Unlock()
		for _, msg := range mergeDeltas(batch) {
			select {
			case <-f.quit:
				return
			default:
			}
			f.send(msg)
		}
	}
}

// mergeDeltas joins runs of text deltas from the same agent into one.
func mergeDeltas(batch []tea.Msg) []tea.Msg {
	out := batch[:0]
	for _, msg := range batch {
		if d, ok := deltaOf(msg); ok && len(out) > 0 {
			if prev, ok := deltaOf(out[len(out)-1]); ok && prev.Agent == d.Agent {
				prev.Text += d.Text
				out[len(out)-1] = eventMsg{ev: prev}
				continue
			}
		}
		out = append(out, msg)
	}
	return out
}

func deltaOf(msg tea.Msg) (event.MessageDelta, bool) {
	em, ok := msg.(eventMsg)
	if !ok {
		return event.MessageDelta{}, false
	}
	d, ok := em.ev.(event.MessageDelta)
	return d, ok
}
