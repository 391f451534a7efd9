package slash

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestListFindRequest(t *testing.T) {
	ws := testfs.Tree(t, map[string]string{
		".anvil/commands/review.md": "# Review code for bugs\nReview $ARGS for bugs and type errors.\n",
		".anvil/commands/test.md":   "Write tests\nWrite unit tests for uncovered functions.\n",
		".anvil/commands/notes.txt": "not a command",
	})
	user := testfs.Tree(t, map[string]string{
		"anvil/commands/review.md": "Shadowed\nnever used\n",
		"anvil/commands/doc.md":    "Document exports\nAdd doc comments to $ARGS.\n",
	})
	dirs := Dirs(ws, user)
	cmds, err := List(dirs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name+"="+c.Description)
	}
	if got := strings.Join(names, "|"); got != "doc=Document exports|review=Review code for bugs|test=Write tests" {
		t.Fatalf("list: %s", got)
	}
	c, err := Find(dirs, "review")
	if err != nil || c.Path != filepath.Join(ws, ".anvil/commands/review.md") {
		t.Fatalf("find: %+v %v", c, err)
	}
	if got := c.Request("src/auth.ts"); !strings.Contains(got, "Review src/auth.ts for bugs") {
		t.Errorf("request: %q", got)
	}
	test, _ := Find(dirs, "test")
	if got := test.Request("focus on db.ts"); !strings.HasSuffix(got, "\n\nfocus on db.ts") {
		t.Errorf("args appended: %q", got)
	}
	for _, bad := range []string{"../x", "", ".hidden", "nope"} {
		if _, err := Find(dirs, bad); err == nil {
			t.Errorf("Find(%q) succeeded", bad)
		}
	}
}
