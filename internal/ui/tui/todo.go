package tui

import (
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/ui"
)

// todoList is the plan's steps and their state, pinned above the status
// bar while the Executor works through them.
type todoList struct {
	st    *styles
	items []event.TodoItem
}

// Set replaces the list with the latest state.
func (t *todoList) Set(items []event.TodoItem) { t.items = items }

// Render draws the list in at most maxLines lines: a header with the
// progress, then the steps. When they do not all fit, the window keeps the
// step in progress in view.
func (t *todoList) Render(width, maxLines int) string {
	if len(t.items) == 0 || maxLines < 2 {
		return ""
	}
	st := t.st
	done, current := 0, -1
	for i, it := range t.items {
		switch it.Status {
		case "done":
			done++
		case "in_progress":
			if current < 0 {
				current = i
			}
		}
	}
	if current < 0 {
		current = min(done, len(t.items)-1)
	}
	const barWidth = 20
	filled := barWidth * done / len(t.items)
	header := fmt.Sprintf("todo %d/%d ", done, len(t.items))
	lines := []string{clip(st.Title.Render(header)+st.OK.Render(strings.Repeat("━", filled))+st.Faint.Render(strings.Repeat("━", barWidth-filled)), width)}

	rows := maxLines - 1
	start := 0
	if len(t.items) > rows {
		start = min(max(current-rows/2, 0), len(t.items)-rows)
	}
	for i := start; i < len(t.items) && i < start+rows; i++ {
		it := t.items[i]
		text := fmt.Sprintf("%d. %s", i+1, it.Text)
		if it.Note != "" {
			text += " — " + it.Note
		}
		text = ui.OneLine(clean(text), 1000)
		switch it.Status {
		case "done":
			lines = append(lines, st.TodoDone.Render(clip("  ✓ "+text, width)))
		case "in_progress":
			lines = append(lines, st.TodoNow.Render(clip("  ▸ "+text, width)))
		default:
			lines = append(lines, st.TodoPending.Render(clip("  ○ "+text, width)))
		}
	}
	return strings.Join(lines, "\n")
}
