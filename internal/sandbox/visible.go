package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/envlist"
)

// The command sees the host's system directories; every program its PATH
// finds elsewhere (in a home, /tmp, /var: a version manager's, a user's
// toolchain) is shown too, with what the program needs beside it: the
// prefix a bin directory belongs to (~/.nvm/versions/node/v20 for its
// bin, ~/.pyenv for its shims), and the prefix of each program a PATH
// entry links to (pipx's venvs behind ~/.local/bin).

// PathInstallations is what the programs on env's PATH need shown,
// besides the system directories (for a program contained on the host).
func PathInstallations(env []string) []string { return pathVisible(env) }

// pathVisible returns what env's PATH needs shown, besides the system
// directories.
func pathVisible(env []string) []string {
	home, path := homeOf(env), envlist.Value(env, "PATH")
	var out []string
	add := func(p string) {
		if p = Installation(p, home); ShowsAsVisible(p) {
			out = append(out, p)
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) || SystemPath(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		add(dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Type()&os.ModeSymlink == 0 {
				continue
			}
			if t, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name())); err == nil && !SystemPath(t) {
				add(filepath.Dir(t))
			}
		}
	}
	return out
}

// Installation is the installation a bin directory belongs to: its parent,
// unless that is a place of many things (the home, ~/.local, a top-level
// directory), where the bin directory alone is shown.
func Installation(dir, home string) string {
	switch filepath.Base(dir) {
	case "bin", "sbin", "shims":
	default:
		return dir
	}
	p := filepath.Dir(dir)
	if p == home || p == filepath.Join(home, ".local") || filepath.Dir(p) == "/" || p == "/" {
		return dir
	}
	return p
}

// SystemPath reports whether the command sees p from the host without
// being told: it lies in one of the system directories.
func SystemPath(p string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
	return filepath.IsAbs(p) && systemDirs[first]
}

// ShowsAsVisible reports whether p may be a visible path: absolute, and
// neither the root, /tmp, nor a whole top-level directory the command
// sees empty (which would show all the host has there).
func ShowsAsVisible(p string) bool {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || p == "/" || p == "/tmp" {
		return false
	}
	return filepath.Dir(p) != "/" || systemDirs[p[1:]]
}

// programVisible returns the installations of the command's program and,
// for an interpreter (`node …/tsc`), of the script it runs, when they lie
// outside the system directories: a batch checker from Anvil's tools
// directory runs wherever the user's PATH is.
func programVisible(argv, env []string) []string {
	home := homeOf(env)
	var out []string
	for i, a := range argv {
		if i > 1 || !filepath.IsAbs(a) || (i == 1 && !interpreters[filepath.Base(argv[0])]) {
			continue
		}
		for _, p := range []string{a, resolved(a)} {
			if p == "" || SystemPath(p) {
				continue
			}
			if dir := packageDir(filepath.Dir(p), home); ShowsAsVisible(dir) {
				out = append(out, dir)
			}
		}
	}
	return out
}

// interpreters run the script their first argument names.
var interpreters = map[string]bool{"node": true, "nodejs": true, "python": true, "python3": true, "bun": true, "deno": true}

// packageDir is the installation a program's directory belongs to: the
// npm package that holds it (the nearest directory with a package.json
// below a node_modules), else what Installation says.
func packageDir(dir, home string) string {
	for d := dir; d != "/" && d != "." && filepath.Base(filepath.Dir(d)) != ""; d = filepath.Dir(d) {
		if filepath.Base(filepath.Dir(d)) == "node_modules" || (strings.HasPrefix(filepath.Base(filepath.Dir(d)), "@") && filepath.Base(filepath.Dir(filepath.Dir(d))) == "node_modules") {
			if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
				return d
			}
		}
	}
	return Installation(dir, home)
}

// dependencyLinks returns the places outside the workspace that its
// installed dependencies link to (a node_modules package linked from a
// store, a workspace sibling or a test's cache; a virtual environment's
// interpreter), which the command needs to see to use them.
func dependencyLinks(root string, env []string) []string {
	if root == "" {
		return nil
	}
	home := homeOf(env)
	var out []string
	look := func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() && strings.HasPrefix(e.Name(), "@") {
				sub, _ := os.ReadDir(p)
				for _, s := range sub {
					if s.Type()&os.ModeSymlink != 0 {
						out = appendLinkTarget(out, filepath.Join(p, s.Name()), root, home)
					}
				}
				continue
			}
			if e.Type()&os.ModeSymlink != 0 {
				out = appendLinkTarget(out, p, root, home)
			}
		}
	}
	// A dependency directory that is itself a link (to a shared store, a
	// test's cache) is shown where it leads, if what it leads to is one.
	for _, d := range []string{"node_modules", ".venv", "venv"} {
		if fi, err := os.Lstat(filepath.Join(root, d)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if t := resolved(filepath.Join(root, d)); t != "" && !SystemPath(t) && !strings.HasPrefix(t, root+"/") &&
				ShowsAsVisible(t) && (home == "" || (t != home && !strings.HasPrefix(home, t+"/"))) && dependencyDir(d, t) {
				out = append(out, t)
			}
		}
	}
	look(filepath.Join(root, "node_modules"))
	look(filepath.Join(root, "node_modules", ".bin"))
	look(filepath.Join(root, ".venv", "bin"))
	look(filepath.Join(root, "venv", "bin"))
	return out
}

// appendLinkTarget adds where link leads, if that is outside root and the
// system directories: the linked package's directory, or the installation
// of a linked program.
func appendLinkTarget(out []string, link, root, home string) []string {
	t := resolved(link)
	if t == "" || SystemPath(t) || t == root || strings.HasPrefix(t, root+"/") {
		return out
	}
	// A linked program is shown with its installation; a linked
	// directory only where it is what dependencies are.
	fi, err := os.Stat(t)
	if err != nil {
		return out
	}
	program := !fi.IsDir() && fi.Mode()&0o111 != 0
	if !fi.IsDir() {
		t = packageDir(filepath.Dir(t), home)
	}
	// A link to the home, or to anything holding it, would show all of it.
	if ShowsAsVisible(t) && (home == "" || (t != home && !strings.HasPrefix(home, t+"/"))) && (program || exists(filepath.Join(t, "package.json"))) {
		out = append(out, t)
	}
	return out
}

// dependencyDir reports whether dir, where the workspace's dependency
// directory d (node_modules, .venv, venv) links, is one of its kind: a
// node_modules (by its name, or an installer's record in it) or a
// virtual environment or Python installation. The workspace chooses
// where its links lead; a link to any other place (a home's
// ~/.config/app, a folder of other projects) would show the commands
// what the repository names, so it is not shown. A linked package is
// shown only with its package.json, a linked file only as a program.
func dependencyDir(d, dir string) bool {
	if d == "node_modules" {
		return filepath.Base(dir) == "node_modules" || exists(filepath.Join(dir, ".package-lock.json")) ||
			exists(filepath.Join(dir, ".modules.yaml")) || exists(filepath.Join(dir, ".yarn-state.yml"))
	}
	return exists(filepath.Join(dir, "pyvenv.cfg")) || pythonInstallation(dir) != ""
}

// exists reports whether p exists (a link is followed).
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// resolved is p with every link followed, or "".
func resolved(p string) string {
	t, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return t
}

// homeOf is env's HOME, cleaned ("" when unset).
func homeOf(env []string) string {
	if h := envlist.Value(env, "HOME"); h != "" {
		return filepath.Clean(h)
	}
	return ""
}

// inside reports whether path is root or below it.
func inside(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
