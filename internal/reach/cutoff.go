package reach

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/syntax"
)

// The early cut-off. A file can only be broken by a change through what
// it uses of the changed files: the exports it imports. So a change
// reaches an importer only when an export the importer uses changed its
// interface, and goes on from that importer only through its own exports
// whose interface changed because of it. The interface of an export is its
// declaration's shape (package syntax: the declaration without the bodies
// other files cannot see), the shapes of the local declarations it refers
// to, and the identity of the imports it refers to; an export of an
// unchanged file changes its interface when one of those imports did.
// Where the shape cannot be trusted name by name (a file that does not
// parse, CommonJS exports, `export =`, a module-wide statement), every
// export of the file counts as changed, which is the propagation without
// the cut-off. ARCHITECTURE.md says why this never misses a file the
// compiler would report on.

// nameSet is the set of a file's exports a change affects.
type nameSet struct {
	all   bool
	names map[string]bool
}

func allNames() nameSet { return nameSet{all: true} }

func (s nameSet) empty() bool { return !s.all && len(s.names) == 0 }

func (s nameSet) has(name string) bool { return s.all || s.names[name] }

// merge adds o to s and reports whether s grew.
func (s *nameSet) merge(o nameSet) bool {
	if s.all || o.empty() {
		return false
	}
	if o.all {
		s.all, s.names = true, nil
		return true
	}
	grew := false
	for n := range o.names {
		if !s.names[n] {
			if s.names == nil {
				s.names = map[string]bool{}
			}
			s.names[n] = true
			grew = true
		}
	}
	return grew
}

func (s *nameSet) add(name string) {
	s.merge(nameSet{names: map[string]bool{name: true}})
}

// opaqueReason says why a change to a file counts as a change of every
// export, or "" when its surfaces compare name by name.
func opaqueReason(before, after *syntax.Surface) string {
	switch {
	case before == nil || after == nil:
		return "its exports cannot be read (no surface)"
	case after.Opaque != "":
		return "its exports cannot be told apart: " + after.Opaque
	case before.Opaque != "":
		return "its exports could not be told apart before the change: " + before.Opaque
	case before.ModuleWide.Hash != after.ModuleWide.Hash:
		return "a module-wide statement changed (one that is no single name's declaration)"
	case !slices.Equal(sortedCopy(before.Stars), sortedCopy(after.Stars)) || !slices.Equal(sideEffects(before), sideEffects(after)):
		return "its star re-exports or side-effect imports changed"
	}
	return ""
}

// diffSurfaces returns the exports whose interface differs between two
// surfaces of one file, looking at the file alone (what its imports do is
// the propagation's business).
func diffSurfaces(before, after *syntax.Surface) nameSet {
	if before == nil || after == nil || before.Opaque != "" || after.Opaque != "" {
		return allNames()
	}
	if before.ModuleWide.Hash != after.ModuleWide.Hash || !slices.Equal(sortedCopy(before.Stars), sortedCopy(after.Stars)) ||
		!slices.Equal(sideEffects(before), sideEffects(after)) {
		return allNames()
	}
	var out nameSet
	for name, ob := range before.Exports {
		oa, ok := after.Exports[name]
		if !ok || ob != oa || (ob.Local != "" && closureDigest(before, ob.Local) != closureDigest(after, oa.Local)) {
			out.add(name)
		}
	}
	for name := range after.Exports {
		if _, ok := before.Exports[name]; !ok {
			out.add(name)
		}
	}
	return out
}

func sortedCopy(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return out
}

// sideEffects returns the modules a surface imports for their effects
// alone.
func sideEffects(s *syntax.Surface) []string {
	var out []string
	for _, b := range s.Imports {
		if b.Name == "" {
			out = append(out, b.Module)
		}
	}
	slices.Sort(out)
	return out
}

