package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// The command sees the host's system directories; every program its PATH
// finds elsewhere (in a home, /tmp, /var: a version manager's, a user's
// toolchain) is shown too, with what the program needs beside it: the
// prefix a bin directory belongs to (~/.nvm/versions/node/v20 for its
// bin, ~/.pyenv for its shims), and the prefix of each program a PATH
// entry links to (pipx's venvs behind ~/.local/bin).

// pathVisible returns what env's PATH needs shown, besides the system
// directories.
func pathVisible(env []string) []string {
	home, path := "", ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = filepath.Clean(v)
		}
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
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
