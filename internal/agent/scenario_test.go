package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/demo"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/llm/replay"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The test binary is also the shadow tree's helper (run_tests).
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	os.Exit(m.Run())
}

// scriptedUser answers the approval gate from a list.
type scriptedUser struct {
	mu        sync.Mutex
	decisions []agent.Decision
	asked     []*plan.Plan
}

func (u *scriptedUser) Approve(_ context.Context, p *plan.Plan, _ int) (agent.Decision, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, p)
	if len(u.decisions) == 0 {
		return agent.Decision{Kind: agent.DecisionNo}, nil
	}
	d := u.decisions[0]
	u.decisions = u.decisions[1:]
	return d, nil
}

// recorder keeps the requests a provider was sent.
type recorder struct {
	llm.Provider
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recorder) Stream(ctx context.Context, req llm.Request, d func(llm.Delta)) (*llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Provider.Stream(ctx, req, d)
}

type run struct {
	t      *testing.T
	dir    string
	events *event.Recorder
	done   event.Done
	err    error
	user   *scriptedUser
	prov   *recorder
}

func fixture(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "projects", name)
}

// runScript runs request on a copy of project with the given replay script
// and approval decisions, against the real language servers.
func runScript(t *testing.T, project string, script []byte, request string, decisions ...agent.Decision) *run {
	t.Helper()
	return runScriptIn(t, testfs.Copy(t, project), script, request, decisions...)
}

