package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rename every client's suite runs (Claude Code, Codex, Gemini CLI),
// through OpenCode and Copilot CLI: the first edit is told the importer it
// breaks, the next two fix it, and the turn ends at the first try.
func TestOpenCodeRenameAcrossFiles(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{opencodeRead(e, "src/a.ts"), opencodeRead(e, "src/b.ts"), opencodeRead(e, "src/c.ts")},
		[]toolCall{opencodeEdit(e, "src/a.ts", "export const one", "export const uno")},
		[]toolCall{opencodeEdit(e, "src/b.ts", renameB[0], renameB[1])},
		[]toolCall{opencodeEdit(e, "src/c.ts", renameC[0], renameC[1])},
		nil,
	)
	out := e.runOpenCode(t, m)
	checkRename(t, e, m.requests(), out)
}

func TestCopilotRenameAcrossFiles(t *testing.T) {
	e := newHookEnv(t)
	m := newChatModel(t,
		[]toolCall{copilotView(e, "src/a.ts"), copilotView(e, "src/b.ts"), copilotView(e, "src/c.ts")},
		[]toolCall{copilotEdit(e, "src/a.ts", "export const one", "export const uno")},
		[]toolCall{copilotEdit(e, "src/b.ts", renameB[0], renameB[1])},
		[]toolCall{copilotEdit(e, "src/c.ts", renameC[0], renameC[1])},
		nil,
	)
	out := e.runCopilot(t, m)
	checkRename(t, e, m.requests(), out)
}

// renameB and renameC are the rename's edits of the importers (old, new).
var (
	renameB = [2]string{"import { one } from \"./a\";\n\nexport const two: number = one + 1;", "import { uno } from \"./a\";\n\nexport const dos: number = uno + 1;"}
	renameC = [2]string{"import { two } from \"./b\";\n\nexport const three: number = two + 1;", "import { dos } from \"./b\";\n\nexport const three: number = dos + 1;"}
)

func checkRename(t *testing.T, e *hookEnv, reqs []string, out string) {
	t.Helper()
	if len(reqs) != 5 {
		t.Fatalf("%d requests of the loop, want 5 (a refused end of turn adds one):\n%s\n%s", len(reqs), lastOf(reqs), out)
	}
	if !strings.Contains(reqs[2], "brings 1 new error into src/b.ts") {
		t.Errorf("the first edit's context did not name b.ts:\n%s", reqs[2])
	}
	for rel, want := range map[string]string{"src/a.ts": "export const uno", "src/b.ts": "dos: number = uno", "src/c.ts": "dos + 1"} {
		if got := e.read(t, rel); !strings.Contains(got, want) {
			t.Errorf("%s: %q", rel, got)
		}
	}
}

// linkOut lays out src/shared.ts as a link to a file outside the
// workspace, which the project reads by the link's name; it returns the
// outside file.
func linkOut(t *testing.T, e *hookEnv) string {
	t.Helper()
	outside := filepath.Join(filepath.Dir(e.ws), "elsewhere", "shared.ts")
	if err := os.MkdirAll(filepath.Dir(outside), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte(linkedBefore), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, e.abs("src/shared.ts")); err != nil {
		t.Fatal(err)
	}
	return outside
}

const (
	linkedBefore = "export const n: number = 1;\n"
	linkedAfter  = "export const n: string = \"one\";\n"
)

// A write through a link inside the workspace to a file outside it is
// refused by each real client's pre-edit hook, without --strict: the
// outside file stays as it was, and the model is told why (by Gemini
// CLI itself, which refuses it before its hook).
func TestAWriteThroughALinkOutIsRefused(t *testing.T) {
	const refused = "link out of the workspace"
	shared := func(e *hookEnv) string { return e.abs("src/shared.ts") }
	for _, tc := range []struct {
		client string
		// run has the client write src/shared.ts through the link, and
		// returns the model's requests and the client's output.
		run  func(t *testing.T, e *hookEnv) ([]string, string)
		want string
	}{
		{"claude", func(t *testing.T, e *hookEnv) ([]string, string) {
			m := newScriptedModel(t, []toolCall{read(e, "src/shared.ts")},
				[]toolCall{{"Write", map[string]any{"file_path": shared(e), "content": linkedAfter}}}, nil)
			out := e.runClaude(t, m)
			return m.requests(), out
		}, refused},
		// Gemini CLI resolves the path itself and refuses a write outside
		// its workspace before any hook runs.
		{"gemini", func(t *testing.T, e *hookEnv) ([]string, string) {
			m := newGenerateModel(t, []toolCall{{"write_file", map[string]any{"file_path": shared(e), "content": linkedAfter}}}, nil)
			out := e.runGemini(t, m)
			return m.requests(), out
		}, "outside the allowed workspace"},
		{"codex", func(t *testing.T, e *hookEnv) ([]string, string) {
			m := newResponsesModel(t, []string{updatePatch("src/shared.ts", strings.TrimSuffix(linkedBefore, "\n"), strings.TrimSuffix(linkedAfter, "\n"))}, nil)
			out := e.runCodex(t, m)
			return m.requests(), out
		}, refused},
		{"opencode", func(t *testing.T, e *hookEnv) ([]string, string) {
			m := newChatModel(t, []toolCall{opencodeRead(e, "src/shared.ts")},
				[]toolCall{{"write", map[string]any{"filePath": shared(e), "content": linkedAfter}}}, nil)
			out := e.runOpenCode(t, m)
			return m.requests(), out
		}, refused},
		{"copilot", func(t *testing.T, e *hookEnv) ([]string, string) {
			m := newChatModel(t, []toolCall{copilotView(e, "src/shared.ts")},
				[]toolCall{copilotEdit(e, "src/shared.ts", "number = 1", "string = \"one\"")}, nil)
			out := e.runCopilot(t, m)
			return m.requests(), out
		}, refused},
	} {
		t.Run(tc.client, func(t *testing.T) {
			e := newHookEnv(t)
			outside := linkOut(t, e)
			reqs, out := tc.run(t, e)
			linkRefused(t, outside, reqs, out, tc.want)
		})
	}
}

func linkRefused(t *testing.T, outside string, reqs []string, out, want string) {
	t.Helper()
	if got, _ := os.ReadFile(outside); string(got) != linkedBefore {
		t.Errorf("the write reached the file outside the workspace: %q\n%s", got, out)
	}
	for _, r := range reqs {
		if strings.Contains(r, want) {
			return
		}
	}
	t.Errorf("the model was not told the write goes out through a link (%d requests):\n%s\n%s", len(reqs), lastOf(reqs), out)
}

// sessionsResumable checks that every session snapshot the hooks kept
// names the client's record of the session, and that it is there: while
// it is, the snapshot is never pruned (the client can resume the
// session and end another turn).
func sessionsResumable(t *testing.T, e *hookEnv) {
	t.Helper()
	manifests, _ := filepath.Glob(filepath.Join(e.state(), "hooks", "sessions", "*.json"))
	if len(manifests) == 0 {
		t.Fatal("no session snapshot was kept")
	}
	for _, p := range manifests {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Transcript string }
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(m.Transcript); m.Transcript == "" || err != nil || !info.Mode().IsRegular() {
			t.Errorf("the session's snapshot names no record of the session the client keeps (%q: %v)", m.Transcript, err)
		}
	}
}
