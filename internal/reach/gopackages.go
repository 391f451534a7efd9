package reach

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// GoPackagesReaching returns the package directories (workspace-relative,
// "." for the root) that are, or import directly or not, the package of a
// changed file: the packages a change's type errors can be in. It reads
// the import clauses of every Go file of files, as the go command
// resolves them in a workspace of one module. ok is false where that
// reading could miss an importer, and the caller must take every package:
// a changed file that is not Go source (go.mod: every package), a
// go.work or a second go.mod (packages of other modules), a replace
// directive (a module path of the workspace's own files), a go.mod that
// does not read. A file whose imports do not read reaches every package.
func GoPackagesReaching(files Files, changed []string) (dirs map[string]bool, ok bool) {
	mod, ok := singleModulePath(files)
	if !ok {
		return nil, false
	}
	importers := map[string][]string{} // by imported directory
	importsAll := map[string]bool{}    // directories with a file whose imports do not read
	fset := token.NewFileSet()
	for _, rel := range files.Sorted() {
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		dir := path.Dir(rel)
		f, err := parser.ParseFile(fset, files[rel].Abs, nil, parser.ImportsOnly)
		if err != nil {
			// Imports that do not read may name any package (a syntax
			// error after them is not met: only the clauses are read).
			importsAll[dir] = true
			continue
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				importsAll[dir] = true
				break
			}
			if target, inModule := moduleDir(mod, p); inModule {
				importers[target] = append(importers[target], dir)
			}
		}
	}
	dirs = map[string]bool{}
	var queue []string
	for _, rel := range changed {
		if !strings.HasSuffix(rel, ".go") {
			return nil, false
		}
		queue = append(queue, path.Dir(rel))
	}
	for d := range importsAll {
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

// singleModulePath returns the module path of a workspace whose one
// module is its root's go.mod, without a go.work or a replace directive.
func singleModulePath(files Files) (string, bool) {
	for rel := range files {
		base := path.Base(rel)
		if base == "go.work" || (base == "go.mod" && rel != "go.mod") {
			return "", false
		}
	}
	st, ok := files["go.mod"]
	if !ok {
		return "", false
	}
	data, err := os.ReadFile(st.Abs)
	if err != nil || replaceLine.Match(data) {
		return "", false
	}
	m := moduleLine.FindSubmatch(data)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}
