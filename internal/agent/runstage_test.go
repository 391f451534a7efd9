package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/testfs"
)

const sortedSrc = "package sorted\n\n// IsSorted reports whether xs is ascending.\nfunc IsSorted(xs []int) bool {\n\tfor i := 1; i < len(xs); i++ {\n\t\tif xs[i-1] > xs[i] {\n\t\t\treturn false\n\t\t}\n\t}\n\treturn true\n}\n"

// sortedModule is a Go module whose test catches a flipped comparison,
// which the type checker cannot.
func sortedModule(t *testing.T, extra map[string]string) string {
	files := map[string]string{
		"go.mod":         "module example.com/sorted\n\ngo 1.22\n",
		"sorted.go":      sortedSrc,
		"sorted_test.go": "package sorted\n\nimport \"testing\"\n\nfunc TestIsSorted(t *testing.T) {\n\tif !IsSorted([]int{1, 2}) {\n\t\tt.Fatal(\"IsSorted([1 2]) = false\")\n\t}\n}\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return testfs.Tree(t, files)
}

var sortedPlan = map[string]any{"goal": "g", "context": "c", "files_to_modify": []string{"sorted.go"}, "files_to_create": []string{},
	"steps": []string{"s"}, "verification_criteria": []string{"v"}, "risks": []string{"r"}}

var flipped = strings.Replace(sortedSrc, "xs[i-1] > xs[i]", "xs[i-1] < xs[i]", 1)

// With [run] commands configured, a commit also runs them in a shadow
// tree: the behaviour break is rejected like a type error, and the fixed
// change commits.
func TestCommitRunsConfiguredTests(t *testing.T) {
	dir := sortedModule(t, map[string]string{".anvil/config.toml": "[run]\ntest = \"go test ./...\"\n"})
	turns := turnsJSONL(
		toolTurn("planner", "s1", "submit_plan", sortedPlan),
		toolTurn("executor", "w1", "write_file", map[string]any{"path": "sorted.go", "content": flipped}),
		toolTurn("executor", "c1", "commit", map[string]any{}),
		toolTurn("executor", "w2", "write_file", map[string]any{"path": "sorted.go", "content": strings.Replace(sortedSrc, "is ascending", "is in ascending order", 1)}),
		toolTurn("executor", "c2", "commit", map[string]any{}),
	)
	r := runScriptIn(t, dir, turns, "Make IsSorted clearer across the module", agent.Decision{Kind: agent.DecisionYes})
	if r.err != nil {
		t.Fatal(r.err)
	}
	commits := r.shadows(true)
	if len(commits) != 2 || commits[0].Verdict != "rejected" || !strings.Contains(commits[0].Summary, "makes 1 test fail") || commits[1].Verdict != "clean" {
		t.Fatalf("commit validations: %+v", commits)
	}
	if !r.done.Success {
		t.Fatalf("done: %+v", r.done.Summary)
	}
}

// run_tests runs the staged change's tests in a shadow tree: a behaviour
// break the language servers accept is reported as a failing test, and
// the workspace is untouched.
func TestRunTestsTool(t *testing.T) {
	dir := sortedModule(t, nil)
	before := testfs.Snapshot(t, dir)
	turns := turnsJSONL(
		toolTurn("planner", "s1", "submit_plan", sortedPlan),
		toolTurn("executor", "w1", "write_file", map[string]any{"path": "sorted.go", "content": flipped}),
		toolTurn("executor", "t1", "run_tests", map[string]any{}),
		textTurn("executor", "The tests fail; stopping."),
		textTurn("executor", "Not committing: the tests fail."),
	)
	r := runScriptIn(t, dir, turns, "Make IsSorted clearer across the module", agent.Decision{Kind: agent.DecisionYes})
	if r.err != nil {
		t.Fatal(r.err)
	}
	res := r.toolResults("run_tests")
	sent, _ := json.Marshal(r.prov.reqs)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(string(sent), "example.com/sorted.TestIsSorted") || !strings.Contains(string(sent), "IsSorted([1 2]) = false") {
		t.Fatalf("run_tests: %+v", res)
	}
	testfs.Unchanged(t, before, dir)
}
