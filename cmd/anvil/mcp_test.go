package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	ctx, cancel := untilDeadline(t)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "anvil-test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 11 {
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
	case <-ctx.Done():
		t.Fatal("anvil mcp did not exit once its stdin closed")
	}
}

// A client's bad line (not JSON, cut short, over 16 MiB) gets an error
// answer from the real binary, which goes on serving and ends, status 0,
// when its stdin closes.
func TestMCPAnswersBadLines(t *testing.T) {
	e := newMCPEnv(t)
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "mcp", "-C", e.ws)
	cmd.Env = e.environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answers := bufio.NewReader(stdout)
	answer := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("anvil mcp stopped reading: %v\n%s", err, stderr.String())
		}
		for {
			b, err := answers.ReadBytes('\n')
			if err != nil {
				t.Fatalf("anvil mcp ended its output: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(string(b), `"method"`) { // not a notification
				return string(b)
			}
		}
	}
	for _, tc := range []struct{ line, want string }{
		{"garbage", `"id":null,"error":{"code":-32700`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"`, `"id":1,"error":{"code":-32700`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check_changes","arguments":{"changes":[{"path":"src/a.ts","content":"` +
			strings.Repeat("x", 20<<20) + `"}]}}}`, `"id":2,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, `"id":3,"result"`},
	} {
		if got := answer(tc.line); !strings.Contains(got, tc.want) {
			t.Fatalf("%.60s: answered %s, want %s", tc.line, got, tc.want)
		}
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if got := answer(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`); !strings.Contains(got, `"id":4,"result"`) || !strings.Contains(got, "apply_changes") {
		t.Fatalf("tools/list after the bad lines: %s", got)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("anvil mcp at the end of its input: %v\n%s", err, stderr.String())
	}
}

// Started in / without -C (as desktop clients start their servers),
// 'anvil mcp' opens no workspace: it says how to name one and exits 3,
// having started nothing.
func TestMCPWithoutAWorkspaceSaysSo(t *testing.T) {
	home := t.TempDir()
	run, err := os.MkdirTemp("", "anvil-run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "mcp")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ANVIL_STATE_DIR=" + filepath.Join(home, "state"), "XDG_RUNTIME_DIR=" + run}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitBadInput || !strings.Contains(string(out), "anvil mcp -C /path/to/project") {
		t.Fatalf("anvil mcp in / without -C: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(run, "anvil")); len(entries) > 0 {
		t.Fatalf("it reached for the daemon: %v", entries)
	}
}

// Real clients stop 'anvil mcp' with signals (Claude Code: SIGINT then
// SIGTERM; Codex: SIGTERM with stdin closed): the session's normal end,
// status 0, and a call in flight is answered first.
func TestMCPStopsCleanly(t *testing.T) {
	e := newMCPEnv(t)
	sigterm := func(cmd *exec.Cmd, _ io.Closer) { cmd.Process.Signal(syscall.SIGTERM) }
	for _, tc := range []struct {
		name     string
		inFlight bool // a check is sent, and the stop comes once it started
		stop     func(cmd *exec.Cmd, stdin io.Closer)
	}{
		{"SIGINT", false, func(cmd *exec.Cmd, _ io.Closer) { cmd.Process.Signal(os.Interrupt) }},
		{"SIGTERM", false, sigterm},
		{"SIGINT then SIGTERM", false, func(cmd *exec.Cmd, _ io.Closer) {
			cmd.Process.Signal(os.Interrupt)
			time.Sleep(100 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGTERM)
		}},
		{"SIGTERM with a check in flight", true, sigterm},
		{"stdin closed with a check in flight", true, func(_ *exec.Cmd, stdin io.Closer) { stdin.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, "anvil"), "mcp", "-C", e.ws)
			cmd.Env = e.environ()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			ctx, cancel := untilDeadline(t)
			defer cancel()
			// The test owns the process (and its exit status): the
			// client talks over its pipes.
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			transport := &mcp.IOTransport{Reader: stdout, Writer: stdin}
			// The server's first progress notice says the call reached
			// it: the signal then finds it in flight, however loaded the
			// machine.
			started := make(chan struct{}, 1)
			opts := &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
				select {
				case started <- struct{}{}:
				default:
				}
			}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "anvil-test", Version: "v0"}, opts).Connect(ctx, transport, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			answered := make(chan *mcp.CallToolResult, 1)
			if tc.inFlight {
				var args map[string]any
				json.Unmarshal([]byte(`{"changes": `+breakingChanges+`}`), &args)
				params := &mcp.CallToolParams{Name: "check_changes", Arguments: args}
				params.SetProgressToken("in-flight")
				go func() {
					res, err := cs.CallTool(ctx, params)
					if err != nil {
						t.Logf("the call in flight: %v", err)
					}
					answered <- res
				}()
				select {
				case <-started:
				case res := <-answered:
					// A warm check can end in milliseconds, and the
					// client may run its notice handler after it has
					// the answer: the notice must still come (the
					// server sends it first), and the stop then finds
					// nothing in flight.
					select {
					case <-started:
					case <-time.After(5 * time.Second):
						t.Fatalf("answered without a progress notice: %+v", res)
					}
					t.Log("the check ended before the stop")
					answered <- res
				case <-ctx.Done():
					t.Fatal("no progress notice before the test's deadline")
				}
			}
			tc.stop(cmd, stdin)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after %s: %v\n%s", tc.name, err, stderr.String())
			}
			if tc.inFlight {
				if res := <-answered; res == nil || !strings.Contains(text(res), "rejected") {
					t.Fatalf("the call in flight was not answered before the exit: %+v\n%s", res, stderr.String())
				}
			}
		})
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
	if strings.Join(names, " ") != "apply_changes ast_search check_changes diagnostics find_symbol list_files read_file rename_symbol test_changes text_search undo" {
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

// The official TypeScript SDK's client (installed with the Inspector),
// a client nobody here wrote, keeps one session with 'anvil mcp' while the
// daemon behind it is stopped, killed, and replaced by another build's,
// and gets a verdict after each.
func TestMCPSessionOutlivesTheDaemon(t *testing.T) {
	_, path := inspector(t)
	clientDir := filepath.Join(servers.DefaultToolsDir(os.Getenv), "test-clients", "node_modules", "@modelcontextprotocol", "client")
	if _, err := os.Stat(clientDir); err != nil {
		t.Fatalf("the TypeScript SDK's client is not installed (run scripts/install-deps.sh): %v", err)
	}
	e := newMCPEnv(t)
	envJSON, _ := json.Marshal(envMap(e.environ()))
	anvil := filepath.Join(binDir, "anvil")
	cmd := exec.Command("node", filepath.Join("testdata", "mcpclient", "session.mjs"))
	cmd.Env = append(os.Environ(), "PATH="+path, "MCP_CLIENT="+clientDir, "ANVIL="+anvil, "WS="+e.ws, "ANVIL_ENV="+string(envJSON), "CHANGES="+breakingChanges)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	ctx, cancel := untilDeadline(t)
	defer cancel()
	read := func() map[string]any {
		t.Helper()
		done := make(chan bool, 1)
		go func() { done <- lines.Scan() }()
		select {
		case ok := <-done:
			if !ok {
				t.Fatalf("the client ended: %v", lines.Err())
			}
		case <-ctx.Done():
			t.Fatal("no answer from the client before the test's deadline")
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", lines.Text(), err)
		}
		return m
	}
	if m := read(); m["connected"] != true {
		t.Fatalf("connect: %v", m)
	}
	check := func(after string) {
		t.Helper()
		fmt.Fprintln(stdin, "check")
		m := read()
		s, _ := m["structured"].(map[string]any)
		if m["isError"] != false || s == nil || s["summary"] != "rejected: 1 new error in src/b.ts" {
			t.Fatalf("check_changes %s: %v", after, m)
		}
	}
	daemonPID := func() int {
		t.Helper()
		out := e.anvil(t, anvil, "serve", "status", "--json")
		var st struct{ PID int }
		if err := json.Unmarshal(out, &st); err != nil || st.PID == 0 {
			t.Fatalf("anvil serve status: %v\n%s", err, out)
		}
		return st.PID
	}
	check("first")
	first := daemonPID()

	e.anvil(t, anvil, "serve", "stop") // as its idle exit, or a user, would
	check("after the daemon stopped")
	second := daemonPID()
	if second == first {
		t.Fatal("the daemon was not replaced after its stop")
	}

	syscall.Kill(second, syscall.SIGKILL)
	check("after the daemon was killed")
	third := daemonPID()

	// Another build of anvil (a copy with another modification time)
	// replaces the daemon with its own on its first check.
	other := filepath.Join(t.TempDir(), "anvil")
	data, err := os.ReadFile(anvil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}
	changes := filepath.Join(t.TempDir(), "changes.json")
	os.WriteFile(changes, []byte(`{"changes": `+cleanChanges+`}`), 0o644)
	otherCheck := exec.Command(other, "check", "-C", e.ws, changes)
	otherCheck.Env = e.environ()
	if out, err := otherCheck.CombinedOutput(); err != nil {
		t.Fatalf("another build's check: %v\n%s", err, out)
	}
	check("after another build replaced the daemon")
	if fourth := daemonPID(); fourth == third {
		t.Fatal("the other build did not replace the daemon")
	}
	fmt.Fprintln(stdin, "quit")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the client: %v", err)
	}
}

func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// anvil runs the anvil binary bin with the session's environment.
func (e *mcpEnv) anvil(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = e.environ()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("anvil %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// untilDeadline is a context for the waits of a test: it ends shortly
// before the test binary's deadline (go test -timeout), so a wait that
// never ends fails with its message, and sets no wall-clock bound of its
// own, which a loaded machine would overrun. Usable in cleanups.
func untilDeadline(t *testing.T) (context.Context, context.CancelFunc) {
	d, ok := t.Deadline()
	if !ok {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), d.Add(-deadlineMargin))
}

// deadlineMargin is the time left, after a wait gives up, to report it.
const deadlineMargin = 10 * time.Second
