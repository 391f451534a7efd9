package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// rust-analyzer on PATH that does not run (rustup's proxy without its
// component) is reported as not running, with the fix; cargo check is
// what checks Rust either way.
func TestCheckRust(t *testing.T) {
	bin := t.TempDir()
	write := func(name, script string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("cargo", "exit 0\n")
	look := func(name string) (string, error) {
		p := filepath.Join(bin, name)
		if _, err := os.Stat(p); err != nil {
			return "", exec.ErrNotFound
		}
		return p, nil
	}
	ws := t.TempDir()
	env := []string{"PATH=/usr/bin:/bin"}
	if got := checkRust(context.Background(), ws, look, env); got != nil {
		t.Fatalf("no Cargo.toml, yet %+v", got)
	}
	os.WriteFile(filepath.Join(ws, "Cargo.toml"), []byte("[package]\n"), 0o644)

	write("rust-analyzer", "echo \"error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.\" >&2\nexit 1\n")
	got := checkRust(context.Background(), ws, look, env)
	if len(got) != 2 || got[0].Status != OK || !strings.Contains(got[0].Detail, "cargo check") {
		t.Fatalf("cargo check not reported: %+v", got)
	}
	if got[1].Status != Warn || !strings.Contains(got[1].Detail, "does not run (error: Unknown binary") || !strings.Contains(got[1].Fix, "rustup component add") {
		t.Fatalf("the proxy without its component passed: %+v", got[1])
	}

	write("rust-analyzer", "echo 'rust-analyzer 1.95.0'\n")
	if got := checkRust(context.Background(), ws, look, env); got[1].Status != OK {
		t.Fatalf("a running rust-analyzer reported as %+v", got[1])
	}
}

// A version probe runs in "/" with the policy's environment: run in the
// workspace, rustup's proxy would run the toolchain a rust-toolchain file
// there names (`path = "./tc"`, a program of the repository's own), and
// the probe would see the provider keys.
func TestVersionProbesRunOutsideTheWorkspace(t *testing.T) {
	bin, seen := t.TempDir(), filepath.Join(t.TempDir(), "seen")
	os.WriteFile(filepath.Join(bin, "rust-analyzer"), []byte("#!/bin/sh\n{ pwd; echo \"key=$ANTHROPIC_API_KEY\"; } > "+seen+"\necho 'rust-analyzer 1.95.0'\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "cargo"), []byte("#!/bin/sh\n"), 0o755)
	ws := testfs.Tree(t, map[string]string{"Cargo.toml": "[package]\n", "rust-toolchain.toml": "[toolchain]\npath = \"./tc\"\n"})
	look := func(name string) (string, error) { return filepath.Join(bin, name), nil }
	policy := execpolicy.New(execpolicy.Options{Root: ws, Environ: []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "ANTHROPIC_API_KEY=sk-ant-secret"}})
	t.Chdir(ws)
	checkRust(context.Background(), ws, look, policy.Env())
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != "/\nkey=\n" {
		t.Errorf("the probe ran as %q, want in / without the key", got)
	}
}
