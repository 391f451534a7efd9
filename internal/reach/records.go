package reach

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/tsdecl"
)

// ImportRecorder is the TypeScript compiler's own record of the imports
// it resolved for a project (package tsdecl): who reads a file is who the
// compiler says reads it. Anvil's resolution (package resolve) stays
// beside it, so a record can only add an importer, never drop one.
type ImportRecorder interface {
	Imports(ctx context.Context, config, root string, overlay map[string]*string, reuse bool) (tsdecl.Imports, error)
}

// WithoutRecords has the graph rely on Anvil's own resolution alone
// (tests compare the two).
func (g *Graph) WithoutRecords() *Graph {
	g.records = nil
	return g
}

// Prepare makes TypeScript's and pyright's records of the projects'
// imports for files (the disk as it is), ahead of the first change's
// need; nothing without a recorder or a project of the language.
func (g *Graph) Prepare(ctx context.Context, files Files) {
	if g.records != nil && hasFamily(files, "ecma") {
		g.recordFor(ctx, files, nil)
	}
	g.RefreshPython(ctx, files)
}

// maxRecordedProjects bounds the TypeScript projects recorded for one
// change; beyond it there is no record (each project's program costs a
// resolution of its files): Anvil's reading alone finds the importers,
// and nothing is judged on the record.
const maxRecordedProjects = 64

// projectConfig matches the files TypeScript reads a project from.
var projectConfig = regexp.MustCompile(`^(tsconfig(\..+)?|jsconfig)\.json$`)

// record is the compiler's resolved imports of the workspace's
// TypeScript projects: from (relative) → specifier → targets (relative).
// Unrecorded are the directories of the projects whose record could not
// be had, each with why: every file under one may import anything.
type record struct {
	edges      map[string]map[string][]string
	unrecorded map[string]string
}

// targets returns what the compiler resolved spec to from from.
func (r *record) targets(from, spec string) []string {
	if r == nil {
		return nil
	}
	return r.edges[from][spec]
}

// specs returns what the compiler resolved from's imports to, by
// specifier.
func (r *record) specs(from string) map[string][]string {
	if r == nil {
		return nil
	}
	return r.edges[from]
}

// unrecordedWhy says why from's imports are not recorded, "" when they are.
func (r *record) unrecordedWhy(from string) string {
	if r == nil {
		return ""
	}
	for dir, why := range r.unrecorded {
		if dir == "." || strings.HasPrefix(from, dir+"/") {
			return why
		}
	}
	return ""
}

// recordCache keeps the record of the disk state the last change was
// made to (by the stat of every TypeScript and JSON file): an Executor's
// edits of one disk state ask the compiler once.
type recordCache struct {
	mu  sync.Mutex
	key recordKey
	rec *record
}

// recordKey is a disk state as the record sees it: full changes with any
// TypeScript or JSON file; shape only when such a file is created or
// deleted, or a JSON file changes.
type recordKey struct {
	full, shape [32]byte
}

// recordFor returns the compiler's record for files with changes: the
// projects' imports on the disk, and, where the change set could make the
// compiler resolve otherwise (a file created or deleted, a JSON file —
// a configuration, a package.json — changed), on the changed tree too;
// both are kept, since an importer of either tree may break.
func (g *Graph) recordFor(ctx context.Context, files Files, changes []*changeset.Change) *record {
	var configs []string
	for _, rel := range withChanged(files, changes) {
		if projectConfig.MatchString(path.Base(rel)) && !inNodeModules(rel) {
			configs = append(configs, rel)
		}
	}
	if len(configs) == 0 {
		return nil
	}
	if len(configs) > maxRecordedProjects {
		// No record: Anvil's reading alone decides, as without a
		// recorder, and Dependants.Recorded stays false.
		return nil
	}
	rec := &record{edges: map[string]map[string][]string{}, unrecorded: map[string]string{}}
	disk := g.diskRecord(ctx, files, configs)
	rec.merge(disk)
	if reresolves(changes) {
		overlay := map[string]*string{}
		for _, c := range changes {
			if c.Delete {
				overlay[g.root.Abs(c.Path)] = nil
			} else {
				text := string(c.Content)
				overlay[g.root.Abs(c.Path)] = &text
			}
		}
		rec.merge(g.ask(ctx, configs, overlay, false))
	}
	return rec
}

