package tui

import (
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/event"
)

// planBlock is a plan submitted for approval, framed, with all seven
// fields in the order the plain renderer prints them; empty lists say
// "(none)" so that the user sees the Planner meant nothing, rather than
// wondering whether a field was lost.
type planBlock struct{ ev event.Plan }

func (b *planBlock) render(width int, st *styles, _ string) string {
	p := b.ev.Plan
	if p == nil {
		return ""
	}
	inner := max(width-st.PlanBox.GetHorizontalFrameSize(), 10)
	title := "Plan"
	if b.ev.Revision > 0 {
		title = fmt.Sprintf("Plan (revision %d)", b.ev.Revision)
	}
	lines := []string{st.PlanTitle.Render(title), ""}
	field := func(label, text string) {
		lines = append(lines, hang(st.PlanLabel.Render(label+":")+" ", clean(text), inner))
	}
	if b.ev.Reason != "" {
		field("Widened", b.ev.Reason)
		for _, w := range b.ev.Widened {
			lines = append(lines, hang("  + ", clean(w.Path+": "+w.Why), inner))
		}
		lines = append(lines, "")
	}
	list := func(label string, items []string, numbered bool) {
		lines = append(lines, "", st.PlanLabel.Render(label+":"))
		if len(items) == 0 {
			lines = append(lines, st.Faint.Render("  (none)"))
		}
		for i, it := range items {
			bullet := "  - "
			if numbered {
				bullet = fmt.Sprintf("  %d. ", i+1)
			}
			lines = append(lines, hang(bullet, clean(it), inner))
		}
	}
	field("Goal", p.Goal)
	lines = append(lines, "")
	field("Context", p.Context)
	list("Files to modify", p.FilesToModify, false)
	list("Files to create", p.FilesToCreate, false)
	list("Steps", p.Steps, true)
	list("Verification criteria", p.VerificationCriteria, false)
	list("Risks", p.Risks, false)
	return "\n" + st.PlanBox.Width(max(width, inner+st.PlanBox.GetHorizontalFrameSize())).Render(strings.Join(lines, "\n"))
}
