package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// harness runs the model in a teatest program. Events, approval requests
// and keys all go through one forwarder, as in the real UI, so a key
// pushed after an Approve call reaches the model after the gate opened.
type harness struct {
	tm    *teatest.TestModel
	fwd   *forwarder
	gone  chan struct{}
	asked chan struct{} // a gate request has reached the model
}

func newHarness(t *testing.T, opts Options, width, height int) *harness {
	t.Helper()
	if opts.Now == nil {
		// The model reads the clock first when it is made, then as the
		// run goes: the run takes 42s.
		start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		calls := 0
		opts.Now = func() time.Time {
			calls++
			if calls == 1 {
				return start
			}
			return start.Add(42 * time.Second)
		}
	}
	tm := teatest.NewTestModel(t, newModel(opts, nil), teatest.WithInitialTermSize(width, height))
	h := &harness{tm: tm, gone: make(chan struct{}), asked: make(chan struct{}, 10)}
	h.fwd = newForwarder(func(msg tea.Msg) {
		tm.Send(msg) // returns once the program has taken msg
		if _, ok := msg.(askMsg); ok {
			h.asked <- struct{}{}
		}
	})
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		h.fwd.close()
	})
	return h
}

func (h *harness) approver() *approver { return &approver{fwd: h.fwd, gone: h.gone} }

func (h *harness) emit(evs ...event.Event) {
	for _, e := range evs {
		h.fwd.push(eventMsg{ev: e})
	}
}

// keys pushes key presses: single characters as typed, or names such as
// "enter", "esc", "ctrl+c", "pgup", "end".
func (h *harness) keys(keys ...string) {
	for _, k := range keys {
		h.fwd.push(keyPress(k))
	}
}

// quit ends the program once what was pushed before has reached the
// model, which it leaves as it is (Ctrl-C would close the gate, say).
func (h *harness) quit() { h.fwd.push(tea.QuitMsg{}) }

// typeText pushes one key press per character of s.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.fwd.push(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// final waits for the program to end and returns its model.
func (h *harness) final(t *testing.T) *model {
	t.Helper()
	return h.tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
}

func teaSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// waitAsked waits until a gate request has reached the model, so that keys
// pushed afterwards answer it.
func (h *harness) waitAsked(t *testing.T) {
	t.Helper()
	select {
	case <-h.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the gate request never reached the model")
	}
}

// screenText is the model's view without styles.
func screenText(m *model) string { return ansi.Strip(m.View().Content) }

// demoPlan is the demo's plan, with all seven fields.
func demoPlan() *plan.Plan {
	return &plan.Plan{
		Goal:                 "Rename the User type to Account across the codebase.",
		Context:              "interface User is declared in src/types.ts and referenced in src/db.ts and src/auth.ts.",
		FilesToModify:        []string{"src/types.ts", "src/db.ts", "src/auth.ts"},
		Steps:                []string{"Rename the interface in src/types.ts", "Update the type references in src/db.ts", "Update the import and signatures in src/auth.ts"},
		VerificationCriteria: []string{"No new type errors in the changed files or their importers"},
		Risks:                []string{"Function names such as findUser keep their names"},
	}
}

const demoDiff = `--- a/src/auth.ts
+++ b/src/auth.ts
@@ -1,7 +1,7 @@
 import { findUser } from "./db";
-import { User } from "./types";
+import { Account } from "./types";
 
-export function login(id: string): User {
+export function login(id: string): Account {
   const user = findUser(id);
`

var authErr = shadow.Diag{Path: "src/auth.ts", Line: 2, Column: 10, Severity: "error", Code: "2305", Source: "ts", Message: `Module '"./types"' has no exported member 'User'.`}

