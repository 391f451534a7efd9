package agent_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
)

var userWord = regexp.MustCompile(`\bUser\b`)

// multiTurn is a model turn with several tool calls.
func multiTurn(agentName string, calls ...map[string]any) map[string]any {
	var content []map[string]any
	for _, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["input"]})
	}
	return map[string]any{"agent": agentName, "content": content}
}

func call(id, name string, input any) map[string]any {
	return map[string]any{"id": id, "name": name, "input": input}
}

// toolResultsOf returns the tool results the Executor's model was sent,
// by call id.
func (r *run) toolResultsSent() map[string]string {
	out := map[string]string{}
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	for _, req := range r.prov.reqs {
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if b.Type == llm.TypeToolResult {
					out[b.ToolUseID] = b.Content
				}
			}
		}
	}
	return out
}

func (r *run) stagingChecks() int {
	n := 0
	for _, e := range r.events.Events() {
		if s, ok := e.(event.Shadow); ok && s.Stage == "result" && !s.Commit {
			n++
		}
	}
	return n
}

// Several edits in one model turn are validated once, after the turn; the
// re-plan advice comes only when errors outside the plan remain with every
// file of the plan staged.
func TestOneCheckPerTurn(t *testing.T) {
	dir := fixture("ts")
	types := readFixture(t, dir, "src/types.ts")
	db := readFixture(t, dir, "src/db.ts")
	plan := map[string]any{
		"goal": "Rename User to Account", "context": "c", "files_to_modify": []string{"src/types.ts", "src/db.ts"}, "files_to_create": []string{},
		"steps": []string{"types.ts", "db.ts"}, "verification_criteria": []string{"v"}, "risks": []string{"r"},
	}
	script := turnsJSONL(
		toolTurn("planner", "p1", "submit_plan", plan),
		// Turn 1: types.ts alone. db.ts (in the plan, not staged yet) and
		// auth.ts (outside it) break.
		toolTurn("executor", "e1", "write_file", map[string]any{"path": "src/types.ts", "content": userWord.ReplaceAllString(types, "Account")}),
		// Turn 2: two edits in one turn (db.ts twice): one check.
		multiTurn("executor",
			call("e2", "edit_file", map[string]any{"path": "src/db.ts", "old_string": "import { Order, User }", "new_string": "import { Order, Account }"}),
			call("e3", "write_file", map[string]any{"path": "src/db.ts", "content": userWord.ReplaceAllString(db, "Account")}),
		),
		textTurn("executor", "auth.ts is outside the plan; stopping."),
		textTurn("executor", "Not committing."),
	)
	r := runScript(t, dir, script, "Rename User to Account in types.ts and db.ts", agent.Decision{Kind: agent.DecisionYes})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := r.stagingChecks(); n != 2 {
		t.Errorf("%d staging checks for 2 turns that staged, want 2", n)
	}
	sent := r.toolResultsSent()
	first, e2, e3 := sent["e1"], sent["e2"], sent["e3"]
	if !strings.Contains(e2, "validated once this turn's edits are done") || strings.Contains(e2, "Validation of the whole change set") {
		t.Errorf("the first edit of a two-edit turn carries a validation:\n%s", e2)
	}
	for name, text := range map[string]string{"turn 1": first, "turn 2": e3} {
		if !strings.Contains(text, "Validation of the whole change set after this turn's edits") {
			t.Errorf("%s's last result carries no validation:\n%s", name, text)
		}
	}
	// Turn 1: db.ts is in the plan and not staged: no re-plan advice yet.
	if strings.Contains(first, "call request_replan with the reason") || !strings.Contains(first, "not staged yet (src/db.ts)") {
		t.Errorf("turn 1 advice:\n%s", first)
	}
	// Turn 2: every file of the plan is staged and auth.ts still breaks.
	if !strings.Contains(e3, "call request_replan with the reason") || !strings.Contains(e3, "src/auth.ts") {
		t.Errorf("turn 2 advice:\n%s", e3)
	}
}

func readFixture(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
