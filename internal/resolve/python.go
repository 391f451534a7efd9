package resolve

import (
	"path"
	"slices"
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
	// pyright tries an absolute import from the importing file's own
	// directory too, after the roots (as Python puts a script's folder on
	// sys.path): tools/main.py's `import helper` is tools/helper.py. Its
	// parents up to the root are added as well: each only adds candidates,
	// and a candidate too many costs a check, never a false clean.
	roots := slices.Clip(w.pyRoots)
	for dir := path.Dir(from); ; dir = path.Dir(dir) {
		roots = append(roots, dir)
		if dir == "." || dir == "/" {
			break
		}
	}
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
// from (besides the importing file's own): the root, typings/ (pyright's
// default stub path) and src/, each directory holding a top-level package (a
// package whose parent is not one), and the extraPaths and execution
// environment roots of pyright's configuration. Taking them all
// over-approximates what one interpreter's sys.path would hold.
func pythonRoots(root string, files []string, exists map[string]bool) []string {
	set := map[string]bool{".": true, "src": true, "typings": true}
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

// pyrightPaths reads the stub path, extraPaths and execution environment
// roots from the pyright configuration in rel's directory.
func pyrightPaths(root, rel string) []string {
	c, found, err := pyconfig.Read(root, path.Dir(rel))
	if !found || err != nil {
		return nil
	}
	return c.Paths()
}
