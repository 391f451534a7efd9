package agent_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The rename of the ts fixture's User, file by file.
const (
	accountTypes = "export interface Account {\n  id: string;\n  name: string;\n  email: string;\n}\n\nexport interface Order {\n  id: string;\n  userId: string;\n  total: number;\n}\n"
	accountDB    = "import { Order, Account } from \"./types\";\n\nconst users = new Map<string, Account>();\nconst orders: Order[] = [];\n\nexport function saveUser(user: Account): void {\n  users.set(user.id, user);\n}\n\nexport function findUser(id: string): Account | undefined {\n  return users.get(id);\n}\n\nexport function allUsers(): Account[] {\n  return [...users.values()];\n}\n\nexport function ordersFor(userId: string): Order[] {\n  return orders.filter((o) => o.userId === userId);\n}\n"
	accountAuth  = "import { findUser } from \"./db\";\nimport { Account } from \"./types\";\n\nexport function login(id: string): Account {\n  const user = findUser(id);\n  if (!user) {\n    throw new Error(`no user ${id}`);\n  }\n  return user;\n}\n\nexport function displayName(user: Account): string {\n  return `${user.name} <${user.email}>`;\n}\n"
)

func renamePlan(files ...string) map[string]any {
	return map[string]any{
		"goal": "Rename User to Account", "context": "User is declared in types.ts and used by db.ts",
		"files_to_modify": files, "files_to_create": []string{},
		"steps": []string{"rename in every file"}, "verification_criteria": []string{"tsc passes"}, "risks": []string{"a missed importer"},
	}
}

// The first half of every re-plan scenario: the plan omits auth.ts, the
// Executor renames in types.ts and db.ts, and the commit is rejected for
// auth.ts's errors.
func omittedImporterTurns() []map[string]any {
	return []map[string]any{
		toolTurn("planner", "s1", "submit_plan", renamePlan("src/types.ts", "src/db.ts")),
		toolTurn("executor", "w1", "write_file", map[string]any{"path": "src/types.ts", "content": accountTypes}),
		toolTurn("executor", "w2", "write_file", map[string]any{"path": "src/db.ts", "content": accountDB}),
		toolTurn("executor", "c1", "commit", map[string]any{}),
	}
}

func replanEvents(r *run) []event.Plan {
	var out []event.Plan
	for _, e := range r.events.Events() {
		if p, ok := e.(event.Plan); ok && p.Reason != "" {
			out = append(out, p)
		}
	}
	return out
}

