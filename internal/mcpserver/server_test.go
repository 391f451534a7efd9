package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/testfs"
)

var project = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "preserve", "moduleResolution": "bundler"}, "include": ["src"]}`,
	"src/a.ts":      "export const one: number = 1;\n",
	"src/b.ts":      "import { one } from \"./a\";\n\nexport const two: number = one + 1;\n",
}

// session is an MCP client of a server for a fresh copy of project,
// through the official SDK's client over in-memory transports.
func session(t *testing.T) (*mcp.ClientSession, string) {
	t.Helper()
	return sessionWith(t, nil)
}

// sessionWith is session with the client's options.
func sessionWith(t *testing.T, opts *mcp.ClientOptions) (*mcp.ClientSession, string) {
	t.Helper()
	a, dir := newApp(t)
	return connect(t, a.Service(), opts), dir
}

// connect is an MCP client of a server for svc.
func connect(t *testing.T, svc service.Service, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	s, err := New(ctx, svc, "test")
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// newApp is an app for a fresh copy of project, and the copy's directory.
func newApp(t *testing.T) (*app.App, string) {
	t.Helper()
	dir := t.TempDir()
	testfs.Write(t, dir, project)
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "ANVIL_STATE_DIR": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"ANVIL_TOOLS_DIR": servers.DefaultToolsDir(os.Getenv), "PATH": os.Getenv("PATH"),
	}
	a, err := app.New(app.Options{Dir: dir, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, dir
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: a protocol error, where a tool result was due: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return res, text.String()
}

// verdictOf decodes a check_changes or apply_changes structured result.
func verdictOf(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return v
}

func changes(files ...string) map[string]any {
	var cs []map[string]any
	for i := 0; i+1 < len(files); i += 2 {
		cs = append(cs, map[string]any{"path": files[i], "content": files[i+1]})
	}
	return map[string]any{"changes": cs}
}

func TestTools(t *testing.T) {
	cs, _ := session(t)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(b), `"type":"object"`) || tool.Description == "" {
			t.Errorf("%s: schema %s, description %q", tool.Name, b, tool.Description)
		}
		if strings.Contains(string(b), `"null"`) {
			t.Errorf("%s: the schema allows null, which some clients cannot express: %s", tool.Name, b)
		}
	}
	want := []string{"apply_changes", "ast_search", "check_changes", "diagnostics", "find_symbol", "list_files", "read_file", "rename_symbol", "test_changes", "text_search", "undo"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	// Clients approve a tool without asking by its hints: what a tool
	// does to the user's files is said truly. An unset destructiveHint
	// means true (the MCP default).
	type hints struct{ readOnly, destructive, idempotent bool }
	wantHints := map[string]hints{
		"apply_changes": {destructive: true, idempotent: true}, // overwrites and deletes files
		"undo":          {destructive: true},                   // each call undoes one more commit
		"test_changes":  {idempotent: true},                    // runs the project's code, in a shadow tree
	}
	for _, tool := range list.Tools {
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		got := hints{a.ReadOnlyHint, a.DestructiveHint == nil || *a.DestructiveHint, a.IdempotentHint}
		w, ok := wantHints[tool.Name]
		if !ok {
			w = hints{readOnly: true, idempotent: true} // the read tools and check_changes
		}
		if got != w {
			t.Errorf("%s: annotated %+v, want %+v", tool.Name, got, w)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: advertised as reaching outside the workspace", tool.Name)
		}
	}
}

// Claude Code and Codex give their model the structured content, not the
// text: what the model must read (the verdict, the errors, what to do
// next, an error's reason) is all there.
func TestStructuredContentCarriesTheMessage(t *testing.T) {
	cs, _ := session(t)
	for _, tc := range []struct {
		name string
		args any
		want []string // in the structured content's JSON
	}{
		{"check_changes", changes("src/a.ts", "export const one: string = \"1\";\n"), []string{`"summary":"rejected: 1 new error in src/b.ts"`, `"next":"Nothing written. Fix the new errors`, `"line_text":"export const two: number = one + 1;"`}},
		{"check_changes", changes("src/a.ts", "export const one: number = 1;\n// c\n"), []string{`"summary":"clean`, `"next":"The change set introduces no error`}},
		{"apply_changes", changes("src/a.ts", "export const one: string = \"1\";\n"), []string{`"next":"Nothing written.`, `Only a clean change set is written.`}},
		{"check_changes", changes("../outside.ts", "x"), []string{`"error":`, `outside the workspace`}},
		{"undo", map[string]any{}, []string{`"error":"Nothing to undo in this workspace."`}},
		{"read_file", map[string]any{"path": "src/b.ts"}, []string{`export const two`}},
	} {
		res, _ := call(t, cs, tc.name, tc.args)
		b, _ := json.Marshal(res.StructuredContent)
		for _, w := range tc.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s %v: the structured content lacks %s:\n%s", tc.name, tc.args, w, b)
			}
		}
	}
}

