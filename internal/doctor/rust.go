package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// checkRust says how a Rust workspace is checked: cargo check, in a
// shadow tree, before the write (rust-analyzer cannot check a change that
// is not on disk); and whether rust-analyzer really runs, which finding it
// on PATH does not show: rustup's proxy is there without its component.
func checkRust(ctx context.Context, dir string, lookPath func(string) (string, error)) []Check {
	if _, err := os.Stat(filepath.Join(dir, "Cargo.toml")); err != nil {
		return nil
	}
	c := Check{Group: GroupServer, Name: "rust"}
	cargo, err := lookPath("cargo")
	if err != nil {
		c.Status, c.Detail = Fail, "Cargo.toml is here but cargo is not on PATH, so Rust changes cannot be checked before the write"
		c.Fix = "install Rust with rustup (or Debian's cargo package)"
		return []Check{c}
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("checked before the write by cargo check (%s) in a shadow tree, every crate of the workspace, its state in Anvil's cache", cargo)
	ra := Check{Group: GroupServer, Name: "rust-analyzer", Status: OK}
	why := rustAnalyzerRuns(ctx, lookPath)
	if why != "" {
		ra.Status = Warn
		ra.Detail = why + "; find_symbol and rename_symbol in Rust use the syntax tree and text search, not a server"
		ra.Fix = "rustup component add rust-analyzer (Anvil does not install it)"
	} else {
		ra.Detail = "rust-analyzer runs"
	}
	return []Check{c, ra}
}

// rustAnalyzerRuns returns "" when `rust-analyzer --version` answers,
// else why not.
func rustAnalyzerRuns(ctx context.Context, lookPath func(string) (string, error)) string {
	path, err := lookPath("rust-analyzer")
	if err != nil {
		return "rust-analyzer is not on PATH"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.WaitDelay = time.Second // a child holding the pipe must not hang us
	out, err := cmd.CombinedOutput()
	if err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		return fmt.Sprintf("%s is on PATH but does not run (%s)", path, first)
	}
	return ""
}
