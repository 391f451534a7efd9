package reach

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/pyconfig"
	"github.com/anvil-dev/anvil/internal/syntax"
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
// whole pyright run each, in the background). A file of a project past
// it is Anvil's reading's alone, as without a record.
const maxPyRecordProjects = 8

// pythonProjects returns the pyright projects that hold the Python files
// of files: for each, the nearest directory at or above it that
// configures pyright, as the batch checker groups them (the root's
// first, then by path), at most maxPyRecordProjects.
func (g *Graph) pythonProjects(files Files) []string {
	byDir := map[string]string{}
	set := map[string]bool{}
	for rel := range files {
		if Family(rel) != "python" {
			continue
		}
		dir := path.Dir(rel)
		project, ok := byDir[dir]
		if !ok {
			project = pyconfig.Nearest(g.root.Dir(), rel).Dir
			byDir[dir] = project
		}
		set[project] = true
	}
	projects := slices.SortedFunc(maps.Keys(set), func(a, b string) int {
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
	if len(projects) > maxPyRecordProjects {
		projects = projects[:maxPyRecordProjects]
	}
	return projects
}

// WithPython has the graph take pyright's record of imports beside its
// own resolution of Python's (nil: none).
func (g *Graph) WithPython(r PythonRecorder) *Graph {
	g.pyRecords = r
	return g
}

// pyRecordCache keeps pyright's latest record. A record costs a whole
// pyright run (seconds on a real project), so no check waits for one: a
// check takes the record kept, whatever shape of the workspace's Python
// (its files by name, pyright's configuration files by stat) it was made
// for, and a background job makes the next one (RefreshPython). A record of another
// shape is still only importers added: an import it misses (a file
// created since, which pyright resolves from disk, so its importers go to
// the batch checker anyway; an import line added since) is Anvil's own
// reading's to find, as without a record.
type pyRecordCache struct {
	mu    sync.Mutex
	key   [32]byte // the shape edges were made for
	edges map[string][]string
	// failed is a shape whose record could not be had: not asked again.
	failed    [32]byte
	hasFailed bool
	// run lets one record run at a time.
	run sync.Mutex
}

// pythonShape is the shape of files a record is made for.
func pythonShape(files Files) [32]byte {
	shape := sha256.New()
	for _, rel := range files.Sorted() {
		switch base := path.Base(rel); {
		case Family(rel) == "python":
			fmt.Fprintf(shape, "%s\n", rel)
		case base == "pyproject.toml" || base == "pyrightconfig.json":
			// pyright's configuration, by stat (any other JSON file, a
			// package.json, a data file, would only cost a pyright run).
			st := files[rel]
			fmt.Fprintf(shape, "%s\x00%d\x00%d\x00%s\n", rel, st.Size, st.ModTime, st.Digest)
		}
	}
	var key [32]byte
	shape.Sum(key[:0])
	return key
}

// pythonRecord returns the record kept (workspace-relative, inside the
// workspace only); nil while none was made.
func (g *Graph) pythonRecord() map[string][]string {
	g.pyRecorded.mu.Lock()
	defer g.pyRecorded.mu.Unlock()
	return g.pyRecorded.edges
}

// PythonStale reports whether RefreshPython would make a record for
// files: a recorder is set, and no record was made (or failed) for their
// shape.
func (g *Graph) PythonStale(files Files) bool {
	if g.pyRecords == nil || !hasFamily(files, "python") {
		return false
	}
	key := pythonShape(files)
	c := &g.pyRecorded
	c.mu.Lock()
	defer c.mu.Unlock()
	return !(c.edges != nil && c.key == key || c.hasFailed && c.failed == key)
}

// RefreshPython makes pyright's record for files (the disk as it is)
// unless the one kept is of their shape; for a background job.
func (g *Graph) RefreshPython(ctx context.Context, files Files) {
	c := &g.pyRecorded
	c.run.Lock()
	defer c.run.Unlock()
	if !g.PythonStale(files) {
		return
	}
	key := pythonShape(files)
	imports, err := g.pyRecords.PythonImports(ctx, g.pythonProjects(files))
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			c.failed, c.hasFailed = key, true
		}
		return
	}
	edges := map[string][]string{}
	for from, targets := range imports {
		fromRel, ok := g.relTo(from)
		if !ok {
			continue
		}
		for _, t := range targets {
			tRel, ok := g.relTo(t)
			if _, known := files[tRel]; ok && known && tRel != fromRel {
				edges[fromRel] = appendNew(edges[fromRel], tRel)
			}
		}
	}
	c.key, c.edges = key, edges
}

// withPythonRecorded adds to gf, rel's file in gr, a whole-module binding
// for each file pyright's record says rel imports that Anvil's
// resolution did not link it to (a namespace package a .pth file adds to
// the path): the record adds what Anvil's reading leaves out.
func (gr *importGraph) withPythonRecorded(rel string, gf *graphFile, recorded []string) {
	var linked []string
	for _, ls := range gf.links {
		for _, l := range ls {
			linked = append(linked, l.target)
		}
	}
	var extra []string
	for _, t := range recorded {
		if !slices.Contains(linked, t) {
			extra = append(extra, t)
		}
	}
	if len(extra) == 0 {
		return
	}
	s := *gf.surface
	s.Imports = slices.Clone(s.Imports)
	for _, t := range extra {
		i := len(s.Imports)
		s.Imports = append(s.Imports, syntax.Binding{Module: t, Name: "*", Whole: true})
		gf.links = append(gf.links, []link{{target: t, name: "*"}})
		gr.importers[t] = append(gr.importers[t], edge{from: rel, binding: i, name: "*"})
	}
	gf.surface = &s
}
