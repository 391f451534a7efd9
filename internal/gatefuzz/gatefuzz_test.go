package gatefuzz_test

import (
	"context"
	"flag"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/gatefuzz"
	"github.com/anvil-dev/anvil/internal/hooks"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/service"
)

var (
	campaignLang   = flag.String("fuzz.lang", "", "TestGateFuzzCampaign: the language (ts, py, go, c, rust; all when empty)")
	campaignTrials = flag.Int("fuzz.trials", 0, "TestGateFuzzCampaign: trials per language (the campaign runs only when set)")
	campaignFirst  = flag.Int("fuzz.first", 0, "TestGateFuzzCampaign: the first trial's number (to run part of a campaign again)")
	campaignSeed   = flag.Uint64("fuzz.seed", 1, "TestGateFuzzCampaign: the campaign's seed")
	campaignOut    = flag.String("fuzz.out", "", "TestGateFuzzCampaign: a file the counts are written to, one table row per language")
	campaignPath   = flag.String("fuzz.path", "local", "TestGateFuzzCampaign: the front end the gate is asked through (local: --no-daemon; daemon; hooks: the pre-edit and end-of-turn hooks)")
	campaignCases  = flag.String("fuzz.cases", "", "TestGateFuzzCampaign: where minimised disagreements are written (testdata/cases when empty)")
	campaignPin    = flag.String("fuzz.pin", "", "TestGateFuzzCampaign: a TypeScript version the workspace pins, not installed (TypeScript only, through the hooks, each edit rehearsed: see pinned_test.go)")
)

// testEnv is the environment with Anvil's state in a directory of the
// test's.
func testEnv(t *testing.T) func(string) string {
	state := t.TempDir()
	return func(k string) string {
		if k == "ANVIL_STATE_DIR" {
			return state
		}
		return os.Getenv(k)
	}
}

// inProcess opens the gate as `anvil check --no-daemon` does: the App's
// Service in this process.
func inProcess(t *testing.T) gatefuzz.OpenGate {
	getenv := testEnv(t)
	sessions := t.TempDir()
	return func(ctx context.Context, dir string) (gatefuzz.Gate, error) {
		a, err := app.New(app.Options{Dir: dir, Getenv: getenv, SessionBase: sessions})
		if err != nil {
			return nil, err
		}
		return &gatefuzz.ServiceGate{Service: a.Service(), Stop: func() { a.Close() }}, nil
	}
}

// throughDaemon opens the gate as `anvil check` does with a daemon: a
// daemon serving in this process, asked over its Unix socket. Each
// workspace gets a daemon of its own, stopped when the gate closes.
func throughDaemon(t *testing.T) gatefuzz.OpenGate {
	getenv := testEnv(t)
	return func(ctx context.Context, dir string) (gatefuzz.Gate, error) {
		sock := filepath.Join(t.TempDir(), "d.sock")
		d, err := daemon.Listen(daemon.Options{Socket: sock, Getenv: getenv})
		if err != nil {
			return nil, err
		}
		served := make(chan error, 1)
		go func() { served <- d.Serve() }()
		stop := func() {
			d.Stop()
			<-served
		}
		c, err := daemon.Dial(ctx, sock)
		if err != nil {
			stop()
			return nil, err
		}
		w, err := c.Workspace(dir)
		if err != nil {
			c.Close()
			stop()
			return nil, err
		}
		return &gatefuzz.ServiceGate{Service: w, Stop: func() { c.Close(); stop() }}, nil
	}
}

// throughHooks opens the gate as an agent's client meets it: the pre-edit
// and end-of-turn hooks (Claude Code's), answered by the workspace's
// Service in this process.
func throughHooks(t *testing.T) gatefuzz.OpenGate {
	return hooksGate(t, app.Options{}, func(a *app.App, g *gatefuzz.HookGate) {})
}

// hooksGate is throughHooks with the app's options (Dir, Getenv and
// SessionBase are its own) and a last touch to each gate.
func hooksGate(t *testing.T, opts app.Options, touch func(*app.App, *gatefuzz.HookGate)) gatefuzz.OpenGate {
	opts.Getenv = testEnv(t)
	opts.SessionBase = t.TempDir()
	store := hooks.NewStore(t.TempDir())
	return func(ctx context.Context, dir string) (gatefuzz.Gate, error) {
		// The hooks find the workspace by its marker above the edit.
		if err := os.MkdirAll(filepath.Join(dir, ".anvil"), 0o755); err != nil {
			return nil, err
		}
		o := opts
		o.Dir = dir
		a, err := app.New(o)
		if err != nil {
			return nil, err
		}
		hg := &gatefuzz.HookGate{Dir: dir, Stop: func() { a.Close() }}
		hg.Gate = &hooks.Gate{Client: hooks.Claude, Getenv: func(string) string { return "" }, Snapshots: store,
			Open: func(context.Context, string) (service.Service, func(), error) { return a.Service(), func() {}, nil }}
		touch(a, hg)
		return hg, nil
	}
}

// paths are the front ends the gate is asked through.
func paths(t *testing.T) map[string]gatefuzz.OpenGate {
	return map[string]gatefuzz.OpenGate{"local": inProcess(t), "daemon": throughDaemon(t), "hooks": throughHooks(t)}
}

// languages are the fuzzer's languages with their checkers from Anvil's
// tools directory.
func languages(t *testing.T) map[string]gatefuzz.Language {
	bin := filepath.Join(servers.DefaultToolsDir(os.Getenv), "bin")
	for _, tool := range []string{"tsc", "pyright"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			t.Fatalf("no %s in Anvil's tools directory: run scripts/install-servers.sh (%v)", tool, err)
		}
	}
	// The checkers run with what the execution policy lets a program
	// outside a shadow tree see, as the gate's own do.
	env := execpolicy.New(execpolicy.Options{Environ: os.Environ()}).Env()
	return map[string]gatefuzz.Language{
		"ts":   gatefuzz.TS{Tsc: []string{filepath.Join(bin, "tsc")}, Legacy: legacyTsc(t), Env: env},
		"go":   gatefuzz.Go{Env: env},
		"py":   gatefuzz.Python{Pyright: []string{filepath.Join(bin, "pyright")}, Env: env},
		"c":    gatefuzz.C{Env: env},
		"rust": gatefuzz.Rust{Env: env},
	}
}

// legacyTsc runs TypeScript 6's compiler, which install-servers.sh puts
// beside 7 (ts-legacy): the second compiler of the TypeScript campaign.
// Missing, it fails the test, as any tool a test needs does.
func legacyTsc(t *testing.T) []string {
	tsc := filepath.Join(servers.DefaultToolsDir(os.Getenv), "ts-legacy", "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Fatalf("no TypeScript 6 in Anvil's tools directory: run scripts/install-servers.sh (%v)", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("no node to run TypeScript 6's tsc with: %v", err)
	}
	return []string{node, tsc}
}
