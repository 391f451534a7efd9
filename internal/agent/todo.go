package agent

import (
	"fmt"
	"sync"

	"github.com/anvil-dev/anvil/internal/event"
)

// Todo is the run's todo list: the plan's steps and their state. Only the
// Orchestrator holds it; the Executor reports progress through
// [Progress], and every change is emitted.
type Todo struct {
	mu     sync.Mutex
	items  []event.TodoItem
	events event.Sink
}

// NewTodo returns a list of steps, all pending; it is emitted when work
// starts ([Todo.Start]).
func NewTodo(steps []string, events event.Sink) *Todo {
	t := &Todo{events: events}
	for _, s := range steps {
		t.items = append(t.items, event.TodoItem{Text: s, Status: "pending"})
	}
	return t
}

// StepDone marks step n (from 1) done and the next pending one in progress.
func (t *Todo) StepDone(n int, note string) error {
	t.mu.Lock()
	if n < 1 || n > len(t.items) {
		t.mu.Unlock()
		return fmt.Errorf("there is no step %d; the plan has steps 1 to %d", n, len(t.items))
	}
	t.items[n-1].Status, t.items[n-1].Note = "done", note
	for i := range t.items {
		if t.items[i].Status == "pending" {
			t.items[i].Status = "in_progress"
			break
		}
	}
	t.mu.Unlock()
	t.emit()
	return nil
}

// Start marks the first pending step in progress.
func (t *Todo) Start() {
	t.mu.Lock()
	for i := range t.items {
		if t.items[i].Status == "pending" {
			t.items[i].Status = "in_progress"
			break
		}
	}
	t.mu.Unlock()
	t.emit()
}

// Items returns a copy of the list.
func (t *Todo) Items() []event.TodoItem {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]event.TodoItem(nil), t.items...)
}

func (t *Todo) emit() { t.events.Emit(event.Todo{Items: t.Items()}) }