func TestReadToolsAndTheirErrors(t *testing.T) {
	cs, _ := session(t)
	for _, tc := range []struct {
		name    string
		args    any
		isError bool
		want    string
	}{
		{"read_file", map[string]any{"path": "src/b.ts"}, false, "export const two"},
		{"read_file", map[string]any{"path": "../../etc/passwd"}, true, "outside the workspace"},
		{"read_file", map[string]any{"path": 7}, true, "invalid arguments for read_file"},
		{"read_file", map[string]any{}, true, "path"},
		{"list_files", map[string]any{"pattern": "**/*.ts"}, false, "src/a.ts"},
		{"text_search", map[string]any{"pattern": "one \\+ 1"}, false, "src/b.ts:3"},
		{"find_symbol", map[string]any{"name": "one"}, false, "src/a.ts"},
	} {
		res, text := call(t, cs, tc.name, tc.args)
		if res.IsError != tc.isError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: isError %v, text:\n%s\nwant isError %v and %q", tc.name, tc.args, res.IsError, text, tc.isError, tc.want)
		}
	}
}

func TestCheckApplyUndo(t *testing.T) {
	cs, dir := session(t)
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	breaking := changes("src/a.ts", "export const one: string = \"1\";\n")
	clean := changes("src/a.ts", "export const one: number = 1;\nexport const zero = 0;\n")

	// A check that finds a new error in a dependant is a successful call
	// whose verdict is rejected; nothing is written.
	res, text := call(t, cs, "check_changes", breaking)
	v := verdictOf(t, res)
	if res.IsError || v["verdict"] != "rejected" || !strings.Contains(text, "src/b.ts:3") || v["committed"] != false {
		t.Fatalf("check of a breaking change: isError %v, %v\n%s", res.IsError, v, text)
	}
	if read("src/a.ts") != project["src/a.ts"] {
		t.Fatal("check_changes wrote")
	}

	// apply_changes refuses it, as a tool error carrying the verdict.
	res, text = call(t, cs, "apply_changes", breaking)
	if v := verdictOf(t, res); !res.IsError || v["verdict"] != "rejected" || !strings.Contains(text, "Nothing written") {
		t.Fatalf("apply of a breaking change: isError %v, %v\n%s", res.IsError, v, text)
	}
	if read("src/a.ts") != project["src/a.ts"] {
		t.Fatal("a rejected apply_changes wrote")
	}

	// A clean one is written, and undone.
	res, text = call(t, cs, "apply_changes", clean)
	if v := verdictOf(t, res); res.IsError || v["verdict"] != "clean" || v["committed"] != true {
		t.Fatalf("apply of a clean change: isError %v, %v\n%s", res.IsError, v, text)
	}
	if !strings.Contains(read("src/a.ts"), "zero") {
		t.Fatal("a clean apply_changes did not write")
	}
	res, text = call(t, cs, "undo", map[string]any{})
	if res.IsError || !strings.Contains(text, "restored 1 file") || read("src/a.ts") != project["src/a.ts"] {
		t.Fatalf("undo: isError %v\n%s", res.IsError, text)
	}
	res, text = call(t, cs, "undo", map[string]any{})
	if !res.IsError || !strings.Contains(text, "Nothing to undo") {
		t.Fatalf("a second undo: isError %v\n%s", res.IsError, text)
	}

	// What the model can fix is a tool error, never a protocol failure.
	for _, bad := range []struct {
		args any
		want string
	}{
		{changes("../outside.ts", "x"), "outside the workspace"},
		{map[string]any{"changes": "src/a.ts"}, "invalid arguments for check_changes"},
		{map[string]any{"changes": []any{}}, "invalid arguments"},
		{map[string]any{"changes": []any{map[string]any{"path": "src/a.ts", "content": "x", "delete": true}}}, "exactly one of content and delete"},
		{map[string]any{"changes": []any{map[string]any{"path": "src/a.ts", "content": "x", "base_sha256": strings.Repeat("0", 64)}}}, "changed since the change set was made"},
		{changes(".git/config", "x"), "never writes"},
	} {
		res, text := call(t, cs, "check_changes", bad.args)
		if !res.IsError || !strings.Contains(text, bad.want) {
			t.Errorf("check_changes %v: isError %v, text %q; want an error with %q", bad.args, res.IsError, text, bad.want)
		}
	}
}

