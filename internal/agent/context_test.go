package agent

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// A picture mentioned in the request (in the workspace, or anywhere by
// its absolute path, as a pasted screenshot) reaches the agents as an
// image block; a text file outside the workspace does not.
func TestPicturesAttach(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 16)
	dir := testfs.Tree(t, map[string]string{"docs/shot.png": png, "a.ts": "x\n"})
	outside := filepath.Join(t.TempDir(), "Screenshot.png")
	os.WriteFile(outside, []byte(png), 0o644)
	secret := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(secret, []byte("secret"), 0o644)
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	pc := LoadContext(root, "fix the layout in @docs/shot.png and @"+outside+" (see @"+secret+")", "", "")
	if len(pc.Images) != 2 || pc.Images[0].Path != "docs/shot.png" || pc.Images[1].Path != outside || pc.Images[0].MediaType != "image/png" {
		t.Fatalf("images: %+v", pc.Images)
	}
	blocks := pc.Blocks()
	if len(blocks) != 2 || blocks[0].Type != llm.TypeImage || blocks[0].Data != base64.StdEncoding.EncodeToString([]byte(png)) {
		t.Fatalf("blocks: %+v", blocks)
	}
	if len(pc.Attachments) != 0 || len(pc.Problems) != 1 || !strings.Contains(pc.Problems[0], "notes.txt") {
		t.Fatalf("a text file outside the workspace: attachments %v, problems %v", pc.Attachments, pc.Problems)
	}
	if !strings.Contains(pc.Format(), "attached the picture docs/shot.png") {
		t.Errorf("the prompt does not say a picture is attached:\n%s", pc.Format())
	}
}

// The rules of a subdirectory come with the first tool result that
// touches a file under it, once.
func TestRulesWhereTheCodeIs(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"AGENTS.md": "root rules\n", "pkg/AGENTS.md": "pkg rules: no panics\n", "pkg/sub/.anvil/rules.md": "sub rules\n", "pkg/sub/a.go": "package sub\n", "other/b.go": "package other\n"})
	root, _ := workspace.New(dir)
	d := &DirRules{Root: root}
	shown := map[string]bool{}
	note := d.note([]byte(`{"path":"pkg/sub/a.go"}`), shown)
	if !strings.Contains(note, "pkg rules: no panics") || !strings.Contains(note, "sub rules") || strings.Contains(note, "root rules") {
		t.Fatalf("note:\n%s", note)
	}
	if again := d.note([]byte(`{"path":"pkg/sub/a.go"}`), shown); again != "" {
		t.Errorf("shown twice: %s", again)
	}
	if other := d.note([]byte(`{"path":"other/b.go"}`), shown); other != "" {
		t.Errorf("rules for a directory without any: %s", other)
	}
}
