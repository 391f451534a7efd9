package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkRust says how a Rust workspace is checked: cargo check, in a
// shadow tree, before the write (rust-analyzer cannot check a change that
// is not on disk); and whether rust-analyzer really runs, which finding it
// on PATH does not show: rustup's proxy is there without its component.
func checkRust(ctx context.Context, dir string, lookPath func(string) (string, error), env []string) []Check {
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
	why := rustAnalyzerRuns(ctx, lookPath, env)
	if why != "" {
		ra.Status = Warn
		ra.Detail = why + "; find_symbol and rename_symbol in Rust use the syntax tree and text search, not a server"
		ra.Fix = "rustup component add rust-analyzer (Anvil does not install it)"
	} else {
		ra.Detail = "rust-analyzer runs"
	}
	return []Check{c, ra}
}

// rustAnalyzerRuns returns "" when `rust-analyzer --version` answers
// (run with env, as every version probe: see probe), else why not.
func rustAnalyzerRuns(ctx context.Context, lookPath func(string) (string, error), env []string) string {
	path, err := lookPath("rust-analyzer")
	if err != nil {
		return "rust-analyzer is not on PATH"
	}
	out, err := probe(ctx, env, path, "--version")
	if err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		return fmt.Sprintf("%s is on PATH but does not run (%s)", path, first)
	}
	return ""
}
