package hooks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Each tool call leaves the file as Claude Code or Gemini CLI writes it;
// a call the client will fail itself, and a tool that is no source edit,
// pass unchecked with the reason.
func TestClaudeAndGeminiEdits(t *testing.T) {
	disk := map[string]string{
		"/ws/a.ts":     "const x = 1;\nconst y = 1;\n",
		"/ws/crlf.ts":  "let a = 1;\r\nlet b = 2;\r\n",
		"/ws/empty.ts": "",
	}
	read := func(abs string) ([]byte, bool, error) {
		s, ok := disk[abs]
		return []byte(s), ok, nil
	}
	tests := []struct {
		client Client
		tool   string
		input  string
		path   string
		want   string
		pass   string
	}{
		{Claude, "Edit", `{"file_path": "/ws/a.ts", "old_string": "const x = 1", "new_string": "const x = 2"}`, "/ws/a.ts", "const x = 2;\nconst y = 1;\n", ""},
		{Claude, "Edit", `{"file_path": "/ws/a.ts", "old_string": "= 1", "new_string": "= 3", "replace_all": true}`, "/ws/a.ts", "const x = 3;\nconst y = 3;\n", ""},
		{Claude, "Edit", `{"file_path": "/ws/a.ts", "old_string": "= 1", "new_string": "= 3"}`, "", "", "2 times"},
		{Claude, "Edit", `{"file_path": "/ws/a.ts", "old_string": "nope", "new_string": "x"}`, "", "", "not in"},
		{Claude, "Edit", `{"file_path": "/ws/a.ts", "old_string": "const", "new_string": "const"}`, "", "", "the same"},
		{Claude, "Edit", `{"file_path": "/ws/new.ts", "old_string": "", "new_string": "export {};\n"}`, "/ws/new.ts", "export {};\n", ""},
		{Claude, "Edit", `{"file_path": "/ws/empty.ts", "old_string": "", "new_string": "x"}`, "/ws/empty.ts", "x", ""},
		{Claude, "Edit", `{"file_path": "/ws/a.ts", "old_string": "", "new_string": "x"}`, "", "", "empty old_string"},
		{Claude, "Edit", `{"file_path": "/ws/missing.ts", "old_string": "a", "new_string": "b"}`, "", "", "does not exist"},
		{Claude, "Edit", `{"file_path": "/ws/crlf.ts", "old_string": "let a = 1;\nlet b", "new_string": "let a = 5;\nlet b"}`, "/ws/crlf.ts", "let a = 5;\nlet b = 2;\n", ""},
		{Claude, "MultiEdit", `{"file_path": "/ws/a.ts", "edits": [{"old_string": "const x = 1", "new_string": "const z = 1"}, {"old_string": "const z", "new_string": "let z"}]}`, "/ws/a.ts", "let z = 1;\nconst y = 1;\n", ""},
		{Claude, "MultiEdit", `{"file_path": "/ws/a.ts", "edits": [{"old_string": "const x = 1", "new_string": "q"}, {"old_string": "const x", "new_string": "r"}]}`, "", "", "not in"},
		{Claude, "Write", `{"file_path": "a.ts", "content": "whole\n"}`, "/ws/a.ts", "whole\n", ""},
		{Claude, "NotebookEdit", `{"notebook_path": "/ws/n.ipynb", "new_source": "x"}`, "", "", "notebook"},
		{Claude, "Bash", `{"command": "ls"}`, "", "", "not an edit tool"},
		{Gemini, "write_file", `{"file_path": "/ws/b.ts", "content": "b\n"}`, "/ws/b.ts", "b\n", ""},
		{Gemini, "replace", `{"file_path": "/ws/a.ts", "old_string": "const y", "new_string": "let y", "instruction": "why"}`, "/ws/a.ts", "const x = 1;\nlet y = 1;\n", ""},
		{Gemini, "replace", `{"file_path": "/ws/a.ts", "old_string": "= 1", "new_string": "= 2"}`, "", "", "allow_multiple"},
		{Gemini, "replace", `{"file_path": "/ws/a.ts", "old_string": "= 1", "new_string": "= 2", "allow_multiple": true}`, "/ws/a.ts", "const x = 2;\nconst y = 2;\n", ""},
		{Gemini, "replace", `{"file_path": "/ws/a.ts", "old_string": "= 1", "new_string": "= 2", "expected_replacements": 2}`, "/ws/a.ts", "const x = 2;\nconst y = 2;\n", ""},
		{Gemini, "replace", `{"file_path": "/ws/a.ts", "old_string": "zzz", "new_string": "y"}`, "", "", "loosely"},
		{Gemini, "replace", `{"file_path": "/ws/a.ts", "old_string": "const  x = 1", "new_string": "const x = 2"}`, "", "", "loosely"},
		{OpenCode, "edit", `{"filePath": "/ws/a.ts", "oldString": "const x = 1", "newString": "const x = 2"}`, "/ws/a.ts", "const x = 2;\nconst y = 1;\n", ""},
		{OpenCode, "edit", `{"filePath": "/ws/a.ts", "oldString": "= 1", "newString": "= 3", "replaceAll": true}`, "/ws/a.ts", "const x = 3;\nconst y = 3;\n", ""},
		{OpenCode, "edit", `{"filePath": "/ws/a.ts", "oldString": "= 1", "newString": "= 3"}`, "", "", "2 times"},
		{OpenCode, "edit", `{"filePath": "/ws/a.ts", "oldString": "  const x = 1", "newString": "const x = 2"}`, "", "", "loosely"},
		{OpenCode, "edit", `{"filePath": "/ws/new.ts", "oldString": "", "newString": "export {};\n"}`, "/ws/new.ts", "export {};\n", ""},
		{OpenCode, "write", `{"filePath": "b.ts", "content": "b\n"}`, "/ws/b.ts", "b\n", ""},
		{OpenCode, "apply_patch", `{"patchText": "*** Begin Patch\n*** Update File: a.ts\n@@\n-const y = 1;\n+const y = 5;\n*** End Patch"}`, "/ws/a.ts", "const x = 1;\nconst y = 5;\n", ""},
		{OpenCode, "bash", `{"command": "ls"}`, "", "", "not an edit tool"},
		{Copilot, "edit", `{"path": "/ws/a.ts", "old_str": "const y = 1", "new_str": "let y = 1"}`, "/ws/a.ts", "const x = 1;\nlet y = 1;\n", ""},
		{Copilot, "edit", `{"path": "/ws/a.ts", "old_str": "= 1", "new_str": "= 2"}`, "", "", "2 times"},
		{Copilot, "edit", `{"path": "/ws/a.ts", "old_str": "nope", "new_str": "x"}`, "", "", "not in"},
		{Copilot, "create", `{"path": "/ws/c.ts", "file_text": "c\n"}`, "/ws/c.ts", "c\n", ""},
		{Copilot, "create", `{"path": "/ws/a.ts", "file_text": "c\n"}`, "", "", "exists"},
		{Copilot, "apply_patch", `"*** Begin Patch\n*** Add File: d.ts\n+d\n*** End Patch"`, "/ws/d.ts", "d\n", ""},
		{Gemini, "run_shell_command", `{"command": "sed -i s/x/y/ a.ts"}`, "", "", "not an edit tool"},
		{Codex, "Bash", `{"command": "ls"}`, "", "", "not an edit tool"},
	}
	for _, tc := range tests {
		t.Run(string(tc.client)+"/"+tc.tool, func(t *testing.T) {
			got, err := Edits(tc.client, tc.tool, json.RawMessage(tc.input), "/ws", read)
			if tc.pass == "loosely" {
				var u *Unmodelled
				if !errors.As(err, &u) {
					t.Fatalf("%s: got %+v, %v; want an edit Anvil does not compute", tc.input, got, err)
				}
				return
			}
			if tc.pass != "" {
				var p *Pass
				if !errors.As(err, &p) || !strings.Contains(p.Reason, tc.pass) {
					t.Fatalf("%s: got %+v, %v; want a pass saying %q", tc.input, got, err, tc.pass)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.input, err)
			}
			if len(got) != 1 || got[0].Path != tc.path || string(got[0].Content) != tc.want {
				t.Fatalf("%s: got %+v, want %s = %q", tc.input, got, tc.path, tc.want)
			}
		})
	}
}

// Input that is not the tool's JSON is an error (the hook then lets the
// call through, saying so), never a panic.
func TestMalformedToolInput(t *testing.T) {
	read := func(string) ([]byte, bool, error) { return nil, false, nil }
	for _, tc := range []struct {
		c     Client
		tool  string
		input string
	}{
		{Claude, "Edit", `[1,2]`},
		{Claude, "Edit", `{"file_path": "/ws/a.ts"}`},
		{Claude, "Write", `{"file_path": ""}`},
		{Claude, "Write", `{"file_path": "a.ts"}`},
		{Gemini, "replace", `{"file_path": "/ws/a.ts", "old_string": 3}`},
		{Codex, "apply_patch", `{"command": 3}`},
		{Codex, "apply_patch", `null`},
	} {
		_, err := Edits(tc.c, tc.tool, json.RawMessage(tc.input), "/ws", read)
		var p *Pass
		if err == nil && !errors.As(err, &p) {
			t.Errorf("%s %s: no error", tc.tool, tc.input)
		}
	}
}
