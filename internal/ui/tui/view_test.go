package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/event"
)

// apply feeds events to a model directly, without a program.
func apply(m *model, evs ...event.Event) {
	for _, e := range evs {
		m.Update(eventMsg{ev: e})
	}
}

// typeInto sends one key press per character of s.
func typeInto(m *model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func TestRecordedRun(t *testing.T) {
	t.Parallel()
	// Tall enough for the whole transcript to be on screen at the end.
	h := newHarness(t, Options{}, 120, 200)
	h.emit(recordedRun()...)
	h.keys("q") // the run is over after Done: q leaves
	m := h.final(t)
	if m.aborted || m.stopping {
		t.Errorf("aborted = %v, stopping = %v after a normal run", m.aborted, m.stopping)
	}
	mustContain(t, screenText(m),
		// the plan's seven fields
		"Goal: Rename the User type to Account across the codebase.",
		"Context: interface User is declared in src/types.ts",
		"Files to modify:", "- src/db.ts",
		"Files to create:", "(none)",
		"Steps:", "1. Rename the interface in src/types.ts",
		"Verification criteria:", "- No new type errors in the changed files or their importers",
		"Risks:", "- Function names such as findUser keep their names",
		// tool calls and their results
		"✓ planner · find_symbol name=User", "symbol at src/types.ts:1:18", "… 14 more lines",
		// the rejected staging check and its first diagnostic
		"✗ shadow check · rejected: 1 new error in src/auth.ts",
		`src/auth.ts:2:10: error [2305]: Module '"./types"' has no exported member 'User'.`,
		// the clean commit and its diff
		"✓ shadow 1/3 · clean: no new errors in 5 checked files → committed",
		"● committed src/auth.ts, src/db.ts, src/types.ts (s1/000001)",
		"--- a/src/auth.ts", "@@ -1,7 +1,7 @@", `-import { User } from "./types";`, `+import { Account } from "./types";`,
		// the approval, the todo list, the status bar
		"✓ plan approved", "todo 3/3", "replay · done · 42s · 7.2k in / 638 out tokens · $0.0456", "q quit",
		// the summary
		"Done: Committed 3 files after 1 attempt.", "files changed: src/auth.ts, src/db.ts, src/types.ts", "undo with: anvil undo",
	)
}

func TestEveryLineFitsTheScreen(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{30, 12}, {60, 20}, {100, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := newModel(Options{}, nil)
			m.Update(teaSize(size[0], size[1]))
			evs := recordedRun()
			apply(m, evs[:10]...)
			m.Update(askMsg{plan: planOf(evs), reply: make(chan agent.Decision, 1)})
			check := func(stage string) {
				t.Helper()
				lines := strings.Split(m.View().Content, "\n")
				if len(lines) != size[1] {
					t.Errorf("%s: %d lines, want %d", stage, len(lines), size[1])
				}
				for i, l := range lines {
					if w := lipgloss.Width(l); w > size[0] {
						t.Errorf("%s: line %d is %d cells wide, more than %d: %q", stage, i, w, size[0], l)
					}
				}
			}
			check("at the gate")
			m.Update(keyPress("r"))
			typeInto(m, "a long piece of feedback that is wider than the narrowest screen")
			check("typing feedback")
			m.Update(keyPress("esc"))
			m.Update(keyPress("y"))
			apply(m, evs[10:]...)
			check("after the run")
			m.Update(teaSize(size[0]+7, size[1]+3))
			size[0], size[1] = size[0]+7, size[1]+3
			check("after a resize")
		})
	}
}

func TestFollowsTheBottomUnlessScrolledUp(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 15))
	evs := recordedRun()
	apply(m, evs[:12]...)
	if !m.vp.AtBottom() {
		t.Fatal("not at the bottom while following")
	}
	m.Update(keyPress("pgup"))
	if m.follow || m.vp.AtBottom() {
		t.Fatal("still following after pgup")
	}
	off := m.vp.YOffset()
	apply(m, evs[12:20]...)
	if m.vp.YOffset() != off {
		t.Errorf("the view moved from line %d to %d while the user was reading", off, m.vp.YOffset())
	}
	if !strings.Contains(screenText(m), "end follow") {
		t.Error("the status bar does not say how to follow again")
	}
	m.Update(keyPress("end"))
	apply(m, evs[20:]...)
	if !m.follow || !m.vp.AtBottom() {
		t.Error("end did not resume following")
	}
}

