package reach

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/pyconfig"
)

// PythonRecorder is pyright's record of the imports it resolved on the
// disk as it is, over the pyright projects given (workspace-relative
// directories, each run as the batch checker runs it): each importer →
// the files it imports, absolute paths (batch.Checker.Imports). Like
// TypeScript's, it is taken beside Anvil's own resolution and can only
// add an importer: a record that cannot be had leaves Anvil's reading
// alone, as without a recorder.
type PythonRecorder interface {
	PythonImports(ctx context.Context, projects []string) (map[string][]string, error)
}

// maxPyRecordProjects bounds the pyright projects one record runs (a
// whole pyright run each, in the background). With more, the imports of
// the files past it are unrecorded, and any of them may import a changed
// file: a Python interface change is then a cold start's
// (pythonRecordPartial).
const maxPyRecordProjects = 8

// pythonProjects returns the pyright projects a record runs: those of
// allPythonProjects, at most maxPyRecordProjects.
func (g *Graph) pythonProjects(files Files) []string {
	projects := g.allPythonProjects(files)
	if len(projects) > maxPyRecordProjects {
		projects = projects[:maxPyRecordProjects]
	}
	return projects
}

// pythonRecordPartial reports whether files hold more pyright projects
// than a record runs.
func (g *Graph) pythonRecordPartial(files Files) bool {
	return len(g.allPythonProjects(files)) > maxPyRecordProjects
}

// allPythonProjects returns the pyright projects that hold the Python
// files of files (PythonProjects' directories).
func (g *Graph) allPythonProjects(files Files) []string {
	var dirs []string
	for _, p := range PythonProjects(g.root.Dir(), files) {
		dirs = append(dirs, p.Dir)
	}
	return dirs
}

// PythonProject is a pyright project of a workspace: the directory that
// configures it, and the first of its files (by path) it does not leave
// out ("" when it leaves out every one).
type PythonProject struct {
	Dir, File string
}

// PythonProjects returns the pyright projects that hold the Python files
// of files, under the workspace directory root: for each file, the
// nearest directory at or above it that configures pyright, as the batch
// checker groups them (the root's first, then by path).
func PythonProjects(root string, files Files) []PythonProject {
	nearest := map[string]*pyconfig.Config{} // by the file's directory
	byDir := map[string]*PythonProject{}
	var python []string
	for rel := range files {
		if Family(rel) == "python" {
			python = append(python, rel)
		}
	}
	slices.Sort(python)
	for _, rel := range python {
		dir := path.Dir(rel)
		cfg, ok := nearest[dir]
		if !ok {
			cfg = pyconfig.Nearest(root, rel)
			nearest[dir] = cfg
		}
		p := byDir[cfg.Dir]
		if p == nil {
			p = &PythonProject{Dir: cfg.Dir}
			byDir[cfg.Dir] = p
		}
		// A file the project leaves out says nothing of its folder's
		// others: each is asked.
		if p.File == "" && cfg.Covers(rel) {
			p.File = rel
		}
	}
	dirs := slices.SortedFunc(maps.Keys(byDir), func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == ".":
			return -1
		case b == ".":
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make([]PythonProject, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, *byDir[d])
	}
	return out
}

// WithPython has the graph take pyright's record of imports beside its
// own resolution of Python's (nil: none).
func (g *Graph) WithPython(r PythonRecorder) *Graph {
	g.pyRecords = r
	return g
}

// pythonShape is the shape of files a record is made for: the Python
// files by name, pyright's configuration by stat (any other JSON file, a
// package.json, a data file, would only cost a pyright run).
func pythonShape(files Files) [32]byte {
	return recordShape(files, "python", "pyproject.toml", "pyrightconfig.json")
}

// PythonStale reports whether RefreshPython would make a record for
// files: a recorder is set, and no record was made (or failed) for their
// shape.
func (g *Graph) PythonStale(files Files) bool {
	return g.pyRecords != nil && hasFamily(files, "python") && g.pyRecorded.stale(pythonShape(files))
}

// RefreshPython makes pyright's record for files (the disk as it is)
// unless the one kept is of their shape; for a background job.
func (g *Graph) RefreshPython(ctx context.Context, files Files) {
	if g.pyRecords == nil || !hasFamily(files, "python") {
		return
	}
	g.pyRecorded.refresh(ctx, pythonShape(files), func(ctx context.Context) (map[string][]string, error) {
		imports, err := g.pyRecords.PythonImports(ctx, g.pythonProjects(files))
		if err != nil {
			return nil, err
		}
		return g.relEdges(files, imports), nil
	})
}
