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
// older, a compile database naming a compiler of its own, the settings of
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
