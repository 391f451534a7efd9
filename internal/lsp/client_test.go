package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp/lspfake"
)

// requireBinary fails (never skips) when a server the tests need is
// missing: scripts/test.sh installs them.
func requireBinary(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	home, _ := os.UserHomeDir()
	dir := os.Getenv("ANVIL_TOOLS_DIR")
	if dir == "" {
		dir = filepath.Join(home, ".local", "share", "anvil", "tools")
	}
	p := filepath.Join(dir, "bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s not found on PATH or in %s (run scripts/install-servers.sh)", name, dir)
	}
	return p
}

// The test binary doubles as the fake server (see lspfake).
func TestMain(m *testing.M) {
	lspfake.Main(os.Getenv)
	os.Exit(m.Run())
}

// Pushed diagnostics are recorded with the version they describe.
func TestPushedDiagnosticsArrive(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, Config{Name: "fake", Command: os.Args[0], Dir: dir, Env: []string{lspfake.Env("push")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown(context.Background())
	file := filepath.Join(dir, "a.rs")
	v, err := c.DidOpen(ctx, URIFromPath(file), "rust", "fn a() {}\nERROR\n")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := c.WaitPublished(ctx, file, func(p Published) bool { return p.Version != nil && *p.Version == v })
	if err != nil {
		t.Fatalf("no diagnostics pushed: %v", err)
	}
	if len(pub.Diagnostics) != 1 || pub.Diagnostics[0].Range.Start.Line != 1 || !pub.Diagnostics[0].IsError() {
		t.Fatalf("got %+v", pub.Diagnostics)
	}
}

// TypeScript 7's server answers pulls, overlays included; shutdown without
// params makes it exit promptly.
func TestPullAndShutdown(t *testing.T) {
	tsc := requireBinary(t, "tsc")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{"compilerOptions":{"strict":true}}`), 0o644)
	file := filepath.Join(dir, "a.ts")
	os.WriteFile(file, []byte("export const n: number = 1;\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, Config{Name: "tsgo", Command: tsc, Args: []string{"--lsp", "--stdio"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !c.SupportsPull() || !strings.Contains(c.Info().Name, "typescript") {
		t.Fatalf("info %+v, pull %v", c.Info(), c.SupportsPull())
	}
	uri := URIFromPath(file)
	if diags, err := c.PullDiagnostics(ctx, uri); err != nil || len(diags) != 0 {
		t.Fatalf("clean file: %v %v", diags, err)
	}
	c.DidOpen(ctx, uri, "typescript", "export const n: number = 1;\n")
	if v, _ := c.DidChange(ctx, uri, "export const n: number = \"x\";\n"); v != 2 {
		t.Errorf("version after one change = %d", v)
	}
	diags, err := c.PullDiagnostics(ctx, uri)
	if err != nil || len(diags) != 1 {
		t.Fatalf("overlay not seen: %v %v", diags, err)
	}
	if c.Modifications() != 2 {
		t.Errorf("modifications = %d, want 2", c.Modifications())
	}
	start := time.Now()
	c.Shutdown(context.Background())
	if c.Alive() {
		t.Fatal("server still running after Shutdown")
	}
	if time.Since(start) > 1500*time.Millisecond {
		t.Errorf("shutdown took %v: the server did not exit on request", time.Since(start))
	}
	if _, err := c.PullDiagnostics(ctx, uri); err == nil {
		t.Error("request to an exited server succeeded")
	}
}

// A server that never answers initialize fails Start at the context's
// deadline, and its process is gone.
func TestStartTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	c, err := Start(ctx, Config{Name: "sleeper", Command: "sleep", Args: []string{"60"}, Dir: t.TempDir()})
	if err == nil {
		c.Kill()
		t.Fatal("Start succeeded")
	}
	if !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err = %v", err)
	}
}

// A crashed server reports how it ended, with its stderr.
func TestExitError(t *testing.T) {
	_, err := Start(context.Background(), Config{Name: "crasher", Command: "sh", Args: []string{"-c", "echo boom >&2; exit 3"}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("err = %v", err)
	}
}
