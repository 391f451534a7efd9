package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

var mcpProject = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "preserve", "moduleResolution": "bundler"}, "include": ["src"]}`,
	"src/a.ts":      "export const one: number = 1;\n",
	"src/b.ts":      "import { one } from \"./a\";\n\nexport const two: number = one + 1;\n",
}

const (
	breakingChanges = `[{"path": "src/a.ts", "content": "export const one: string = \"1\";\n"}]`
	cleanChanges    = `[{"path": "src/a.ts", "content": "export const one: number = 1;\nexport const zero = 0;\n"}]`
)

// mcpEnv is the environment of an 'anvil mcp' under test and of the
// daemon it starts: everything of the test's own but the servers.
type mcpEnv struct {
	ws   string
	vars []string
}

func newMCPEnv(t *testing.T) *mcpEnv {
	t.Helper()
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	testfs.Write(t, ws, mcpProject)
	run, err := os.MkdirTemp("", "anvil-run-") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	e := &mcpEnv{ws: ws, vars: []string{
		"HOME=" + home,
		"ANVIL_STATE_DIR=" + filepath.Join(home, "state"),
		"ANVIL_TOOLS_DIR=" + servers.DefaultToolsDir(os.Getenv),
		"XDG_RUNTIME_DIR=" + run,
	}}
	t.Cleanup(func() { e.stopDaemon(t) })
	return e
}

func (e *mcpEnv) environ() []string {
	return append([]string{"PATH=" + os.Getenv("PATH")}, e.vars...)
}

// stopDaemon stops the daemon the server started, and fails the test if
// there was none: the server is meant to use it.
func (e *mcpEnv) stopDaemon(t *testing.T) {
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "serve", "stop")
	cmd.Env = e.environ()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Stopped the Anvil daemon") {
		t.Errorf("anvil serve stop after the MCP session: %v\n%s", err, out)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// The official Go SDK's client drives the real binary over stdio: the
// tools are there, a breaking change is rejected with the dependant's
// error, a clean one is applied through the daemon, and the server exits
// when its stdin closes.
func TestMCPWithGoSDKClient(t *testing.T) {
	e := newMCPEnv(t)
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "mcp", "-C", e.ws)
	cmd.Env = e.environ()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "anvil-test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 10 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	callJSON := func(name, changes string) *mcp.CallToolResult {
		var args map[string]any
		if err := json.Unmarshal([]byte(`{"changes": `+changes+`}`), &args); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	res := callJSON("check_changes", breakingChanges)
	if res.IsError || !strings.Contains(text(res), "rejected: 1 new error in src/b.ts") {
		t.Fatalf("check_changes: isError %v\n%s", res.IsError, text(res))
	}
	res = callJSON("apply_changes", cleanChanges)
	if res.IsError || !strings.Contains(text(res), "Committed 1 file") {
		t.Fatalf("apply_changes: isError %v\n%s", res.IsError, text(res))
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "src/a.ts")); !strings.Contains(string(b), "zero") {
		t.Fatal("apply_changes did not write")
	}
	// Closing stdin ends the server.
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("anvil mcp did not exit within 10 s of its stdin closing")
	}
}

// inspector returns the MCP Inspector installed by
// scripts/install-test-clients.sh, and the PATH its Node 22 comes first on.
func inspector(t *testing.T) (bin, path string) {
	t.Helper()
	dir := filepath.Join(servers.DefaultToolsDir(os.Getenv), "test-clients", "node_modules", ".bin")
	bin = filepath.Join(dir, "mcp-inspector")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the MCP Inspector is not installed (run scripts/install-deps.sh): %v", err)
	}
	return bin, dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// The MCP Inspector's CLI, a client nobody here wrote, lists the tools and
// calls check_changes and apply_changes on the fixture.
func TestMCPWithInspector(t *testing.T) {
	bin, path := inspector(t)
	e := newMCPEnv(t)
	// run runs the Inspector and decodes what it prints; it exits non-zero when
	// the tool's result is an error (isError), which wantError expects.
	run := func(wantError bool, args ...string) map[string]any {
		t.Helper()
		argv := []string{"--cli"}
		// The server's environment, PATH included: the Inspector's own
		// has its Node first, and the daemon's socket is per environment.
		for _, v := range e.environ() {
			argv = append(argv, "-e", v)
		}
		argv = append(argv, filepath.Join(binDir, "anvil"), "mcp", "-C", e.ws)
		cmd := exec.Command(bin, append(argv, args...)...)
		cmd.Env = append([]string{"PATH=" + path}, e.vars...)
		out, err := cmd.Output()
		if _, ok := err.(*exec.ExitError); ok && wantError {
			err = nil
		}
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("mcp-inspector %v: %v\n%s\n%s", args, err, out, stderr)
		}
		var v map[string]any
		if err := json.NewDecoder(strings.NewReader(string(out))).Decode(&v); err != nil {
			t.Fatalf("mcp-inspector %v printed %s: %v", args, out, err)
		}
		return v
	}
	list := run(false, "--method", "tools/list")
	var names []string
	for _, tool := range list["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if strings.Join(names, " ") != "apply_changes ast_search check_changes diagnostics find_symbol list_files read_file rename_symbol text_search undo" {
		t.Fatalf("tools listed by the Inspector: %v", names)
	}

	checked := run(false, "--method", "tools/call", "--tool-name", "check_changes", "--tool-arg", "changes="+breakingChanges)
	sc, _ := checked["structuredContent"].(map[string]any)
	if checked["isError"] == true || sc["verdict"] != "rejected" || !strings.Contains(toJSON(sc["new"]), `"path":"src/b.ts"`) {
		t.Fatalf("check_changes through the Inspector: %s", toJSON(checked))
	}
	applied := run(true, "--method", "tools/call", "--tool-name", "apply_changes", "--tool-arg", "changes="+breakingChanges)
	if applied["isError"] != true {
		t.Fatalf("a breaking apply_changes was not an error: %s", toJSON(applied))
	}
	applied = run(false, "--method", "tools/call", "--tool-name", "apply_changes", "--tool-arg", "changes="+cleanChanges)
	sc, _ = applied["structuredContent"].(map[string]any)
	if applied["isError"] == true || sc["committed"] != true {
		t.Fatalf("a clean apply_changes: %s", toJSON(applied))
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "src/a.ts")); !strings.Contains(string(b), "zero") {
		t.Fatal("apply_changes did not write")
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
