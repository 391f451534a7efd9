package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/anvil-dev/anvil/internal/event"
)

// statusBar is the bottom line: model · phase · elapsed · tokens · cost,
// and on the right the keys that matter now.
type statusBar struct {
	st       *styles
	model    string
	phase    string
	start    time.Time
	usage    event.Usage
	hasUsage bool
	stopping bool // the run is stopping and has not ended yet
}

// Render draws the bar across width at time now (the model stops its
// clock when the run ends), with as many of hints
// (most important first) on the right as fit.
func (s *statusBar) Render(width int, now time.Time, hints ...string) string {
	model := s.model
	if model == "" {
		model = "anvil"
	}
	phase := s.phase
	if s.stopping {
		phase = "stopping…"
	}
	parts := []string{model, phase, now.Sub(s.start).Round(time.Second).String()}
	if s.hasUsage {
		t := s.usage.Total
		parts = append(parts, fmt.Sprintf("%s in / %s out tokens", count(t.InputTokens+t.CacheReadTokens+t.CacheWriteTokens), count(t.OutputTokens)))
		if s.usage.CostKnown {
			parts = append(parts, fmt.Sprintf("$%.4f", s.usage.Cost))
		} else {
			parts = append(parts, "cost n/a")
		}
	}
	left := " " + strings.Join(nonEmpty(parts), " · ") + " "
	right := ""
	for n := len(hints); n > 0; n-- {
		right = " " + strings.Join(hints[:n], " · ") + " "
		if lipgloss.Width(left)+lipgloss.Width(right) <= width {
			break
		}
		right = ""
	}
	gap := max(width-lipgloss.Width(left)-lipgloss.Width(right), 0)
	line := clip(left+strings.Repeat(" ", gap)+right, width)
	return s.st.StatusBar.Render(line)
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
