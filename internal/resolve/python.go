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
	module, sub := w.PythonFrom(from, spec, ident)
	return append(module, sub...)
}

// PythonFrom resolves `from spec import name` in the file from: the files
// of the module spec, of which name is an attribute, and the files of its
// submodule name where one exists (then name is that module). An empty
// or "*" name asks for the module alone.
func (w *Workspace) PythonFrom(from, spec, name string) (module, sub []string) {
	roots := w.pyRoots
	if strings.HasPrefix(spec, ".") {
		dots := len(spec) - len(strings.TrimLeft(spec, "."))
		dir := path.Dir(from)
		for range dots - 1 {
			dir = path.Dir(dir)
		}
		roots, spec = []string{dir}, spec[dots:]
	}
	seen := map[string]bool{}
	add := func(list []string, c string) []string {
		if c = path.Clean(c); w.exists[c] && !seen[c] {
			seen[c] = true
			list = append(list, c)
		}
		return list
	}
	for _, root := range roots {
		mod := root
		if spec != "" {
			mod = path.Join(root, strings.ReplaceAll(spec, ".", "/"))
		}
		for _, c := range []string{mod + ".py", mod + ".pyi", mod + "/__init__.py", mod + "/__init__.pyi"} {
			module = add(module, c)
		}
		if name == "" || name == "*" {
			continue
		}
		for _, c := range []string{path.Join(mod, name) + ".py", path.Join(mod, name) + ".pyi", path.Join(mod, name, "__init__.py"), path.Join(mod, name, "__init__.pyi")} {
			sub = add(sub, c)
		}
	}
	return module, sub
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
