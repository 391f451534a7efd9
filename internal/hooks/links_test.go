package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// An edit through a link inside the workspace to a file outside it is
// refused, for every client's edit tools, --strict or not: the project
// reads the file by the link's name, yet the write lands where no check
// of the workspace and no end-of-turn snapshot looks. Before, it was let
// through as "outside the workspace: not checked", and the end of the
// turn never saw it (its walk does not follow links).
func TestEditThroughALinkOutOfTheWorkspaceIsRefused(t *testing.T) {
	outside := testfs.Tree(t, map[string]string{"shared.ts": "export const n: number = 1;\n"})
	dir := testfs.Tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.ts": "import { n } from \"./shared\";\nexport const m = n;\n"})
	if err := os.Symlink(filepath.Join(outside, "shared.ts"), filepath.Join(dir, "shared.ts")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "shared.ts")
	object := func(kv ...string) json.RawMessage {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		data, _ := json.Marshal(m)
		return data
	}
	patch := "*** Begin Patch\n*** Update File: " + link + "\n@@\n-export const n: number = 1;\n+export const n: string = \"one\";\n*** End Patch\n"
	for _, tc := range []struct {
		client Client
		tool   string
		input  json.RawMessage
	}{
		{Claude, "Write", object("file_path", link, "content", "export const n: string = \"one\";\n")},
		{Claude, "Edit", object("file_path", link, "old_string", "number = 1", "new_string", "string = \"one\"")},
		{Codex, "apply_patch", object("command", patch)},
		{Gemini, "write_file", object("file_path", link, "content", "export const n: string = \"one\";\n")},
		{OpenCode, "write", object("filePath", link, "content", "export const n: string = \"one\";\n")},
		{Copilot, "edit", object("path", link, "old_str", "number = 1", "new_str", "string = \"one\"")},
		// Loosely matched edits, whose result Anvil does not compute
		// (before, let through to be checked after the fact, where the
		// file is outside the workspace and nothing checked it).
		{Gemini, "replace", object("file_path", link, "old_string", "  number = 1", "new_string", "  string = \"one\"")},
		{OpenCode, "edit", object("filePath", link, "oldString", "  number = 1", "newString", "  string = \"one\"")},
	} {
		t.Run(string(tc.client)+" "+tc.tool, func(t *testing.T) {
			g := &Gate{Client: tc.client, Getenv: func(string) string { return "" }, Snapshots: NewStore(t.TempDir())}
			a := g.PreEdit(context.Background(), Input{SessionID: "s", Cwd: dir, ToolName: tc.tool, ToolInput: tc.input})
			if !a.Deny || !strings.Contains(a.Reason, "link out of the workspace") {
				t.Errorf("answer %+v, want a refusal naming the link", a)
			}
		})
	}
}