// diskRecord is the record of the disk, from the cache when no TypeScript
// or JSON file changed since it was made. When only source files'
// contents changed (the same files, the same JSON), the compiler is told
// it may keep its earlier resolutions of the unchanged files.
func (g *Graph) diskRecord(ctx context.Context, files Files, configs []string) *record {
	full, shape := sha256.New(), sha256.New()
	for _, rel := range files.Sorted() {
		json := strings.HasSuffix(rel, ".json")
		if Family(rel) != "ecma" && !json {
			continue
		}
		st := files[rel]
		stat := fmt.Sprintf("%s\x00%d\x00%d\x00%s\n", rel, st.Size, st.ModTime, st.Digest)
		fmt.Fprint(full, stat)
		if json {
			fmt.Fprint(shape, stat)
		} else {
			fmt.Fprintf(shape, "%s\n", rel)
		}
	}
	var key recordKey
	full.Sum(key.full[:0])
	shape.Sum(key.shape[:0])
	g.recorded.mu.Lock()
	defer g.recorded.mu.Unlock()
	if g.recorded.rec != nil && g.recorded.key.full == key.full {
		return g.recorded.rec
	}
	reuse := g.recorded.rec != nil && g.recorded.key.shape == key.shape
	rec := g.ask(ctx, configs, nil, reuse)
	g.recorded.key, g.recorded.rec = key, nil
	if len(rec.unrecorded) == 0 {
		g.recorded.rec = rec
	}
	return rec
}

// ask records every project of configs on the tree overlay makes.
func (g *Graph) ask(ctx context.Context, configs []string, overlay map[string]*string, reuse bool) *record {
	rec := &record{edges: map[string]map[string][]string{}, unrecorded: map[string]string{}}
	root := g.root.Dir()
	for _, cfg := range configs {
		imports, err := g.records.Imports(ctx, g.root.Abs(cfg), root, overlay, reuse)
		if err != nil {
			rec.unrecorded[path.Dir(cfg)] = fmt.Sprintf("the compiler's record of %s's imports could not be had (%v)", cfg, err)
			continue
		}
		for from, pairs := range imports {
			fromRel, ok := g.relTo(from)
			if !ok {
				continue
			}
			specs := rec.edges[fromRel]
			if specs == nil {
				specs = map[string][]string{}
				rec.edges[fromRel] = specs
			}
			for _, pair := range pairs {
				if t, ok := g.relTo(pair[1]); ok {
					specs[pair[0]] = appendNew(specs[pair[0]], t)
				}
			}
		}
	}
	return rec
}

// merge adds o's edges and unrecorded projects to r.
func (r *record) merge(o *record) {
	for from, specs := range o.edges {
		mine := r.edges[from]
		if mine == nil {
			mine = map[string][]string{}
			r.edges[from] = mine
		}
		for spec, ts := range specs {
			mine[spec] = appendNew(mine[spec], ts...)
		}
	}
	for dir, why := range o.unrecorded {
		r.unrecorded[dir] = why
	}
}

// reresolves reports whether changes can make the compiler resolve an
// unchanged file's import otherwise: a file created or deleted (a name
// taken over or left), or a JSON file changed (a tsconfig.json, a
// package.json's types or exports).
func reresolves(changes []*changeset.Change) bool {
	for _, c := range changes {
		if c.Delete || !c.BaseExists || strings.HasSuffix(c.Path, ".json") {
			return true
		}
	}
	return false
}

// relTo returns abs relative to the workspace, if inside it.
func (g *Graph) relTo(abs string) (string, bool) {
	rel, err := g.root.Rel(abs)
	if err != nil || rel == "" || rel == "." {
		return "", false
	}
	return rel, true
}

func inNodeModules(rel string) bool {
	return slices.Contains(strings.Split(rel, "/"), "node_modules")
}

// appendNew appends the elements of add not in list.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