// closureDigest digests what the interface of the local name depends on
// within its file: the shapes of the declarations it reaches through its
// references, and the imports it reaches (by module and name).
func closureDigest(s *syntax.Surface, local string) string {
	var parts []string
	seen := map[string]bool{}
	var visit func(ref string)
	visit = func(ref string) {
		if seen[ref] {
			return
		}
		seen[ref] = true
		base, member, _ := strings.Cut(ref, ".")
		if sh, ok := s.Names[base]; ok && !seen["\x00name:"+base] {
			seen["\x00name:"+base] = true
			parts = append(parts, "name "+base+" "+sh.Hash)
			for _, r := range sh.Refs {
				visit(r)
			}
		}
		for _, b := range s.Imports {
			if b.Local == base {
				parts = append(parts, "import "+base+" "+b.Module+" "+b.Name+" "+member)
			}
		}
	}
	visit(local)
	sort.Strings(parts)
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// propagation spreads a change set's interface changes through the
// importers, level by level.
type propagation struct {
	gr  *importGraph
	cut bool

	changed map[string]*nameSet // each file's exports that changed, so far
	dist    map[string]int      // how far each file the change went through is from it
	level   map[string]int      // how far each reached file (to check) is from the change
	order   []string            // reached dependants, in the order found
	queue   []string
	// unknownReached: the files with unresolved imports have been added
	// (once any interface changed).
	unknownReached map[string]bool
	// outside says why the project's own checks leave a file out ("" if
	// they cover it); such a file is checked only when it imports a
	// changed file itself.
	outside func(rel string) string
}

func newPropagation(gr *importGraph, cut bool, outside func(rel string) string) *propagation {
	return &propagation{gr: gr, cut: cut, outside: outside, changed: map[string]*nameSet{}, dist: map[string]int{}, level: map[string]int{}, unknownReached: map[string]bool{}}
}

// seed starts from a changed file and the exports its own text changes.
func (p *propagation) seed(file string, names nameSet) {
	p.dist[file] = 0
	p.grow(file, names)
}

// visit records how far file is from the change, the first time.
func (p *propagation) visit(file string, dist int) {
	if _, ok := p.dist[file]; !ok {
		p.dist[file] = dist
	}
}

// reach records that file must be checked, at the given distance, with
// the exports that change because of it.
func (p *propagation) reach(file string, level int, names nameSet) {
	p.visit(file, level)
	if level > 1 && p.outside(file) != "" {
		// Outside the project's checks and not a direct user of the
		// change: nothing the project checks can break here. What it
		// exports still goes on.
		p.grow(file, names)
		return
	}
	if gf := p.gr.files[file]; gf == nil || !gf.changed {
		if _, ok := p.level[file]; !ok {
			p.level[file] = level
			p.order = append(p.order, file)
		}
	}
	p.grow(file, names)
}

func (p *propagation) grow(file string, names nameSet) {
	cur := p.changed[file]
	if cur == nil {
		cur = &nameSet{}
		p.changed[file] = cur
	}
	if cur.merge(names) {
		p.queue = append(p.queue, file)
	}
}

// run spreads the changes until nothing grows.
func (p *propagation) run(ctx context.Context) error {
	for len(p.queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		x := p.queue[0]
		p.queue = p.queue[1:]
		cs := *p.changed[x]
		if cs.empty() {
			continue
		}
		if fam := Family(x); !p.unknownReached[fam] {
			// An import nothing resolves may lead to this file.
			p.unknownReached[fam] = true
			for _, f := range p.gr.unknown[fam] {
				p.reach(f, 1, allNames())
			}
		}
		for _, e := range p.gr.importers[x] {
			y := p.gr.files[e.from]
			if y == nil || y.surface == nil {
				continue
			}
			if !p.cut || uses(y.surface.Imports[e.binding], e.name, cs) {
				p.reach(e.from, p.dist[x]+1, p.exportsChanged(e.from))
				continue
			}
			// Not a use, but maybe a re-export (Python's top-level imports
			// are attributes of the module): what changes goes on from
			// here without this file being checked.
			if ex := p.exportsChanged(e.from); !ex.empty() {
				p.visit(e.from, p.dist[x]+1)
				p.grow(e.from, ex)
			}
		}
	}
	return nil
}

// uses reports whether binding b, taking name from a file whose exports
// cs changed, uses one of them.
func uses(b syntax.Binding, name string, cs nameSet) bool {
	switch {
	case cs.empty() || b.Name == "":
		return false // a side-effect import uses no export
	case cs.all:
		return true
	case name != "*":
		return cs.has(name)
	case b.Whole || b.Local == "":
		return true
	}
	for _, m := range b.Members {
		if cs.has(m) {
			return true
		}
	}
	return false
}

// exportsChanged returns the exports of file whose interface changes with
// what the propagation has changed so far in the files it imports.
func (p *propagation) exportsChanged(file string) nameSet {
	gf := p.gr.files[file]
	s := gf.surface
	if !p.cut || s == nil || s.Opaque != "" {
		return allNames()
	}
	bindingsOf := map[string][]int{}
	for i, b := range s.Imports {
		bindingsOf[b.Local] = append(bindingsOf[b.Local], i)
	}
	dirtyBinding := func(i int, member string) bool {
		for _, l := range gf.links[i] {
			cs := p.changed[l.target]
			if cs == nil || cs.empty() {
				continue
			}
			if l.name != "*" {
				if cs.has(l.name) {
					return true
				}
				continue
			}
			if member == "" || cs.has(member) {
				return true
			}
		}
		return false
	}
	memo := map[string]bool{}
	var dirty func(ref string, seen map[string]bool) bool
	dirty = func(ref string, seen map[string]bool) bool {
		base, member, _ := strings.Cut(ref, ".")
		for _, i := range bindingsOf[base] {
			if dirtyBinding(i, member) {
				return true
			}
		}
		sh, ok := s.Names[base]
		if !ok || seen[base] {
			return false
		}
		if d, ok := memo[base]; ok {
			return d
		}
		seen[base] = true
		d := false
		for _, r := range sh.Refs {
			if dirty(r, seen) {
				d = true
				break
			}
		}
		memo[base] = d
		return d
	}
	for _, r := range s.ModuleWide.Refs {
		if dirty(r, map[string]bool{}) {
			return allNames()
		}
	}
	var out nameSet
	for exported, o := range s.Exports {
		switch {
		case o.Module != "":
			for i, b := range s.Imports {
				if b.Module == o.Module && b.Name == o.Name && dirtyBinding(i, "") {
					out.add(exported)
					break
				}
			}
		case dirty(o.Local, map[string]bool{}):
			out.add(exported)
		}
	}
	for _, star := range s.Stars {
		for i, b := range s.Imports {
			if b.Module != star || b.Name != "*" {
				continue
			}
			for _, l := range gf.links[i] {
				cs := p.changed[l.target]
				if cs == nil {
					continue
				}
				if cs.all {
					return allNames()
				}
				for n := range cs.names {
					if _, own := s.Exports[n]; !own {
						out.add(n)
					}
				}
			}
		}
	}
	return out
}

// result lists the dependants found, nearest first, up to limit.
func (p *propagation) result(limit int) Dependants {
	files := slices.Clone(p.order)
	sort.SliceStable(files, func(i, j int) bool { return p.level[files[i]] < p.level[files[j]] })
	var d Dependants
	for _, f := range files {
		if p.level[f] <= 1 {
			d.Direct++
		}
	}
	if len(files) > limit {
		files, d.Capped = files[:limit], true
		d.Direct = min(d.Direct, limit)
	}
	d.Files = files
	return d
}

// unaffected counts the files that import the changed files, directly or
// not (or may: an import nothing resolves), that the propagation did not
// reach.
func (p *propagation) unaffected() int {
	seen := map[string]bool{}
	var queue []string
	for f, gf := range p.gr.files {
		if gf.changed {
			seen[f] = true
			queue = append(queue, f)
		}
	}
	families := map[string]bool{}
	for _, f := range queue {
		families[Family(f)] = true
	}
	for fam := range families {
		for _, u := range p.gr.unknown[fam] {
			if !seen[u] {
				seen[u] = true
				queue = append(queue, u)
			}
		}
	}
	n := 0
	for _, f := range queue {
		if _, reached := p.level[f]; !reached && !p.gr.files[f].changed {
			n++
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range p.gr.importers[x] {
			if seen[e.from] {
				continue
			}
			seen[e.from] = true
			queue = append(queue, e.from)
			if _, reached := p.level[e.from]; !reached {
				n++
			}
		}
	}
	return n
}
