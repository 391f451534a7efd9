package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// mcpCall is a Responses-API output item calling Anvil's MCP tool, as a
// model calls it through Codex (its MCP tools are in the namespace
// mcp__<server>).
func mcpCall(t *testing.T, id, tool string, args any) map[string]any {
	t.Helper()
	data, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": tool, "namespace": "mcp__anvil",
		"arguments": string(data), "status": "completed"}
}

// codexMCPConfig adds Anvil's MCP server, as the manual writes it, to a
// Codex configuration in its default sandbox (workspace-write), where it
// asks before a tool marked destructive; approve lists the tools the
// manual's approval_mode lines let through. Codex starts MCP servers with
// a minimal environment: Anvil's places are given in the entry.
func (e *hookEnv) codexMCPConfig(m *responsesModel, approve ...string) string {
	var env []string
	for _, v := range e.vars {
		name, value, _ := strings.Cut(v, "=")
		if name != "PATH" {
			env = append(env, fmt.Sprintf("%s = %q", name, value))
		}
	}
	cfg := codexConfig(m, e.ws, "workspace-write") + fmt.Sprintf(`
[mcp_servers.anvil]
command = %q
args = ["mcp", "-C", %q]
env = { %s }
`, filepath.Join(binDir, "anvil"), e.ws, strings.Join(env, ", "))
	for _, tool := range approve {
		cfg += fmt.Sprintf("\n[mcp_servers.anvil.tools.%s]\napproval_mode = \"approve\"\n", tool)
	}
	return cfg
}

// Codex CLI itself calls Anvil's apply_changes over MCP, found as a model
// finds it, through Codex's tool search. Marked
// destructive (truthfully), it is refused by a headless Codex unless the
// user approves it as the manual says; approved, a clean change set is
// committed and a breaking one is refused with the importer named, the
// files as they were.
func TestCodexMCPApplyChanges(t *testing.T) {
	clean := map[string]any{"changes": []map[string]string{{"path": "src/a.ts", "content": "export const one: number = 2;\n"}}}
	breaking := map[string]any{"changes": []map[string]string{{"path": "src/a.ts", "content": "export const one: string = \"1\";\n"}}}
	for _, tc := range []struct {
		name    string
		approve []string
		change  map[string]any
		wantOut []string // in the tool's output the model reads
		wantA   string   // src/a.ts afterwards
	}{
		{"not approved", nil, clean, []string{"requires approval"}, hookProject["src/a.ts"]},
		{"approved, clean", []string{"apply_changes"}, clean, []string{`"committed":true`, `"verdict":"clean"`}, "export const one: number = 2;\n"},
		{"approved, breaking", []string{"apply_changes"}, breaking, []string{`"verdict":"rejected"`, "src/b.ts"}, hookProject["src/a.ts"]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newHookEnv(t)
			m := newResponsesCalls(t, []map[string]any{mcpCall(t, "call_1", "apply_changes", tc.change)}, nil)
			m.find = &mcpTool{namespace: "mcp__anvil", name: "apply_changes"}
			out := e.execCodex(t, e.codexMCPConfig(m, tc.approve...))
			reqs := m.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests of the loop, want 2:\n%s\n%s", len(reqs), lastOf(reqs), out)
			}
			got := toolOutput(t, reqs[1], "call_1")
			for _, w := range tc.wantOut {
				if !strings.Contains(got, w) {
					t.Errorf("the tool's output lacks %s: %s\n%s", w, got, out)
				}
			}
			if a := e.read(t, "src/a.ts"); a != tc.wantA {
				t.Errorf("src/a.ts is %q, want %q", a, tc.wantA)
			}
		})
	}
}