// runScriptIn is runScript on dir itself.
func runScriptIn(t *testing.T, dir string, script []byte, request string, decisions ...agent.Decision) *run {
	t.Helper()
	a, err := app.New(app.Options{Dir: dir, SessionBase: t.TempDir(), Getenv: testEnv(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	prov, err := replay.Parse(strings.NewReader(string(script)))
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, dir: dir, events: &event.Recorder{}, user: &scriptedUser{decisions: decisions}, prov: &recorder{Provider: prov}}
	orch, err := a.Orchestrator(app.RunOptions{Provider: r.prov, Approver: r.user, Events: r.events})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := untilDeadline(t)
	defer cancel()
	r.done, r.err = orch.Run(ctx, request)
	if left := prov.Remaining(); left != 0 && r.err == nil {
		t.Errorf("%d scripted turns were not used", left)
	}
	return r
}

func (r *run) shadows(commit bool) []event.Shadow {
	var out []event.Shadow
	for _, e := range r.events.Events() {
		if s, ok := e.(event.Shadow); ok && s.Stage == "result" && s.Commit == commit {
			out = append(out, s)
		}
	}
	return out
}

func (r *run) toolResults(name string) []event.ToolResult {
	var out []event.ToolResult
	for _, e := range r.events.Events() {
		if tr, ok := e.(event.ToolResult); ok && tr.Name == name {
			out = append(out, tr)
		}
	}
	return out
}

// The demo's script on the clean fixture: the Planner explores and
// submits, the first commit is rejected because auth.ts (an importer)
// breaks, the second is clean, and the result passes tsc.
func TestRenameScenario(t *testing.T) {
	// The demo's own project, with its pre-existing bug in db.ts.
	dir := t.TempDir()
	if err := demo.Extract(dir); err != nil {
		t.Fatal(err)
	}
	r := runScriptIn(t, dir, demo.Script(), demo.Request, agent.Decision{Kind: agent.DecisionYes})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.done.Success {
		t.Fatalf("run failed: %+v", r.done.Summary)
	}
	for _, name := range []string{"ast_search", "find_symbol", "read_file", "submit_plan"} {
		if res := r.toolResults(name); len(res) == 0 || res[0].IsError {
			t.Errorf("planner tool %s: %+v", name, res)
		}
	}
	commits := r.shadows(true)
	if len(commits) != 2 || commits[0].Verdict != "rejected" || commits[1].Verdict != "clean" {
		t.Fatalf("commit validations: %+v", commits)
	}
	if commits[0].New[0].Path != "src/auth.ts" {
		t.Errorf("first rejection should be in the importer auth.ts: %+v", commits[0].New)
	}
	if got := strings.Join(r.done.Summary.FilesChanged, ","); got != "src/auth.ts,src/db.ts,src/types.ts" {
		t.Errorf("files changed: %s", got)
	}
	if r.done.Summary.Attempts != 2 {
		t.Errorf("attempts = %d", r.done.Summary.Attempts)
	}
	// tsc finds on the result only the error that was there before.
	tsc := exec.Command(filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin", "tsc"), "--noEmit", "--pretty", "false", "-p", r.dir)
	out, _ := tsc.CombinedOutput()
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "src/db.ts(24,21): error TS2339") {
		t.Fatalf("tsc on the result:\n%s", out)
	}
	types, _ := os.ReadFile(filepath.Join(r.dir, "src/types.ts"))
	if !strings.Contains(string(types), "interface Account") {
		t.Errorf("types.ts: %s", types)
	}
	var todo event.Todo
	for _, e := range r.events.Events() {
		if td, ok := e.(event.Todo); ok {
			todo = td
		}
	}
	if len(todo.Items) != 3 || todo.Items[2].Status != "done" {
		t.Errorf("todo list at the end: %+v", todo.Items)
	}
}

func turnsJSONL(turns ...map[string]any) []byte {
	var b strings.Builder
	for _, t := range turns {
		line, _ := json.Marshal(t)
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func toolTurn(agentName, id, name string, input any) map[string]any {
	return map[string]any{"agent": agentName, "content": []map[string]any{{"type": "tool_use", "id": id, "name": name, "input": input}}}
}

func textTurn(agentName, text string) map[string]any {
	return map[string]any{"agent": agentName, "content": []map[string]any{{"type": "text", "text": text}}}
}

var smallPlan = map[string]any{
	"goal": "Add a comment", "context": "c", "files_to_modify": []string{"src/types.ts"}, "files_to_create": []string{},
	"steps": []string{"edit types.ts"}, "verification_criteria": []string{"none"}, "risks": []string{"none"},
}

// The Planner has no write tool: a call to one is refused at dispatch and
// nothing changes; answering "n" then writes nothing.
func TestPlannerCannotWrite(t *testing.T) {
	script := turnsJSONL(
		toolTurn("planner", "w1", "write_file", map[string]any{"path": "src/types.ts", "content": "hacked"}),
		toolTurn("planner", "s1", "submit_plan", smallPlan),
	)
	before := testfs.Snapshot(t, fixture("ts"))
	r := runScript(t, fixture("ts"), script, "Add a comment to the User type and update the docs", agent.Decision{Kind: agent.DecisionNo})
	res := r.toolResults("write_file")
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Preview, "not available to the planner") {
		t.Fatalf("write_file result: %+v", res)
	}
	for _, req := range r.prov.reqs {
		for _, d := range req.Tools {
			if d.Name == "write_file" || d.Name == "edit_file" {
				t.Errorf("the planner was shown %s", d.Name)
			}
		}
	}
	if r.done.Success || !strings.Contains(r.done.Summary.Message, "nothing was written") {
		t.Errorf("done: %+v", r.done)
	}
	testfs.Unchanged(t, before, r.dir)
}

// The Executor reads only the plan's files.
func TestExecutorScopedReads(t *testing.T) {
	script := turnsJSONL(
		toolTurn("planner", "s1", "submit_plan", smallPlan),
		toolTurn("executor", "r1", "read_file", map[string]any{"path": "src/db.ts"}),
		toolTurn("executor", "r2", "read_file", map[string]any{"path": filepath.Join(fixture("ts"), "src", "auth.ts")}),
		toolTurn("executor", "r3", "read_file", map[string]any{"path": "src/types.ts"}),
		textTurn("executor", "I cannot do more."),
	)
	r := runScript(t, fixture("ts"), script, "Document the User type across the codebase", agent.Decision{Kind: agent.DecisionYes})
	res := r.toolResults("read_file")
	if len(res) != 3 || !res[0].IsError || !res[1].IsError || res[2].IsError {
		t.Fatalf("read_file results: %+v", res)
	}
	if !strings.Contains(res[0].Preview, "outside the plan") {
		t.Errorf("refusal: %s", res[0].Preview)
	}
	if r.done.Success {
		t.Errorf("a run that committed nothing succeeded: %+v", r.done)
	}
}

// "revise" sends the feedback and the previous plan back to the Planner;
// the new plan is shown and must be approved again.
func TestRevise(t *testing.T) {
	revised := map[string]any{}
	for k, v := range smallPlan {
		revised[k] = v
	}
	revised["goal"] = "Add a comment, revised"
	script := turnsJSONL(
		toolTurn("planner", "s1", "submit_plan", smallPlan),
		toolTurn("planner", "s2", "submit_plan", revised),
	)
	r := runScript(t, fixture("ts"), script, "Add comments across the codebase",
		agent.Decision{Kind: agent.DecisionRevise, Feedback: "also mention the email field"},
		agent.Decision{Kind: agent.DecisionNo})
	if len(r.user.asked) != 2 || r.user.asked[1].Goal != "Add a comment, revised" {
		t.Fatalf("approval asked %d times: %+v", len(r.user.asked), r.user.asked)
	}
	second := r.prov.reqs[len(r.prov.reqs)-1].Messages[0].TextContent()
	if !strings.Contains(second, "also mention the email field") || !strings.Contains(second, "Goal: Add a comment") {
		t.Errorf("revision prompt lacks the feedback or the previous plan:\n%s", second)
	}
	if r.done.Success {
		t.Error("declined run succeeded")
	}
}

// Three rejected commits end the run with the diagnostics, files
// untouched. The errors are in the plan's own file, so no re-plan can help.
func TestThreeRejections(t *testing.T) {
	broken := "export interface User { id: string; name: string; email: string }\nexport interface Order { id: string; userId: string; total: number }\nexport const limit: number = \"ten\";\n"
	var turns []map[string]any
	turns = append(turns, toolTurn("planner", "s1", "submit_plan", map[string]any{
		"goal": "Rename", "context": "c", "files_to_modify": []string{"src/types.ts"}, "files_to_create": []string{},
		"steps": []string{"rename"}, "verification_criteria": []string{"v"}, "risks": []string{"r"},
	}))
	for i := 1; i <= 3; i++ {
		turns = append(turns,
			toolTurn("executor", "w"+string(rune('0'+i)), "write_file", map[string]any{"path": "src/types.ts", "content": broken}),
			toolTurn("executor", "c"+string(rune('0'+i)), "commit", map[string]any{}))
	}
	before := testfs.Snapshot(t, fixture("ts"))
	r := runScript(t, fixture("ts"), turnsJSONL(turns...), "Rename User to Account everywhere", agent.Decision{Kind: agent.DecisionYes})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.done.Success || r.done.Summary.Attempts != 3 || len(r.done.Summary.Diagnostics) == 0 {
		t.Fatalf("done: %+v", r.done)
	}
	if !strings.Contains(strings.Join(r.done.Summary.Diagnostics, "\n"), "src/types.ts") {
		t.Errorf("diagnostics should name the broken file: %v", r.done.Summary.Diagnostics)
	}
	testfs.Unchanged(t, before, r.dir)
}

// cancelAfter cancels the run (as Ctrl-C does) when the provider is asked
// for its n-th turn.
type cancelAfter struct {
	llm.Provider
	n      int
	calls  int
	cancel context.CancelFunc
}

func (c *cancelAfter) Stream(ctx context.Context, req llm.Request, d func(llm.Delta)) (*llm.Response, error) {
	c.calls++
	if c.calls == c.n {
		c.cancel()
		return nil, ctx.Err()
	}
	return c.Provider.Stream(ctx, req, d)
}

// Interrupting a run while the Executor works writes nothing and reports
// the cancellation.
func TestInterrupted(t *testing.T) {
	dir := testfs.Copy(t, fixture("ts"))
	before := testfs.Snapshot(t, dir)
	a, err := app.New(app.Options{Dir: dir, SessionBase: t.TempDir(), Getenv: testEnv(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	prov, _ := replay.Parse(strings.NewReader(string(demo.Script())))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Turn 9 is the Executor's second commit: the first was rejected, the
	// fix to auth.ts is staged but nothing is written yet.
	orch, err := a.Orchestrator(app.RunOptions{Provider: &cancelAfter{Provider: prov, n: 9, cancel: cancel}, Approver: &scriptedUser{decisions: []agent.Decision{{Kind: agent.DecisionYes}}}, Events: &event.Recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = orch.Run(ctx, demo.Request)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	testfs.Unchanged(t, before, dir)
}

// A request naming one file and no cross-cutting word skips the Planner and
// the gate: the Executor works on that file alone.
func TestSimpleRequestSkipsPlanning(t *testing.T) {
	script := turnsJSONL(
		toolTurn("executor", "e1", "edit_file", map[string]any{"path": "src/types.ts", "old_string": "export interface Order {", "new_string": "/** A purchase. */\nexport interface Order {"}),
		toolTurn("executor", "c1", "commit", map[string]any{"message": "doc Order"}),
	)
	r := runScript(t, fixture("ts"), script, "Add a doc comment to Order in src/types.ts")
	if r.err != nil || !r.done.Success {
		t.Fatalf("run: %v %+v", r.err, r.done)
	}
	if len(r.user.asked) != 0 {
		t.Error("a simple request went through the approval gate")
	}
	for _, req := range r.prov.reqs {
		if req.Agent != "executor" {
			t.Errorf("the %s was asked", req.Agent)
		}
	}
	if got := strings.Join(r.done.Summary.FilesChanged, ","); got != "src/types.ts" {
		t.Errorf("files changed: %s", got)
	}
	data, _ := os.ReadFile(filepath.Join(r.dir, "src/types.ts"))
	if !strings.Contains(string(data), "/** A purchase. */") {
		t.Errorf("types.ts: %s", data)
	}
}

// testEnv is the environment with Anvil's state directory moved into the
// test's own temporary directory.
func testEnv(t *testing.T) func(string) string {
	state := t.TempDir()
	return func(k string) string {
		if k == "ANVIL_STATE_DIR" {
			return state
		}
		return os.Getenv(k)
	}
}

// warmRecorder is the app's service, noting the files it is asked to
// warm.
type warmRecorder struct {
	service.Service
	warmed chan []string
}

func (w *warmRecorder) Warm(ctx context.Context, paths []string) error {
	select {
	case w.warmed <- paths:
	default:
	}
	return w.Service.Warm(ctx, paths)
}

// waitingUser answers yes once the plan's files are being warmed: the
// servers work while the user reads the plan.
type waitingUser struct {
	warmed <-chan []string
	got    []string
}

func (u *waitingUser) Approve(ctx context.Context, p *plan.Plan, _ int) (agent.Decision, error) {
	select {
	case u.got = <-u.warmed:
	case <-time.After(time.Minute):
	case <-ctx.Done():
	}
	return agent.Decision{Kind: agent.DecisionYes}, nil
}

// The servers start answering for the plan's files while the user reads
// the plan, and the run is the same as without it.
func TestPlanWarmsWhileTheUserReads(t *testing.T) {
	dir := t.TempDir()
	if err := demo.Extract(dir); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.Options{Dir: dir, SessionBase: t.TempDir(), Getenv: testEnv(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	prov, err := replay.Parse(strings.NewReader(string(demo.Script())))
	if err != nil {
		t.Fatal(err)
	}
	svc := &warmRecorder{Service: a.Service(), warmed: make(chan []string, 4)}
	user := &waitingUser{warmed: svc.warmed}
	events := &event.Recorder{}
	orch, err := a.Orchestrator(app.RunOptions{Provider: prov, Approver: user, Events: events, Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done, err := orch.Run(ctx, demo.Request)
	if err != nil || !done.Success {
		t.Fatalf("run: %v %+v", err, done.Summary)
	}
	var planned []string
	for _, e := range events.Events() {
		if p, ok := e.(event.Plan); ok {
			planned = p.Plan.FilesToModify
			break
		}
	}
	if len(planned) == 0 || !slices.Equal(user.got, planned) {
		t.Fatalf("warmed %v while the user read the plan, want its files %v", user.got, planned)
	}
}

// untilDeadline is a context for the waits of a test: it ends shortly
// before the test binary's deadline (go test -timeout), so a wait that
// never ends fails with its message, and sets no wall-clock bound of its
// own, which a loaded machine would overrun. Usable in cleanups.
func untilDeadline(t *testing.T) (context.Context, context.CancelFunc) {
	d, ok := t.Deadline()
	if !ok {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), d.Add(-deadlineMargin))
}

// deadlineMargin is the time left, after a wait gives up, to report it.
const deadlineMargin = 10 * time.Second