func TestGateBringsPlanTopIntoView(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 20)) // too short for the whole plan
	evs := recordedRun()[:10]
	apply(m, evs...)
	m.Update(askMsg{plan: planOf(evs), reply: make(chan agent.Decision, 1)})
	mustContain(t, screenText(m), "Goal: Rename the User type", "Approve this plan?")
	if n := strings.Count(ansi.Strip(m.tr.view), "Goal: "); n != 1 {
		t.Errorf("the plan is drawn %d times, want once", n)
	}
}

func TestStreamingTextIsReplacedByTheMessage(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 20))
	apply(m, event.MessageDelta{Agent: "planner", Text: "Looking at "}, event.MessageDelta{Agent: "planner", Text: "the code"})
	mustContain(t, screenText(m), "planner  Looking at the code▍")
	apply(m, event.Message{Agent: "planner", Text: "Looking at the code."})
	got := screenText(m)
	mustContain(t, got, "planner  Looking at the code.")
	if strings.Contains(got, "▍") || strings.Count(got, "Looking at") != 1 {
		t.Errorf("streamed text not replaced by the message:\n%s", got)
	}
}

func TestRetryDropsTheBrokenTurn(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 20))
	apply(m,
		event.MessageDelta{Agent: "executor", Text: "Now the half-sent"},
		event.Retry{Agent: "executor"},
		event.MessageDelta{Agent: "executor", Text: "Now db.ts."},
		event.Message{Agent: "executor", Text: "Now db.ts."},
	)
	got := screenText(m)
	mustContain(t, got, "executor: the model's answer broke off; asking again", "executor Now db.ts.")
	if strings.Contains(got, "half-sent") {
		t.Errorf("the broken turn's text is still shown:\n%s", got)
	}
}

func TestToolCallSpinsUntilItsResult(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 20))
	apply(m, event.ToolCall{Agent: "planner", ID: "1", Name: "read_file", Summary: "path=a.ts"})
	if !m.tr.setSpin("*") {
		t.Fatal("a running call does not show the spinner")
	}
	m.layout()
	mustContain(t, screenText(m), "* planner · read_file path=a.ts")
	apply(m, event.ToolResult{Agent: "planner", ID: "1", Name: "read_file", IsError: true, Preview: "no such file"})
	mustContain(t, screenText(m), "✗ planner · read_file path=a.ts", "no such file")
	if m.tr.setSpin("*") {
		t.Error("a finished call still spins")
	}
}

func TestValidationEndsWithItsCall(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 20))
	// The validator failed: no verdict comes, and the call's result says so.
	apply(m,
		event.ToolCall{Agent: "executor", ID: "1", Name: "edit_file", Summary: "path=a.ts"},
		event.Shadow{Files: []string{"a.ts"}, Stage: "validating"},
	)
	if !m.tr.setSpin("*") {
		t.Fatal("a running validation does not show the spinner")
	}
	m.layout()
	mustContain(t, screenText(m), "* shadow check · validating a.ts")
	apply(m, event.ToolResult{Agent: "executor", ID: "1", Name: "edit_file", IsError: true, Preview: "edit_file failed: the language server went away"})
	if m.tr.setSpin("*") {
		t.Error("a validation still spins after its call's result")
	}
	mustContain(t, screenText(m), "· shadow check · validating a.ts (stopped)")
}

