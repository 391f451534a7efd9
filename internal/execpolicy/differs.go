package execpolicy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/anvil-dev/anvil/internal/compiledb"
)

// Differences names what the project's own checking would run that Anvil
// does not until the user trusts the workspace (its TypeScript 6 or
// older, a compile database naming a compiler of its own, cargo check
// over crates that run code, the settings of
// its .anvil/config.toml that name programs, given as ignored), so that
// the user is told once, with the command that trusts it. It reads the
// workspace's files to tell the user, never to decide what runs; nil in
// a trusted workspace.
func (p *Policy) Differences(ignored []string) []string {
	if p.opts.Trusted {
		return nil
	}
	root := p.opts.Root
	var out []string
	if v := typeScriptVersion(filepath.Join(root, "node_modules", "typescript", "package.json")); v != "" {
		if major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0]); major > 0 && major < 7 {
			out = append(out, fmt.Sprintf("its own TypeScript %s (node_modules/typescript)", v))
		}
	}
	if db, err := compiledb.Load(filepath.Join(root, "compile_commands.json")); err == nil {
		for _, c := range db.Commands {
			if len(c.Args) > 0 && strings.ContainsRune(c.Args[0], '/') && p.inWorkspace(absIn(c.Dir, c.Args[0])) {
				out = append(out, fmt.Sprintf("its compile database's compiler %s", c.Args[0]))
				break
			}
		}
	}
	if cargoRunsCode(root) {
		out = append(out, "cargo check over its crates' build scripts and procedural macros (a Rust change is unverified until then)")
	}
	for _, name := range []string{"check", "git"} {
		if slices.Contains(ignored, name) {
			out = append(out, "the ["+name+"] of its .anvil/config.toml")
		}
	}
	if slices.ContainsFunc(ignored, func(s string) bool { return strings.HasPrefix(s, "servers.") }) {
		out = append(out, "the [servers] of its .anvil/config.toml")
	}
	return out
}

// cargoRunsCode reports whether cargo check in the workspace at root would
// likely run code of the workspace's choosing: a build script or a
// procedural macro crate of its own (two levels down at most), or a
// registry dependency in its lock file (many have build scripts). Only
// for telling the user: what cargo check runs is cargo metadata's to say
// (internal/shadow/cargopolicy.go).
func cargoRunsCode(root string) bool {
	if _, err := os.Stat(filepath.Join(root, "Cargo.toml")); err != nil {
		return false
	}
	if lock, err := os.ReadFile(filepath.Join(root, "Cargo.lock")); err == nil && strings.Contains(string(lock), "\nsource = ") {
		return true
	}
	for _, pattern := range []string{"build.rs", "*/build.rs", "*/*/build.rs"} {
		if m, _ := filepath.Glob(filepath.Join(root, pattern)); len(m) > 0 {
			return true
		}
	}
	for _, pattern := range []string{"Cargo.toml", "*/Cargo.toml", "*/*/Cargo.toml"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, manifest := range m {
			if data, err := os.ReadFile(manifest); err == nil && strings.Contains(string(data), "proc-macro") {
				return true
			}
		}
	}
	return false
}

// DifferencesNotice is the one line saying so, "" when nothing differs.
func (p *Policy) DifferencesNotice(ignored []string) string {
	d := p.Differences(ignored)
	if len(d) == 0 {
		return ""
	}
	return fmt.Sprintf("this workspace is not trusted, so Anvil checks with its own tools instead of %s; %s", strings.Join(d, ", "), TrustFix(p.opts.Root))
}

func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func typeScriptVersion(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var pkg struct{ Name, Version string }
	if json.Unmarshal(data, &pkg) != nil || pkg.Name != "typescript" {
		return ""
	}
	return pkg.Version
}
