package resolve

import (
	"path"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/pyconfig"
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
	if !strings.HasPrefix(spec, ".") {
		module, sub = w.pythonFromRoots(w.pyRoots, spec, name)
		if len(module)+len(sub) > 0 {
			return module, sub
		}
		// pyright's last resort for an absolute import: the importing
		// file's directory, then each parent up to the root (a script
		// beside the module it imports, with no package around them).
		var local []string
		for dir := path.Dir(from); ; dir = path.Dir(dir) {
			local = append(local, dir)
			if dir == "." || dir == "/" {
				break
			}
		}
		return w.pythonFromRoots(local, spec, name)
	}
	dots := len(spec) - len(strings.TrimLeft(spec, "."))
	dir := path.Dir(from)
	for range dots - 1 {
		dir = path.Dir(dir)
	}
	return w.pythonFromRoots([]string{dir}, spec[dots:], name)
}

// pythonFromRoots resolves `from spec import name` (spec absolute) in
// each of roots.
func (w *Workspace) pythonFromRoots(roots []string, spec, name string) (module, sub []string) {
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

// pyrightPaths reads extraPaths and execution environment roots from the
// pyright configuration in rel's directory.
func pyrightPaths(root, rel string) []string {
	c, found, err := pyconfig.Read(root, path.Dir(rel))
	if !found || err != nil {
		return nil
	}
	return c.Paths()
}
