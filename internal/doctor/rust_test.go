package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if got := checkRust(context.Background(), ws, look); got != nil {
		t.Fatalf("no Cargo.toml, yet %+v", got)
	}
	os.WriteFile(filepath.Join(ws, "Cargo.toml"), []byte("[package]\n"), 0o644)

	write("rust-analyzer", "echo \"error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.\" >&2\nexit 1\n")
	got := checkRust(context.Background(), ws, look)
	if len(got) != 2 || got[0].Status != OK || !strings.Contains(got[0].Detail, "cargo check") {
		t.Fatalf("cargo check not reported: %+v", got)
	}
	if got[1].Status != Warn || !strings.Contains(got[1].Detail, "does not run (error: Unknown binary") || !strings.Contains(got[1].Fix, "rustup component add") {
		t.Fatalf("the proxy without its component passed: %+v", got[1])
	}

	write("rust-analyzer", "echo 'rust-analyzer 1.95.0'\n")
	if got := checkRust(context.Background(), ws, look); got[1].Status != OK {
		t.Fatalf("a running rust-analyzer reported as %+v", got[1])
	}
}