// The plan omits an importer: the commit is rejected with the importer's
// errors, the Executor hands back, the plan is revised to include it and
// approved, the importer is fixed with the staged edits kept, the commit
// is clean, and tsc agrees.
func TestReplanWidensThePlan(t *testing.T) {
	turns := append(omittedImporterTurns(),
		toolTurn("executor", "r1", "request_replan", map[string]any{"reason": "auth.ts uses User and must be renamed with it"}),
		toolTurn("planner", "s2", "submit_plan", renamePlan("src/types.ts", "src/db.ts", "src/auth.ts")),
		toolTurn("executor", "w3", "write_file", map[string]any{"path": "src/auth.ts", "content": accountAuth}),
		toolTurn("executor", "c2", "commit", map[string]any{}),
	)
	r := runScript(t, fixture("ts"), turnsJSONL(turns...), "Rename the User type to Account across all files",
		agent.Decision{Kind: agent.DecisionYes}, agent.Decision{Kind: agent.DecisionYes})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.done.Success || r.done.Summary.Attempts != 2 {
		t.Fatalf("done: %+v", r.done)
	}

	// The rejection told the Executor what it cannot fix and what to do.
	commits := r.toolResults("commit")
	sent, _ := json.Marshal(r.prov.reqs)
	if len(commits) != 2 || !commits[0].IsError || !strings.Contains(string(sent), "outside the plan, which you cannot edit") || !strings.Contains(string(sent), "call request_replan") {
		t.Fatalf("first commit's answer: %+v", commits)
	}
	// The user saw the widened plan, and why.
	plans := replanEvents(r)
	if len(plans) != 1 || plans[0].Revision != 1 || !strings.Contains(plans[0].Reason, "src/auth.ts") ||
		len(plans[0].Widened) != 1 || plans[0].Widened[0].Path != "src/auth.ts" || !strings.Contains(plans[0].Widened[0].Why, "new error") {
		t.Fatalf("re-plan events: %+v", plans)
	}
	if len(r.user.asked) != 2 || len(r.user.asked[1].Files()) != 3 {
		t.Fatalf("approvals: %+v", r.user.asked)
	}
	// The Planner was told what broke and what is staged.
	var replanPrompt string
	for _, req := range r.prov.reqs {
		if txt := req.Messages[0].TextContent(); strings.Contains(txt, "breaks files outside the plan") {
			replanPrompt = txt
		}
	}
	if !strings.Contains(replanPrompt, "src/auth.ts:") || !strings.Contains(replanPrompt, "+export interface Account") {
		t.Errorf("the re-plan prompt lacks the diagnostics or the staged diff:\n%s", replanPrompt)
	}
	if got := strings.Join(r.done.Summary.FilesChanged, ","); got != "src/auth.ts,src/db.ts,src/types.ts" {
		t.Errorf("files changed: %s", got)
	}
	tsc := exec.Command(filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin", "tsc"), "--noEmit", "-p", r.dir)
	if out, err := tsc.CombinedOutput(); err != nil {
		t.Fatalf("tsc on the result: %v\n%s", err, out)
	}
}

// Answering "n" to the widened plan writes nothing.
func TestReplanDeclined(t *testing.T) {
	turns := append(omittedImporterTurns(),
		toolTurn("executor", "r1", "request_replan", map[string]any{"reason": "auth.ts uses User"}),
		toolTurn("planner", "s2", "submit_plan", renamePlan("src/types.ts", "src/db.ts", "src/auth.ts")),
	)
	before := testfs.Snapshot(t, fixture("ts"))
	r := runScript(t, fixture("ts"), turnsJSONL(turns...), "Rename the User type to Account across all files",
		agent.Decision{Kind: agent.DecisionYes}, agent.Decision{Kind: agent.DecisionNo})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.done.Success || !strings.Contains(r.done.Summary.Message, "widened plan was not approved") || !strings.Contains(r.done.Summary.Message, "src/auth.ts") {
		t.Fatalf("done: %+v", r.done.Summary)
	}
	testfs.Unchanged(t, before, r.dir)
}

// An Executor that spends its attempts on errors outside the plan hands
// back without asking; a revision that still misses the importer meets
// the bound (max_replans = 1 here), and the run stops with the
// diagnostics and the files a plan would need.
func TestReplanBound(t *testing.T) {
	dir := testfs.Copy(t, fixture("ts"))
	testfs.Write(t, dir, map[string]string{".anvil/config.toml": "max_attempts = 1\nmax_replans = 1\n"})
	before := testfs.Snapshot(t, dir)
	turns := append(omittedImporterTurns(),
		toolTurn("planner", "s2", "submit_plan", renamePlan("src/types.ts", "src/db.ts", "src/orders.ts")),
		toolTurn("executor", "c2", "commit", map[string]any{}),
	)
	r := runScriptIn(t, dir, turnsJSONL(turns...), "Rename the User type to Account across all files",
		agent.Decision{Kind: agent.DecisionYes}, agent.Decision{Kind: agent.DecisionYes})
	if r.err != nil {
		t.Fatal(r.err)
	}
	s := r.done.Summary
	if r.done.Success || !strings.Contains(s.Message, "max_replans") || !strings.Contains(s.Message, "src/auth.ts") ||
		!strings.Contains(strings.Join(s.Diagnostics, "\n"), "src/auth.ts") || s.Attempts != 2 {
		t.Fatalf("done: %+v", s)
	}
	if plans := replanEvents(r); len(plans) != 1 || plans[0].Widened[0].Why != "added by the Planner" {
		t.Fatalf("re-plan events: %+v", plans)
	}
	testfs.Unchanged(t, before, dir)
}