// A client that puts a progress token on its call hears that the call
// started and what the gate does, all before the answer.
func TestProgressReachesTheClient(t *testing.T) {
	var (
		mu    sync.Mutex
		heard []string
	)
	cs, _ := sessionWith(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, req.Params.Message)
	}})
	params := &mcp.CallToolParams{Name: "check_changes", Arguments: changes("src/a.ts", "export const one: string = \"1\";\n")}
	params.SetProgressToken("t1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("check_changes: %v %+v", err, res)
	}
	mu.Lock()
	got := slices.Clone(heard)
	mu.Unlock()
	if len(got) < 2 || got[0] != "check_changes started" {
		t.Fatalf("progress heard before the answer: %q, want the start and then the gate's", got)
	}
	if !slices.ContainsFunc(got[1:], func(m string) bool { return strings.Contains(m, "checking") }) {
		t.Errorf("no notice of the gate's work among %q", got)
	}

	// Without a token, nothing is sent.
	mu.Lock()
	heard = nil
	mu.Unlock()
	call(t, cs, "check_changes", changes("src/a.ts", "export const one: number = 2;\n"))
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 0 {
		t.Errorf("progress sent for a call without a progress token: %q", heard)
	}
}

// lostMidChange is a service whose daemon goes away in the middle of
// every commit and undo.
type lostMidChange struct{ service.Service }

type outcomeUnknownError struct{}

func (outcomeUnknownError) Error() string {
	return "whether it was written is not known; the journal settles it"
}
func (outcomeUnknownError) OutcomeUnknown() bool { return true }

func (lostMidChange) Commit(context.Context, []changeset.Spec, string, service.GateOptions) (*service.Outcome, error) {
	return nil, outcomeUnknownError{}
}

func (lostMidChange) Undo(context.Context, service.UndoOptions) (*service.UndoOutcome, error) {
	return nil, outcomeUnknownError{}
}

// A commit or an undo whose daemon went away mid-way is the tool's
// answer, an error whose text (and structured content) says what is
// known, not a protocol error a client may not show its model.
func TestLostMidChangeIsAToolError(t *testing.T) {
	a, _ := newApp(t)
	cs := connect(t, lostMidChange{a.Service()}, nil)
	for _, tc := range []struct {
		tool string
		args any
	}{
		{"apply_changes", changes("src/a.ts", "export const one = 1;\n")},
		{"undo", map[string]any{}},
	} {
		res, text := call(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text, "not known") || !strings.Contains(verdictOf(t, res)["error"].(string), "not known") {
			t.Errorf("%s: isError %v, text %q, structured %v", tc.tool, res.IsError, text, res.StructuredContent)
		}
	}
}
