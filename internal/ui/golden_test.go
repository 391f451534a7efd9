package ui

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/shadow"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sampleRun is a run's events as the orchestrator emits them, with every
// event type.
func sampleRun() []event.Event {
	p := &plan.Plan{
		Goal: "Rename the User type to Account.", Context: "User is declared in src/types.ts.",
		FilesToModify: []string{"src/types.ts", "src/db.ts"}, FilesToCreate: []string{},
		Steps: []string{"Rename the interface", "Update db.ts"}, VerificationCriteria: []string{"No new type errors"},
		Risks: []string{"None known"},
	}
	widened := *p
	widened.FilesToModify = append(append([]string{}, p.FilesToModify...), "src/auth.ts")
	diag := shadow.Diag{Path: "src/db.ts", Line: 1, Column: 17, Severity: "error", Code: "2305", Source: "ts", Message: `Module '"./types"' has no exported member 'User'.`}
	return []event.Event{
		event.Session{ID: "s1", Dir: "/tmp/anvil/s1", Workspace: "/work/shop", Request: "Rename the User type to Account", Provider: "replay", Model: "replay", Replayed: true},
		event.Phase{Name: "classify", Detail: `complex: the keyword "rename" suggests a change across files`},
		event.Phase{Name: "plan", Detail: "exploring the code read-only"},
		event.MessageDelta{Agent: "planner", Text: "Looking for "},
		event.MessageDelta{Agent: "planner", Text: "User."},
		event.Message{Agent: "planner", Text: "Looking for User."},
		event.ToolCall{Agent: "planner", ID: "t1", Name: "find_symbol", Args: json.RawMessage(`{"name":"User"}`), Summary: "name=User"},
		event.ToolResult{Agent: "planner", ID: "t1", Name: "find_symbol", Preview: "symbol at src/types.ts:1:18\n(answered by tsgo)", Lines: 12},
		event.Usage{Agent: "planner", Turn: llm.Usage{InputTokens: 900, OutputTokens: 40}, Total: llm.Usage{InputTokens: 900, OutputTokens: 40}, Cost: 0.0033, CostKnown: true},
		event.Plan{Plan: p},
		event.Phase{Name: "approve"},
		event.Approval{Decision: "yes"},
		event.Phase{Name: "execute", Detail: "2 steps, 2 files"},
		event.Todo{Items: []event.TodoItem{{Text: "Rename the interface", Status: "in_progress"}, {Text: "Update db.ts", Status: "pending"}}},
		event.ToolCall{Agent: "executor", ID: "t2", Name: "edit_file", Args: json.RawMessage(`{"path":"src/types.ts"}`), Summary: "path=src/types.ts"},
		event.Shadow{Attempt: 1, MaxAttempts: 3, Files: []string{"src/types.ts"}, Stage: "validating", Commit: true},
		event.Shadow{Attempt: 1, MaxAttempts: 3, Files: []string{"src/types.ts"}, Stage: "result", Verdict: "rejected", New: []shadow.Diag{diag}, Summary: "rejected: 1 new error in src/db.ts", Commit: true},
		event.ToolResult{Agent: "executor", ID: "t2", Name: "edit_file", IsError: true, Preview: "commit 1 of 3 refused; nothing was written.", Lines: 5},
		event.Compaction{Agent: "executor", Why: "threshold", TokensBefore: 151000, TokensAfter: 62000, Window: 200000, Shrunk: 14, Summarized: 22,
			Kept: []string{"the request", "the approved plan", "the staged change set", "the todo list", "the latest diagnostics"}},
		event.Shadow{Attempt: 2, MaxAttempts: 3, Files: []string{"src/db.ts", "src/types.ts"}, Stage: "result", Verdict: "rejected", Commit: true,
			Summary: "rejected: the change makes 1 test fail (npx vitest run): src/db.test.ts > finds users",
			Run:     &shadow.RunReport{Command: "npx vitest run", Status: shadow.RunFailed, Failed: []string{"src/db.test.ts > finds users"}, Tests: 12, ElapsedMS: 900}},
		event.Shadow{Attempt: 3, MaxAttempts: 3, Files: []string{"src/db.ts", "src/types.ts"}, Stage: "result", Verdict: "clean", Summary: "clean: no new errors in 4 checked files", Commit: true,
			Run: &shadow.RunReport{Command: "npx vitest run", Status: shadow.RunPassed, Preexisting: []string{"src/old.test.ts > flakes"}, Tests: 12, ElapsedMS: 850}},
		event.Phase{Name: "replan", Detail: "the change breaks files outside the plan: src/auth.ts (1 new error)"},
		event.Plan{Plan: &widened, Revision: 1, Reason: "the change breaks files outside the plan: src/auth.ts (1 new error)",
			Widened: []event.Widened{{Path: "src/auth.ts", Why: "1 new error (first: 2305 at line 2: Module '\"./types\"' has no exported member 'User'.)"}}},
		event.Approval{Decision: "yes", Auto: true},
		event.Commit{Entry: "s1/000001", Files: []string{"src/db.ts", "src/types.ts"}, Diff: "--- a/src/types.ts\n+++ b/src/types.ts\n@@ -1 +1 @@\n-export interface User {\n+export interface Account {\n"},
		event.Todo{Items: []event.TodoItem{{Text: "Rename the interface", Status: "done"}, {Text: "Update db.ts", Status: "done"}}},
		event.Error{Message: "not attached: @missing.ts: no such file"},
		event.Done{Success: true, Summary: event.Summary{
			Request: "Rename the User type to Account", FilesChanged: []string{"src/db.ts", "src/types.ts"}, Attempts: 2,
			Preexisting:          []string{"src/orders.ts:9:28: error [2339]: Property 'size' does not exist on type 'Order[]'."},
			VerificationCriteria: []string{"No new type errors"}, Message: "Committed 2 files after 2 attempts.", Undo: "anvil undo",
		}},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update to accept):\n%s", name, got)
	}
}

func TestPlainGolden(t *testing.T) {
	var b bytes.Buffer
	r := NewPlain(&b)
	for _, e := range sampleRun() {
		r.Emit(e)
	}
	golden(t, "plain.golden", b.Bytes())
}

func TestJSONLGolden(t *testing.T) {
	var b bytes.Buffer
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	r := NewJSONL(&b, func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	events := sampleRun()
	for _, e := range events {
		r.Emit(e)
	}
	golden(t, "events.golden", b.Bytes())

	// Every line is an object with a type and a ts, one per event.
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	if len(lines) != len(events) {
		t.Fatalf("%d lines for %d events", len(lines), len(events))
	}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if m["type"] != events[i].Type() || m["ts"] == nil {
			t.Errorf("line %d: type %v ts %v", i+1, m["type"], m["ts"])
		}
	}
}
