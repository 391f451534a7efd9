package reach

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path"
	"slices"
	"sync"

	"github.com/anvil-dev/anvil/internal/syntax"
)

// keptRecord keeps a checker's latest record of which files each file
// reads (workspace-relative), made in the background: a record costs a
// checker's run over the project (seconds on a real one), so no check
// waits for one. A check takes the record kept, whatever shape of the
// workspace it was made for, since a record of another shape still only
// adds readers: a read it misses (a file created since, a directive added
// since) is Anvil's own reading's to find, as without a record.
type keptRecord struct {
	mu    sync.Mutex
	key   [32]byte // the shape edges were made for
	edges map[string][]string
	// failed is a shape whose record could not be had: not asked again.
	failed    [32]byte
	hasFailed bool
	// run lets one record run at a time.
	run sync.Mutex
}

// get returns the record kept; nil while none was made.
func (c *keptRecord) get() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.edges
}

// stale reports whether no record was made (or failed) for shape key.
func (c *keptRecord) stale(key [32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !(c.edges != nil && c.key == key || c.hasFailed && c.failed == key)
}

// refresh makes the record for shape key with record, unless one is kept
// (or failed) for it; a record cut short by ctx is not taken as failed.
func (c *keptRecord) refresh(ctx context.Context, key [32]byte, record func(context.Context) (map[string][]string, error)) {
	c.run.Lock()
	defer c.run.Unlock()
	if !c.stale(key) {
		return
	}
	edges, err := record(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			c.failed, c.hasFailed = key, true
		}
		return
	}
	c.key, c.edges = key, edges
}

// recordShape is the shape of files a checker's record of family fam is
// made for: the family's files by name, and the files named configs (the
// checker's configuration) by stat.
func recordShape(files Files, fam string, configs ...string) [32]byte {
	shape := sha256.New()
	for _, rel := range files.Sorted() {
		switch {
		case Family(rel) == fam:
			fmt.Fprintf(shape, "%s\n", rel)
		case slices.Contains(configs, path.Base(rel)):
			st := files[rel]
			fmt.Fprintf(shape, "%s\x00%d\x00%d\x00%s\n", rel, st.Size, st.ModTime, st.Digest)
		}
	}
	var key [32]byte
	shape.Sum(key[:0])
	return key
}

// relEdges returns a record of absolute paths (reader → files read) as
// workspace-relative edges between files of files, each file read once
// and never the reader itself.
func (g *Graph) relEdges(files Files, abs map[string][]string) map[string][]string {
	edges := map[string][]string{}
	for from, targets := range abs {
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
	return edges
}

// withRecordedFiles adds to gf, rel's file in gr, a whole-module binding
// for each file a checker's record says rel reads that Anvil's reading
// did not link it to (a namespace package a .pth file adds to pyright's
// path; a file the preprocessor reads that no directive Anvil reads
// names): the record adds what Anvil's reading leaves out.
func (gr *importGraph) withRecordedFiles(rel string, gf *graphFile, recorded []string) {
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
