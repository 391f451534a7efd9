package tools

import (
	"context"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/search"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// lspFixture copies testdata/projects/name and returns the workspace with
// a server manager (overrides replace built-in specs).
func lspFixture(t *testing.T, name string, overrides ...servers.Spec) (*workspace.Root, *syntax.Parser, *servers.Manager) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := testfs.Copy(t, filepath.Join(filepath.Dir(file), "..", "..", "testdata", "projects", name))
	// A compile database names absolute directories: the copy's.
	if data, err := os.ReadFile(filepath.Join(dir, "compile_commands.json")); err == nil {
		testfs.Write(t, dir, map[string]string{"compile_commands.json": strings.ReplaceAll(string(data), "@ROOT@", dir)})
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := servers.NewRegistry(servers.RegistryOptions{Policy: execpolicy.New(execpolicy.Options{Root: root.Dir(), Trusted: true, Environ: os.Environ()}), Overrides: overrides, ToolsDir: servers.DefaultToolsDir(os.Getenv)})
	mgr := servers.NewManager(root.Dir(), reg, servers.ManagerOptions{})
	parser := syntax.New(syntax.Options{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		mgr.Shutdown(ctx)
		parser.Close()
	})
	return root, parser, mgr
}

func TestFindSymbol(t *testing.T) {
	for _, tc := range []struct {
		project, args string
		server        string
		def           string
		refFiles      []string
	}{
		{"ts", `{"name":"User"}`, "tsgo", "src/types.ts:1:18", []string{"src/auth.ts", "src/db.ts", "src/types.ts"}},
		{"ts", `{"path":"src/auth.ts","line":4,"name":"User"}`, "tsgo", "src/types.ts:1:18", []string{"src/auth.ts", "src/db.ts", "src/types.ts"}},
		{"go", `{"name":"FindUser"}`, "gopls", "db/db.go:12:6", []string{"auth/auth.go", "db/db.go"}},
		{"py", `{"name":"find_user"}`, "pyright", "app/db.py:11:5", []string{"app/auth.py", "app/db.py"}},
		// clangd finds references only in the files it has analysed: the
		// translation units that include the declaration are opened first.
		{"c", `{"path":"src/report.c","line":3,"name":"area"}`, "clangd", "src/shapes.c:4:5", []string{"include/shapes.h", "src/report.c", "src/shapes.c"}},
		{"c", `{"path":"include/shapes.h","line":4,"name":"point"}`, "clangd", "include/shapes.h:4:8", []string{"include/shapes.h", "src/main.c", "src/report.c", "src/report.h", "src/shapes.c"}},
	} {
		t.Run(tc.project+" "+tc.args, func(t *testing.T) {
			root, parser, mgr := lspFixture(t, tc.project)
			res := call(t, Adapt(NewFindSymbol(root, parser, mgr, search.New(root, search.Options{}))), tc.args)
			if res.IsError {
				t.Fatal(res.Output)
			}
			rep := res.Data.([]SymbolReport)[0]
			if !rep.Verified || rep.Server != tc.server {
				t.Fatalf("not answered by %s: %+v\n%s", tc.server, rep, res.Output)
			}
			if len(rep.Definitions) != 1 || siteString(rep.Definitions[0]) != tc.def {
				t.Errorf("definitions = %+v, want %s", rep.Definitions, tc.def)
			}
			files := map[string]bool{}
			for _, r := range rep.References {
				files[r.Path] = true
			}
			for _, f := range tc.refFiles {
				if !files[f] {
					t.Errorf("no reference in %s:\n%s", f, res.Output)
				}
			}
			if len(files) != len(tc.refFiles) {
				t.Errorf("references in %v, want %v", files, tc.refFiles)
			}
		})
	}
}

// Without a server the answer comes from tree-sitter and text search, and
// says it is unverified.
func TestFindSymbolFallback(t *testing.T) {
	root, parser, mgr := lspFixture(t, "ts", servers.Spec{Name: "tsgo", Command: "no-such-server"})
	res := call(t, Adapt(NewFindSymbol(root, parser, mgr, search.New(root, search.Options{}))), `{"name":"displayName"}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	rep := res.Data.([]SymbolReport)[0]
	if rep.Verified || !strings.Contains(res.Output, "unverified") {
		t.Fatalf("fallback not labelled unverified:\n%s", res.Output)
	}
	if len(rep.Definitions) != 1 || rep.Definitions[0].Path != "src/auth.ts" || len(rep.References) != 3 {
		t.Fatalf("fallback found %+v", rep)
	}
}

func TestFindSymbolBadInput(t *testing.T) {
	root, parser, mgr := lspFixture(t, "ts")
	tool := Adapt(NewFindSymbol(root, parser, mgr, search.New(root, search.Options{})))
	for args, want := range map[string]string{
		`{}`:                     "give name",
		`{"name":"NoSuchThing"}`: "no declaration",
		`{"line":3}`:             "line needs path",
		`{"path":"src/db.ts","line":900,"column":1}`: "has no line 900",
		`{"path":"src/db.ts","line":1,"name":"zzz"}`: "does not appear",
		`{"path":"../x.ts","line":1,"column":1}`:     "outside the workspace",
		`{"name":"User","path":"/etc"}`:              "outside the workspace",
	} {
		res := call(t, tool, args)
		if !res.IsError || !strings.Contains(res.Output, want) {
			t.Errorf("%s: want error %q, got:\n%s", args, want, res.Output)
		}
	}
}

func TestRenameSymbol(t *testing.T) {
	root, parser, mgr := lspFixture(t, "ts")
	before := testfs.Snapshot(t, root.Dir())
	res := call(t, Adapt(NewRenameSymbol(root, parser, mgr, nil)), `{"name":"User","new_name":"Account"}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	data := res.Data.(RenameData)
	var paths []string
	for _, c := range data.Changes {
		paths = append(paths, c.Path)
		if c.Content == nil || wordUser.MatchString(*c.Content) || !strings.Contains(*c.Content, "Account") {
			t.Errorf("%s not renamed:\n%s", c.Path, *c.Content)
		}
	}
	if strings.Join(paths, ",") != "src/auth.ts,src/db.ts,src/types.ts" {
		t.Errorf("changed %v", paths)
	}
	if after := testfs.Snapshot(t, root.Dir()); len(after) != len(before) || after["src/types.ts"] != before["src/types.ts"] {
		t.Error("rename_symbol wrote to disk")
	}

	for args, want := range map[string]string{
		`{"name":"User","new_name":"not valid"}`: "not an identifier",
		`{"name":"Nope","new_name":"X"}`:         "no declaration",
	} {
		if res := call(t, Adapt(NewRenameSymbol(root, parser, mgr, nil)), args); !res.IsError || !strings.Contains(res.Output, want) {
			t.Errorf("%s: want %q, got %s", args, want, res.Output)
		}
	}
}

func TestDiagnostics(t *testing.T) {
	root, _, mgr := lspFixture(t, "ts")
	testfs.Write(t, root.Dir(), map[string]string{"src/bad.ts": "export const n: number = \"one\";\n", "notes.md": "x"})
	tool := Adapt(NewDiagnostics(root, mgr))
	res := call(t, tool, `{}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	d := res.Data.(DiagnosticsData)
	if len(d.Diagnostics) != 1 || d.Diagnostics[0].Path != "src/bad.ts" || d.Diagnostics[0].Code != "2322" || len(d.Checked) != 6 {
		t.Fatalf("got %+v\n%s", d, res.Output)
	}
	if res := call(t, tool, `{"paths":["notes.md"]}`); !res.IsError {
		t.Errorf("a Markdown file was accepted: %s", res.Output)
	}
}

var wordUser = regexp.MustCompile(`\bUser\b`)

func siteString(s symbolSite) string { return fmt.Sprintf("%s:%d:%d", s.Path, s.Line, s.Column) }

// pyright sees only the files of its configured scope; find_symbol also
// names the uses in files the project's own checks leave out, so that a
// plan can include them.
func TestFindSymbolOutsideTheChecks(t *testing.T) {
	root, parser, mgr := lspFixture(t, "py")
	testfs.Write(t, root.Dir(), map[string]string{
		"pyproject.toml":      "[tool.pyright]\ninclude = [\"app\"]\n",
		"tests/test_users.py": "from app.db import find_user\n\n\ndef test_find() -> None:\n    assert find_user(\"x\") is None\n",
	})
	res := call(t, Adapt(NewFindSymbol(root, parser, mgr, search.New(root, search.Options{}))), `{"name":"find_user"}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	rep := res.Data.([]SymbolReport)[0]
	for _, r := range rep.References {
		if strings.HasPrefix(r.Path, "tests/") {
			t.Fatalf("pyright saw the test module this time: the case shows nothing\n%s", res.Output)
		}
	}
	if len(rep.Unchecked) != 2 || rep.Unchecked[0].Path != "tests/test_users.py" || !strings.Contains(res.Output, "leave out") {
		t.Fatalf("uses outside the checks: %+v\n%s", rep.Unchecked, res.Output)
	}
}

// pyright answers the first rename in a project from what it has
// analysed so far (the one file); the tool compares the rename with the
// symbol's references and asks again, so a cold rename is complete, here
// on Debian's python3-rich (Segment: 22 files).
func TestRenameSymbolColdPyright(t *testing.T) {
	dir := t.TempDir()
	testCorpus().Rich(t, dir)
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	mgr := servers.NewManager(root.Dir(), servers.NewRegistry(servers.RegistryOptions{Policy: execpolicy.New(execpolicy.Options{Root: root.Dir(), Trusted: true, Environ: os.Environ()}), ToolsDir: servers.DefaultToolsDir(os.Getenv)}), servers.ManagerOptions{})
	parser := syntax.New(syntax.Options{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		mgr.Shutdown(ctx)
		parser.Close()
	})
	res := call(t, Adapt(NewRenameSymbol(root, parser, mgr, nil)), `{"name":"Segment","new_name":"Span","path":"rich/segment.py","line":64}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	if n := len(res.Data.(RenameData).Changes); n < 20 {
		t.Fatalf("a cold rename touched %d files:\n%s", n, res.Output)
	}
}

// A rename asked with a change set staged elsewhere (an Executor's, sent
// with a daemon's tool call) renames what that change set holds, not the
// disk, and stages into nothing: the staged file's own new line is
// renamed too.
func TestRenameSymbolReadsAChangeSetStagedElsewhere(t *testing.T) {
	root, parser, mgr := lspFixture(t, "ts")
	data, err := os.ReadFile(root.Abs("src/types.ts"))
	if err != nil {
		t.Fatal(err)
	}
	staged := string(data) + "\nexport const guest: User = { id: 0 } as User;\n"
	tool := Adapt(NewRenameSymbol(root, parser, mgr, nil)).(StagedReader).WithStaged([]changeset.Spec{{Path: "src/types.ts", Content: &staged}})
	res := call(t, tool, `{"name":"User","new_name":"Account","path":"src/types.ts","line":1}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	renamed := false
	for _, c := range res.Data.(RenameData).Changes {
		if c.Path == "src/types.ts" && c.Content != nil {
			renamed = strings.Contains(*c.Content, "guest: Account")
		}
	}
	if !renamed {
		t.Errorf("the staged line was not renamed:\n%s", res.Output)
	}
	if res.Data.(RenameData).Staged {
		t.Errorf("staged into a change set read from elsewhere")
	}
}

// A C rename reaches the files clangd has not been shown: the definition
// in another translation unit and the header that declares it.
func TestRenameSymbolC(t *testing.T) {
	root, parser, mgr := lspFixture(t, "c")
	res := call(t, Adapt(NewRenameSymbol(root, parser, mgr, nil)), `{"path":"src/report.c","line":3,"name":"area","new_name":"surface"}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	var paths []string
	for _, c := range res.Data.(RenameData).Changes {
		paths = append(paths, c.Path)
		if c.Content == nil || regexp.MustCompile(`\barea\b`).MatchString(*c.Content) {
			t.Errorf("%s not renamed:\n%s", c.Path, *c.Content)
		}
	}
	if strings.Join(paths, ",") != "include/shapes.h,src/report.c,src/shapes.c" {
		t.Errorf("changed %v", paths)
	}
}