func TestTranscriptIsJoinedOnlyWhenItChanged(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 20))
	apply(m, recordedRun()[:8]...)
	if _, changed := m.tr.Render(80); changed {
		t.Error("Render after layout reports a change, with no event in between")
	}
	m.Update(keyPress("pgup"))
	if _, changed := m.tr.Render(80); changed {
		t.Error("a scrolling key changed the transcript")
	}
	if m.tr.setSpin("*") {
		t.Fatal("something spins after the call's result")
	}
	if _, changed := m.tr.Render(80); changed {
		t.Error("a spinner frame with nothing running changed the transcript")
	}
	apply(m, event.ToolCall{Agent: "planner", ID: "2", Name: "read_file", Summary: "path=a.ts"})
	m.tr.setSpin("+")
	if got, changed := m.tr.Render(80); !changed || !strings.Contains(ansi.Strip(got), "+ planner · read_file path=a.ts") {
		t.Errorf("a spinner frame did not redraw the running call: changed = %v\n%s", changed, got)
	}
	if _, changed := m.tr.Render(100); !changed {
		t.Error("a new width did not redraw the transcript")
	}
}

func TestRunOutputCannotMoveTheCursor(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(80, 20))
	apply(m,
		event.ToolCall{Agent: "executor", ID: "1", Name: "run_tests", Summary: "cmd=\x1b[2Jnpm test"},
		event.ToolResult{Agent: "executor", ID: "1", Name: "run_tests", Preview: "\x1b[31mFAIL\x1b[0m\tauth.test.ts\rok\x07"},
	)
	got := m.View().Content
	for _, bad := range []string{"\x1b[2J", "\x1b[31mFAIL", "\r", "\x07", "\t"} {
		if strings.Contains(got, bad) {
			t.Errorf("the screen holds %q from the run's output", bad)
		}
	}
	mustContain(t, screenText(m), "cmd=npm test", "FAIL    auth.test.tsok")
}

func TestStatusBar(t *testing.T) {
	t.Parallel()
	st := defaultStyles()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		bar  statusBar
		want string
	}{
		{"before any event", statusBar{}, " anvil · 1m5s "},
		{"unknown cost", statusBar{model: "qwen", phase: "plan", hasUsage: true, usage: event.Usage{}}, " qwen · plan · 1m5s · 0 in / 0 out tokens · cost n/a "},
		{"known cost", statusBar{model: "claude", phase: "execute", hasUsage: true, usage: event.Usage{Cost: 0.0123, CostKnown: true}}, " claude · execute · 1m5s · 0 in / 0 out tokens · $0.0123 "},
		{"stopping", statusBar{model: "claude", phase: "execute", stopping: true}, " claude · stopping… · 1m5s "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.bar.st, tt.bar.start = &st, start
			got := ansi.Strip(tt.bar.Render(120, start.Add(65*time.Second), "q quit"))
			if !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, " q quit ") || lipgloss.Width(got) != 120 {
				t.Errorf("status bar = %q, want it to start with %q and end with the hint, 120 cells", got, tt.want)
			}
		})
	}
}

func TestStatusBarAfterStopping(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(100, 20))
	apply(m, recordedRun()[:2]...)
	statusLine := func() string {
		lines := strings.Split(screenText(m), "\n")
		return lines[len(lines)-1]
	}
	m.Update(stoppingMsg{})
	if got := statusLine(); !strings.HasPrefix(got, " replay · stopping… · ") {
		t.Errorf("status bar while stopping = %q", got)
	}
	apply(m, event.Done{Summary: event.Summary{Message: "context canceled"}})
	if got := statusLine(); !strings.HasPrefix(got, " replay · stopped · ") {
		t.Errorf("status bar after the run = %q", got)
	}
}

func TestDiffColours(t *testing.T) {
	t.Parallel()
	st := defaultStyles()
	got := strings.Split(renderDiff(strings.TrimRight(demoDiff, "\n"), 80, &st), "\n")
	want := []string{
		st.DiffHeader.Render("--- a/src/auth.ts"),
		st.DiffHeader.Render("+++ b/src/auth.ts"),
		st.DiffHunk.Render("@@ -1,7 +1,7 @@"),
		` import { findUser } from "./db";`,
		st.DiffDel.Render(`-import { User } from "./types";`),
		st.DiffAdd.Render(`+import { Account } from "./types";`),
		" ",
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d = %q, want %q", i, got[i], w)
		}
	}
	if got[4] == got[5] || !strings.Contains(got[5], "\x1b[") {
		t.Error("additions and deletions are not coloured")
	}
}
