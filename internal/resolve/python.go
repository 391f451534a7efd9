package resolve

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Python returns the workspace files the Python file from imports for
// spec (a dotted module, relative with leading dots), ident being the name
// it binds ("from pkg import mod" may import the module pkg/mod.py).
// Absolute imports are tried in every import root of the workspace.
func (w *Workspace) Python(from, spec, ident string) []string {
	roots := w.pyRoots
	if strings.HasPrefix(spec, ".") {
		dots := len(spec) - len(strings.TrimLeft(spec, "."))
		dir := path.Dir(from)
		for range dots - 1 {
			dir = path.Dir(dir)
		}
		roots, spec = []string{dir}, spec[dots:]
	}
	var out []string
	seen := map[string]bool{}
	for _, root := range roots {
		mod := root
		if spec != "" {
			mod = path.Join(root, strings.ReplaceAll(spec, ".", "/"))
		}
		for _, c := range []string{mod + ".py", mod + ".pyi", mod + "/__init__.py", mod + "/__init__.pyi",
			path.Join(mod, ident) + ".py", path.Join(mod, ident) + ".pyi", path.Join(mod, ident, "__init__.py")} {
			if c = path.Clean(c); w.exists[c] && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// pythonRoots returns the directories absolute imports are resolved
// from: the root and src/, each directory holding a top-level package (a
// package whose parent is not one), and the extraPaths and execution
// environment roots of pyright's configuration. Taking them all
// over-approximates what one interpreter's sys.path would hold.
func pythonRoots(root string, files []string, exists map[string]bool) []string {
	set := map[string]bool{".": true, "src": true}
	for _, f := range files {
		if path.Base(f) != "__init__.py" && path.Base(f) != "__init__.pyi" {
			continue
		}
		parent := path.Dir(path.Dir(f))
		for parent != "." && (exists[path.Join(parent, "__init__.py")] || exists[path.Join(parent, "__init__.pyi")]) {
			parent = path.Dir(parent)
		}
		set[parent] = true
	}
	for _, f := range files {
		switch path.Base(f) {
		case "pyrightconfig.json", "pyproject.toml":
			for _, d := range pyrightPaths(root, f) {
				set[d] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// pyrightPaths reads extraPaths and execution environment roots from a
// pyrightconfig.json or a pyproject.toml's [tool.pyright], relative to the
// file's directory.
func pyrightPaths(root, rel string) []string {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	type env struct {
		Root       string   `json:"root" toml:"root"`
		ExtraPaths []string `json:"extraPaths" toml:"extraPaths"`
	}
	type cfg struct {
		ExtraPaths            []string `json:"extraPaths" toml:"extraPaths"`
		ExecutionEnvironments []env    `json:"executionEnvironments" toml:"executionEnvironments"`
	}
	var c cfg
	if path.Base(rel) == "pyproject.toml" {
		var doc struct {
			Tool struct {
				Pyright cfg `toml:"pyright"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return nil
		}
		c = doc.Tool.Pyright
	} else if json.Unmarshal(data, &c) != nil {
		return nil
	}
	dir := path.Dir(rel)
	var out []string
	add := func(p string) {
		if p != "" && !path.IsAbs(p) {
			out = append(out, path.Clean(path.Join(dir, p)))
		}
	}
	for _, p := range c.ExtraPaths {
		add(p)
	}
	for _, e := range c.ExecutionEnvironments {
		add(e.Root)
		for _, p := range e.ExtraPaths {
			add(p)
		}
	}
	return out
}
