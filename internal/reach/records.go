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
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/tsdecl"
)

// ImportRecorder is the TypeScript compiler's own record of the imports
// it resolved for a project (package tsdecl): who reads a file is who the
// compiler says reads it. Anvil's resolution (package resolve) stays
// beside it, so a record can only add an importer, never drop one.
type ImportRecorder interface {
	Imports(ctx context.Context, config, root string, overlay map[string]*string, reuse bool) (tsdecl.Imports, error)
	// Lifetime ends when the recorder is closed: a record made beyond
	// its caller's wait ends with it.
	Lifetime() context.Context
}

// recordBound bounds a record made beyond its caller's wait, every
// project of it (the compiler's own bound on one project is as long).
const recordBound = 2 * time.Minute

// WithoutRecords has the graph rely on Anvil's own resolution alone
// (tests compare the two).
func (g *Graph) WithoutRecords() *Graph {
	g.records = nil
	return g
}

// Prepare makes TypeScript's and pyright's records of the projects'
// imports, and the compilers' of what C/C++ units read, for files (the disk as it is), ahead of the first change's
// need; nothing without a recorder or a project of the language.
func (g *Graph) Prepare(ctx context.Context, files Files) {
	g.RefreshTypeScript(ctx, files)
	g.RefreshPython(ctx, files)
	g.RefreshC(ctx, files)
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
// be had, and the files changed since it was made, each with why: every
// file under one (or the file) may import anything.
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
	for at, why := range r.unrecorded {
		if at == "." || at == from || strings.HasPrefix(from, at+"/") {
			return why
		}
	}
	return ""
}

// recordCache keeps the compiler's record of the disk state the last
// complete record was made for. A record costs a program of every
// project (seconds on a real project of 1,500 files), so a check of a
// later state of the same shape does not wait for one: the record kept
// is still the compiler's for every file but those changed since, and
// those are marked unrecorded (see kept). A background job makes the
// next one (RefreshTypeScript).
type recordCache struct {
	mu    sync.Mutex
	key   recordKey
	stats map[string]string // the state's TypeScript and JSON files, by stat
	rec   *record
	// asked is the shape of the last disk state the compiler recorded in
	// full, when it was the last it was asked about: it keeps that
	// state's program, which a request of the same shape may reuse.
	asked    [32]byte
	hasAsked bool
	// turn lets one request for the disk at a time ask the compiler.
	turn chan struct{}
}

// recordKey is a disk state as the record sees it: full changes with any
// TypeScript or JSON file; shape only when such a file is created or
// deleted, or a JSON file changes.
type recordKey struct {
	full, shape [32]byte
}

// recordState is files' disk state as the record sees it: its key, and
// each TypeScript and JSON file's stat.
func recordState(files Files) (recordKey, map[string]string) {
	full, shape := sha256.New(), sha256.New()
	stats := map[string]string{}
	for _, rel := range files.Sorted() {
		json := strings.HasSuffix(rel, ".json")
		if Family(rel) != "ecma" && !json {
			continue
		}
		st := files[rel]
		stat := fmt.Sprintf("%d\x00%d\x00%s", st.Size, st.ModTime, st.Digest)
		stats[rel] = stat
		fmt.Fprintf(full, "%s\x00%s\n", rel, stat)
		if json {
			fmt.Fprintf(shape, "%s\x00%s\n", rel, stat)
		} else {
			fmt.Fprintf(shape, "%s\n", rel)
		}
	}
	var key recordKey
	full.Sum(key.full[:0])
	shape.Sum(key.shape[:0])
	return key, stats
}

// projectConfigs returns the project files of files TypeScript reads
// projects from (none beyond maxRecordedProjects: no record is made).
func projectConfigs(paths []string) []string {
	var configs []string
	for _, rel := range paths {
		if projectConfig.MatchString(path.Base(rel)) && !inNodeModules(rel) {
			configs = append(configs, rel)
		}
	}
	if len(configs) > maxRecordedProjects {
		return nil
	}
	return configs
}

