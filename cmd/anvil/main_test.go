package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/anvil-dev/anvil/internal/demo"
	"github.com/anvil-dev/anvil/internal/llm/anthropic/anthropictest"
	"github.com/anvil-dev/anvil/internal/llm/replay"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/servers"
)

// binDir holds the anvil binary built once for the CLI scripts, so they
// exercise exactly what a user runs.
var binDir string

func TestMain(m *testing.M) {
	// Tests that build the app in this process contain its servers
	// with this binary.
	sandbox.Main(os.Getenv)
	dir, err := os.MkdirTemp("", "anvil-bin-")
	if err != nil {
		panic(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "anvil"), ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("building anvil: " + err.Error())
	}
	binDir = dir
	// Every anvil a test starts checks with servers of its own unless the
	// test turns the daemon on (the daemon and MCP tests, with an
	// environment of their own): a daemon started here would outlive the
	// suite.
	os.Setenv("ANVIL_DAEMON", "off")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestScripts runs the txtar scripts in testdata/script against the built
// binary. Each script states its workspace as files and asserts on output
// and exit status.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			env.Setenv("HOME", env.WorkDir)
			// The language servers installed for the real user, found again
			// under the scripts' own HOME.
			env.Setenv("ANVIL_TOOLS_DIR", servers.DefaultToolsDir(os.Getenv))
			// The caches (the run stage's Go build cache above all) are the
			// real user's: a cold one costs every script a build of the
			// standard library. Nothing there decides a verdict.
			if cache, err := os.UserCacheDir(); err == nil {
				env.Setenv("XDG_CACHE_HOME", cache)
			}
			// A rustup install's cargo finds its toolchains through these
			// (scripts/test.sh sets them under an empty HOME), not through
			// the scripts' HOME: the real user's, where rustup keeps them.
			for k, dir := range map[string]string{"CARGO_HOME": ".cargo", "RUSTUP_HOME": ".rustup"} {
				v := os.Getenv(k)
				if home, err := os.UserHomeDir(); v == "" && err == nil {
					if _, err := os.Stat(filepath.Join(home, ".rustup")); err == nil {
						v = filepath.Join(home, dir)
					}
				}
				if v != "" {
					env.Setenv(k, v)
				}
			}
			env.Setenv("ANVIL_SESSION_DIR", filepath.Join(env.WorkDir, "sessions"))
			// Each command with servers of its own, unless a script turns
			// the daemon on; its socket then lives in the script's
			// directory, and the script stops it.
			env.Setenv("ANVIL_DAEMON", "off")
			env.Setenv("XDG_RUNTIME_DIR", filepath.Join(env.WorkDir, "run"))
			env.Defer(func() { stopDaemon(env) })
			// No provider unless a script sets one up.
			for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
				env.Setenv(k, "")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakeanthropic": fakeAnthropic,
			// demoproject DIR SCRIPT writes the bundled example project and
			// its replay script, so scripts run on the demo's real content.
			"demoproject": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: demoproject DIR SCRIPT")
				}
				ts.Check(os.MkdirAll(ts.MkAbs(args[0]), 0o755))
				ts.Check(demo.Extract(ts.MkAbs(args[0])))
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), demo.Script(), 0o644))
			},
		},
	})
}

// stopDaemon stops the daemon a script may have started and left running
// (a script that failed before its own 'anvil serve stop').
func stopDaemon(env *testscript.Env) {
	cmd := exec.Command(filepath.Join(binDir, "anvil"), "serve", "stop")
	cmd.Env = env.Vars
	_ = cmd.Run()
}

// fakeAnthropic serves a replay script as the Anthropic Messages API (with
// SSE streaming) and points the script's anvil at it through
// ANTHROPIC_BASE_URL, so the run goes through the real SDK.
//
//	fakeanthropic SCRIPT.jsonl [fail529]
func fakeAnthropic(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fakeanthropic SCRIPT.jsonl [fail529]")
	}
	p, err := replay.Load(ts.MkAbs(args[0]))
	ts.Check(err)
	var turns []anthropictest.Turn
	for _, t := range p.Turns() {
		turns = append(turns, anthropictest.Turn{Content: t.Content, StopReason: t.StopReason})
	}
	srv := anthropictest.New(turns...)
	if len(args) > 1 && args[1] == "fail529" {
		srv.FailRequest(1, anthropictest.Fault{Status: 529, RetryAfter: "0"})
	}
	ts.Defer(srv.Close)
	ts.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	ts.Setenv("ANTHROPIC_API_KEY", "test-key")
}
