package tsserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// start runs the TypeScript 6 tsserver that scripts/install-servers.sh
// installs, in a copy of files; a missing install fails the test.
func start(t *testing.T, files map[string]string) (*Client, string) {
	t.Helper()
	tools := os.Getenv("ANVIL_TOOLS_DIR")
	if tools == "" {
		home, _ := os.UserHomeDir()
		tools = filepath.Join(home, ".local", "share", "anvil", "tools")
	}
	tsserver := filepath.Join(tools, "ts-legacy", "node_modules", "typescript", "lib", "tsserver.js")
	if _, err := os.Stat(tsserver); err != nil {
		t.Fatalf("tsserver.js not found (run scripts/install-servers.sh): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testfs.Write(t, dir, files)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, Config{Name: "tsserver", Node: node, TSServer: tsserver, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	return c, dir
}

var project = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
	"src/types.ts":  "export interface User { id: string; name: string }\n",
	"src/db.ts":     "import { User } from \"./types\";\nexport function find(id: string): User { return { id, name: \"x\" }; }\n",
}

func codes(ds []lsp.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.CodeString())
	}
	return strings.Join(out, ",")
}

// An answer reflects every change sent before it, for open and closed
// files alike, and closing a file goes back to the disk.
func TestDiagnosticsFollowOverlays(t *testing.T) {
	c, dir := start(t, project)
	ctx := context.Background()
	types, db := filepath.Join(dir, "src/types.ts"), filepath.Join(dir, "src/db.ts")
	if err := c.UpdateOpen(ctx, []OpenFile{{File: types, ProjectRootPath: dir}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	ds, err := c.Diagnostics(ctx, db, "")
	if err != nil || len(ds) != 0 {
		t.Fatalf("closed importer before: %v %v", ds, err)
	}
	old := project["src/types.ts"]
	renamed := strings.Replace(old, "User", "Account", 1)
	if err := c.UpdateOpen(ctx, nil, []FileCodeEdits{Replace(types, old, renamed)}, nil); err != nil {
		t.Fatal(err)
	}
	ds, err = c.Diagnostics(ctx, db, "")
	if err != nil || codes(ds) != "2305" {
		t.Fatalf("closed importer after the rename: %v %v, want TS2305", ds, err)
	}
	if err := c.UpdateOpen(ctx, nil, nil, []string{types}); err != nil {
		t.Fatal(err)
	}
	if ds, err = c.Diagnostics(ctx, db, ""); err != nil || len(ds) != 0 {
		t.Fatalf("after closing the overlay: %v %v", ds, err)
	}
	info, err := c.ProjectInfo(ctx, db, false)
	if err != nil || info.ConfigFileName != filepath.Join(dir, "tsconfig.json") {
		t.Fatalf("project of db.ts: %+v %v", info, err)
	}
}

// With watch events, a change on disk reaches tsserver when reported and
// not before.
func TestWatchChange(t *testing.T) {
	c, dir := start(t, project)
	if !c.WatchEvents() {
		t.Fatalf("TypeScript %s should take watch events", c.Version())
	}
	ctx := context.Background()
	types, db := filepath.Join(dir, "src/types.ts"), filepath.Join(dir, "src/db.ts")
	if err := c.UpdateOpen(ctx, []OpenFile{{File: db, ProjectRootPath: dir}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if ds, err := c.Diagnostics(ctx, db, ""); err != nil || len(ds) != 0 {
		t.Fatalf("before: %v %v", ds, err)
	}
	if err := os.WriteFile(types, []byte("export interface Account { id: string }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := c.WatchChange(ctx, nil, []string{types}, nil)
	if err != nil || n == 0 {
		t.Fatalf("no watcher covered %s (%d, %v); watchers: %v", types, n, err, c.Watchers())
	}
	if ds, err := c.Diagnostics(ctx, db, ""); err != nil || codes(ds) != "2305" {
		t.Fatalf("after the disk change: %v %v", ds, err)
	}
}

// Definition, references and rename answer in LSP terms.
func TestNavigation(t *testing.T) {
	c, dir := start(t, project)
	ctx := context.Background()
	types, db := filepath.Join(dir, "src/types.ts"), filepath.Join(dir, "src/db.ts")
	if err := c.UpdateOpen(ctx, []OpenFile{{File: db, ProjectRootPath: dir}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	at := lsp.Position{Line: 0, Character: 9} // "User" in db.ts's import
	defs, err := c.Definition(ctx, lsp.URIFromPath(db), at)
	if err != nil || len(defs) != 1 || defs[0].URI.Path() != types || defs[0].Range.Start != (lsp.Position{Line: 0, Character: 17}) {
		t.Fatalf("definition: %+v %v", defs, err)
	}
	refs, err := c.References(ctx, lsp.URIFromPath(db), at)
	if err != nil || len(refs) != 3 {
		t.Fatalf("references: %+v %v", refs, err)
	}
	edit, err := c.Rename(ctx, lsp.URIFromPath(db), at, "Account")
	if err != nil || edit == nil || len(edit.Changes) != 2 {
		t.Fatalf("rename: %+v %v", edit, err)
	}
	data, _ := os.ReadFile(db)
	got := string(lsp.ApplyEdits(data, edit.Changes[lsp.URIFromPath(db)]))
	if !strings.Contains(got, "import { Account } from") || !strings.Contains(got, "): Account {") {
		t.Fatalf("renamed db.ts:\n%s", got)
	}
}

func TestEndOf(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Location
	}{
		{"", Location{1, 1}},
		{"ab", Location{1, 3}},
		{"ab\n", Location{2, 1}},
		{"a\nb😀", Location{2, 4}},
		{"a\r\nb", Location{2, 2}},
		{"a\rb", Location{2, 2}},
		{"a\r\rb", Location{3, 2}},
		{"a\u2028b\u2029cd", Location{3, 3}},
		{"\r\n", Location{2, 1}},
	} {
		if got := endOf(tc.text); got != tc.want {
			t.Errorf("endOf(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// A replacement of the whole text leaves nothing of the old one, whatever
// line breaks it holds: tsserver is the judge of where its lines end. A
// rest of the old text left in place would be checked as part of the
// file (here it declares bad a second time).
func TestReplaceTakesTheWholeText(t *testing.T) {
	c, dir := start(t, project)
	ctx := context.Background()
	file := filepath.Join(dir, "src/breaks.ts")
	for _, tc := range []struct{ name, brk string }{
		{"line feed", "\n"}, {"carriage return and line feed", "\r\n"}, {"a lone carriage return", "\r"},
		{"line separator", "\u2028"}, {"paragraph separator", "\u2029"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := "// one" + tc.brk + "// two\nexport const bad: number = 1;\n"
			if err := c.UpdateOpen(ctx, []OpenFile{{File: file, FileContent: &old, ProjectRootPath: dir}}, nil, nil); err != nil {
				t.Fatal(err)
			}
			defer c.UpdateOpen(ctx, nil, nil, []string{file})
			if ds, err := c.Diagnostics(ctx, file, ""); err != nil || len(ds) != 0 {
				t.Fatalf("the old text: %v %v", ds, err)
			}
			replaced := "export const bad: number = 2;\n"
			if err := c.UpdateOpen(ctx, nil, []FileCodeEdits{Replace(file, old, replaced)}, nil); err != nil {
				t.Fatal(err)
			}
			if ds, err := c.Diagnostics(ctx, file, ""); err != nil || len(ds) != 0 {
				t.Errorf("after replacing the whole text: %v %v (a rest of the old text is still there)", ds, err)
			}
		})
	}
}