// recordFor returns the compiler's record for files with changes: the
// projects' imports on the disk, and, where the change set could make the
// compiler resolve otherwise (a file created or deleted, a JSON file —
// a configuration, a package.json — changed), on the changed tree too;
// both are kept, since an importer of either tree may break. Nil when
// there is no project, or more than maxRecordedProjects: Anvil's reading
// alone decides, as without a recorder, and Dependants.Recorded stays
// false.
func (g *Graph) recordFor(ctx context.Context, files Files, changes []*changeset.Change) *record {
	configs := projectConfigs(withChanged(files, changes))
	if len(configs) == 0 {
		return nil
	}
	rec := &record{edges: map[string]map[string][]string{}, unrecorded: map[string]string{}}
	rec.merge(g.diskRecord(ctx, files, configs))
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

// diskRecord is the record of the disk: the one kept when it serves
// (kept), else the compiler's, asked now.
func (g *Graph) diskRecord(ctx context.Context, files Files, configs []string) *record {
	key, stats := recordState(files)
	if rec := g.recorded.kept(key, stats, false); rec != nil {
		return rec
	}
	return g.recordDisk(ctx, configs, key, stats, false)
}

// TypeScriptStale reports whether RefreshTypeScript would ask the
// compiler: a recorder is set, files hold TypeScript projects, and the
// record kept is of another disk state.
func (g *Graph) TypeScriptStale(files Files) bool {
	if g.records == nil || len(projectConfigs(files.Sorted())) == 0 {
		return false
	}
	key, _ := recordState(files)
	c := &g.recorded
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rec == nil || c.key.full != key.full
}

// RefreshTypeScript makes the compiler's record for files (the disk as
// it is) unless the one kept is of their state; for a background job.
func (g *Graph) RefreshTypeScript(ctx context.Context, files Files) {
	configs := projectConfigs(files.Sorted())
	if g.records == nil || len(configs) == 0 {
		return
	}
	key, stats := recordState(files)
	g.recordDisk(ctx, configs, key, stats, true)
}

// recordDisk returns the record of the disk state key: the one kept, if
// it serves (see kept), else
// the compiler's, asked now and kept when complete. One request for the
// disk at a time: a check that needs the record a background job is
// making waits for that one instead of asking again. The compiler's
// answer is not given up on when the caller is (a hook's wait, a job
// superseded by the next disk state): it is made to the end and kept,
// for the next check, since a record of the same shape serves it too;
// the caller is answered with none ("not made in time") meanwhile.
func (g *Graph) recordDisk(ctx context.Context, configs []string, key recordKey, stats map[string]string, exact bool) *record {
	c := &g.recorded
	late := func() *record {
		return unrecordedAll(configs, "the compiler's record of the projects' imports was not made in time ("+context.Cause(ctx).Error()+")")
	}
	if ctx.Err() != nil {
		return late() // a free turn would otherwise be taken at random
	}
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return late()
	}
	if rec := c.kept(key, stats, exact); rec != nil {
		<-c.turn
		return rec
	}
	c.mu.Lock()
	reuse := c.hasAsked && c.asked == key.shape
	// Until this request is answered in full, which program the
	// compiler keeps is not known: one given up on, or failed, may still
	// have left its own.
	c.hasAsked = false
	c.mu.Unlock()
	answer := make(chan *record, 1)
	go func() {
		defer func() { <-c.turn }()
		actx, cancel := context.WithTimeout(g.records.Lifetime(), recordBound)
		defer cancel()
		rec := g.ask(actx, configs, nil, reuse)
		c.mu.Lock()
		if len(rec.unrecorded) == 0 {
			c.asked, c.hasAsked = key.shape, true
			c.key, c.stats, c.rec = key, stats, rec
		}
		c.mu.Unlock()
		answer <- rec
	}()
	select {
	case rec := <-answer:
		return rec
	case <-ctx.Done():
		return late()
	}
}

// kept returns the record kept if it serves the disk state key: its own
// state, or a later one of the same shape (the same files, the same
// JSON), whose changed files only are marked unrecorded — TypeScript
// resolves a specifier by the files there are and the configuration, so
// the record is still the compiler's for every unchanged file; a changed
// one may import something new. Nil when none serves, or, with exact,
// when the one kept is not of key's own state.
func (c *recordCache) kept(key recordKey, stats map[string]string, exact bool) *record {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.rec == nil || c.key.shape != key.shape:
		return nil
	case c.key.full == key.full:
		return c.rec
	case exact:
		return nil
	}
	rec := &record{edges: c.rec.edges, unrecorded: map[string]string{}}
	for rel, stat := range stats {
		if c.stats[rel] != stat {
			rec.unrecorded[rel] = "changed since the compiler's record of its imports was made (a new one is being made)"
		}
	}
	return rec
}

// unrecordedAll is a record that has none of configs' projects.
func unrecordedAll(configs []string, why string) *record {
	rec := &record{edges: map[string]map[string][]string{}, unrecorded: map[string]string{}}
	for _, cfg := range configs {
		rec.unrecorded[path.Dir(cfg)] = why
	}
	return rec
}

// ask records every project of configs on the tree overlay makes.
func (g *Graph) ask(ctx context.Context, configs []string, overlay map[string]*string, reuse bool) *record {
	rec := &record{edges: map[string]map[string][]string{}, unrecorded: map[string]string{}}
	root := g.root.Dir()
	for _, cfg := range configs {
		if ctx.Err() != nil {
			// Not asked: a request after its caller's end would only
			// start the recorder again.
			rec.unrecorded[path.Dir(cfg)] = fmt.Sprintf("the compiler's record of %s's imports was not made (%v)", cfg, context.Cause(ctx))
			continue
		}
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
