package reach

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// GoPackagesReaching returns the package directories (workspace-relative,
// "." for the root) that are, or import directly or not, the package of a
// changed file: the packages a change's type errors can be in. It reads
// the import clauses of every Go file under root on disk (the ignored
// files too: gopls checks them), as the go command resolves them: each
// file in the module of the nearest go.mod above it, an import of that
// module's path in that module's tree. ok is false where that reading
// could miss an importer, and the caller must take every package: a
// changed file that is not Go source (go.mod: every package) or is
// vendored, a go.work here or above, a replace directive, a go.mod that
// does not read, a Go file in no module. A file whose imports do not
// read, or that imports a module other than the standard library's and
// its own (which may require this one back and import the change; a
// module beside it in the workspace among them), reaches every package.
func GoPackagesReaching(root string, changed []string) (dirs map[string]bool, ok bool) {
	for _, rel := range changed {
		parts := strings.Split(rel, "/")
		if !strings.HasSuffix(rel, ".go") || slices.Contains(parts, "vendor") || slices.ContainsFunc(parts[:len(parts)-1], goCommandSkips) {
			return nil, false
		}
	}
	if GoWorkAbove(root) {
		return nil, false
	}
	goFiles, modules, ok := goFilesUnder(root)
	if !ok {
		return nil, false
	}
	importers := map[string][]string{} // by imported directory
	reachesAll := map[string]bool{}    // directories that may import anything
	fset := token.NewFileSet()
	for _, rel := range goFiles {
		dir := path.Dir(rel)
		modDir, ok := moduleOf(modules, dir)
		if !ok {
			return nil, false
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.ImportsOnly)
		if err != nil {
			// Imports that do not read may name any package (a syntax
			// error after them is not met: only the clauses are read).
			reachesAll[dir] = true
			continue
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				reachesAll[dir] = true
				break
			}
			if target, inModule := moduleDir(modules[modDir], p); inModule {
				target = path.Join(modDir, target)
				importers[target] = append(importers[target], dir)
			} else if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				reachesAll[dir] = true
			}
		}
	}
	dirs = map[string]bool{}
	var queue []string
	for _, rel := range changed {
		queue = append(queue, path.Dir(rel))
	}
	for d := range reachesAll {
		queue = append(queue, d)
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if dirs[d] {
			continue
		}
		dirs[d] = true
		queue = append(queue, importers[d]...)
	}
	return dirs, true
}

// goFilesUnder lists the Go files under root (slash paths relative to
// it), .git aside, and its modules: each go.mod's directory with the
// module path it declares. false when the walk fails, or finds a go.work,
// a go.mod that does not read or one with a replace directive.
func goFilesUnder(root string) (files []string, modules map[string]string, ok bool) {
	ok = true
	modules = map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && rel != "." && goCommandSkips(d.Name()):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case d.Name() == "go.work":
			ok = false
			return filepath.SkipAll
		case d.Name() == "go.mod":
			mod, readable := modulePath(p)
			if !readable {
				ok = false
				return filepath.SkipAll
			}
			modules[path.Dir(rel)] = mod
		case strings.HasSuffix(rel, ".go"):
			files = append(files, rel)
		}
		return nil
	})
	return files, modules, ok && err == nil
}

// moduleOf returns the directory of the module that holds the package
// directory dir: the nearest with a go.mod, dir itself included.
func moduleOf(modules map[string]string, dir string) (string, bool) {
	for d := dir; ; d = path.Dir(d) {
		if _, ok := modules[d]; ok {
			return d, true
		}
		if d == "." || d == "/" {
			return "", false
		}
	}
}

// goCommandSkips reports whether the go command leaves a directory of
// this name out of the packages ./... matches (go help packages: names
// beginning with "." or "_", and testdata), as the batch checker (go
// build, go vet) and gopls's view of the module do: a go.mod there is no
// second module of theirs, and its packages are none of their answers.
func goCommandSkips(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// moduleDir returns the workspace directory of import path p when p is a
// package of module mod.
func moduleDir(mod, p string) (string, bool) {
	if p == mod {
		return ".", true
	}
	rest, ok := strings.CutPrefix(p, mod+"/")
	return rest, ok
}

var (
	moduleLine  = regexp.MustCompile(`(?m)^\s*module\s+"?([^"\s]+)"?\s*$`)
	replaceLine = regexp.MustCompile(`(?m)^\s*replace\b`)
)

// GoWorkAbove reports whether a folder above root holds a go.work, which
// the go command and gopls would use.
func GoWorkAbove(root string) bool {
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return true
		}
		if dir == filepath.Dir(dir) {
			return false
		}
	}
}

// modulePath returns the module path the go.mod at p declares; false
// when it does not read or has a replace directive (a module of the
// workspace may then stand for another, which its importers import).
func modulePath(p string) (string, bool) {
	data, err := os.ReadFile(p)
	if err != nil || GoModReplaces(data) {
		return "", false
	}
	m := moduleLine.FindSubmatch(data)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// GoModReplaces reports whether a go.mod has a replace directive. Only
// through one, or a go.work, does the go command build a module from a
// folder of the workspace: a requirement alone is a published version,
// read from the module cache.
func GoModReplaces(data []byte) bool { return replaceLine.Match(data) }