// recordedRun is a run like the demo's, built as events: the Planner's
// tool calls and plan, the approval, a staging check rejected because an
// importer breaks, a clean commit with its diff, and the summary.
func recordedRun() []event.Event {
	p := demoPlan()
	todo := func(done int) event.Todo {
		var items []event.TodoItem
		for i, s := range p.Steps {
			st := "pending"
			switch {
			case i < done:
				st = "done"
			case i == done:
				st = "in_progress"
			}
			items = append(items, event.TodoItem{Text: s, Status: st})
		}
		return event.Todo{Items: items}
	}
	files := []string{"src/auth.ts", "src/db.ts", "src/types.ts"}
	return []event.Event{
		event.Session{ID: "s1", Dir: "/tmp/sessions/s1", Workspace: "/tmp/demo", Request: "Rename the User type to Account across all files", Provider: "replay", Model: "replay", Replayed: true},
		event.Phase{Name: "classify", Detail: "complex: the keyword \"rename\" suggests a change across files"},
		event.Phase{Name: "plan", Detail: "exploring the code read-only"},
		event.MessageDelta{Agent: "planner", Text: "I'll find where the User type "},
		event.MessageDelta{Agent: "planner", Text: "is declared."},
		event.Message{Agent: "planner", Text: "I'll find where the User type is declared."},
		event.ToolCall{Agent: "planner", ID: "p1", Name: "find_symbol", Summary: "name=User"},
		event.ToolResult{Agent: "planner", ID: "p1", Name: "find_symbol", Preview: "symbol at src/types.ts:1:18\nreferences: 9 in 3 files\n", Lines: 16},
		event.Usage{Agent: "planner", Total: llm.Usage{InputTokens: 2300, OutputTokens: 311}, Cost: 0.0123, CostKnown: true},
		event.Plan{Plan: p},
		event.Phase{Name: "approve"},
		event.Approval{Decision: "yes"},
		event.Phase{Name: "execute", Detail: "3 steps, 3 files"},
		todo(0),
		event.ToolCall{Agent: "executor", ID: "e1", Name: "edit_file", Summary: "path=src/types.ts"},
		event.Shadow{Files: []string{"src/types.ts"}, Stage: "validating"},
		event.Shadow{Files: []string{"src/types.ts"}, Stage: "result", Verdict: "rejected", New: []shadow.Diag{authErr}, Summary: "rejected: 1 new error in src/auth.ts"},
		event.ToolResult{Agent: "executor", ID: "e1", Name: "edit_file", Preview: "staged src/types.ts\nValidation: rejected", Lines: 2},
		todo(3),
		event.ToolCall{Agent: "executor", ID: "e2", Name: "commit", Summary: "message=Rename User to Account"},
		event.Shadow{Attempt: 1, MaxAttempts: 3, Files: files, Stage: "validating", Commit: true},
		event.Shadow{Attempt: 1, MaxAttempts: 3, Files: files, Stage: "result", Verdict: "clean", Summary: "clean: no new errors in 5 checked files", Commit: true},
		event.Commit{Entry: "s1/000001", Files: files, Diff: demoDiff},
		event.ToolResult{Agent: "executor", ID: "e2", Name: "commit", Preview: "committed 3 files"},
		event.Usage{Agent: "executor", Total: llm.Usage{InputTokens: 7168, OutputTokens: 638}, Cost: 0.0456, CostKnown: true},
		event.Done{Success: true, Summary: event.Summary{
			Request: "Rename the User type to Account across all files", FilesChanged: files, Attempts: 1,
			VerificationCriteria: p.VerificationCriteria, Message: "Committed 3 files after 1 attempt.", Undo: "anvil undo",
		}},
	}
}

// planOf returns the plan of the first Plan event of evs, which the
// orchestrator then asks about: the gate shows it without drawing it again.
func planOf(evs []event.Event) *plan.Plan {
	for _, e := range evs {
		if p, ok := e.(event.Plan); ok {
			return p.Plan
		}
	}
	return nil
}

// mustContain fails for each want missing from got.
func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("screen lacks %q; screen:\n%s", w, got)
		}
	}
}
