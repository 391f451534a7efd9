package reach

import (
	"context"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/resolve"
	"github.com/anvil-dev/anvil/internal/scope"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/tsconfig"
	"github.com/anvil-dev/anvil/internal/tsdecl"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Graph finds what a change can break, for servers that only report
// on the files they are asked about (TypeScript's servers, pyright): the
// files that use an export of a changed file whose interface changed,
// then the files that use those files' exports whose interface changed in
// turn, and so on (the early cut-off, see cutoff.go). Imports are read
// from each file's surface (package syntax, cached by size and
// modification time) and resolved the way the compilers resolve them
// (package resolve).
//
// What cannot be traced is not dropped: a file importing a specifier
// nothing resolves counts as depending on every interface change of its
// language, and a change to a file whose effects travel outside the
// imports (a script, a "declare global", a "declare module", a
// triple-slash directive, Python's __builtins__.pyi) reaches every file of
// its language. So a dependant is missed only where the compiler itself would
// not see the import.
//
// C and C++ files are read for their #include directives alone (see
// includes.go): every includer of a changed file is a dependant,
// transitively, with no cut-off, and a changed header nothing is seen to
// include reaches every C/C++ file.
type Graph struct {
	root     *workspace.Root
	parser   *syntax.Parser
	projects *tsconfig.Projects
	// cutoff stops propagation where interfaces stop changing; without
	// it every importer is a dependant, transitively.
	cutoff bool
	// decl, if set, is TypeScript's own interface of a changed file (its
	// declaration emit), which decides in place of the shape when it is
	// complete.
	decl *tsdecl.Emitter
	// emits says which changed files the emit is worth asking about.
	emits emitOdds
	// records, if set, is the compiler's record of the imports it
	// resolved, taken beside Anvil's own resolution (records.go).
	records  ImportRecorder
	recorded recordCache
	resolved keptResolver
	// pyRecords, if set, is pyright's record of the imports it resolved,
	// taken beside Anvil's own resolution (pyrecords.go).
	pyRecords  PythonRecorder
	pyRecorded keptRecord
	// cRecords, if set, is the compilers' record of what each C/C++
	// translation unit reads (crecords.go).
	cRecords  CRecorder
	cRecorded keptRecord

	mu    sync.Mutex
	cache map[string]fileImports // by relative path
}

type fileImports struct {
	stat FileStat
	// surface is nil for a file with no surface (JSON, binary, too
	// large): a change to it changes everything it exports.
	surface *syntax.Surface
	effects
}

// effects is what a file declares beyond its exports: effects that
// travel outside the imports, so that the graph cannot tell who sees
// them, and everyone of the file's language does.
type effects struct {
	// global: the file puts names in the global scope or changes another
	// module's: a TypeScript or JavaScript script, a module with `declare
	// global`, `export as namespace`, or `declare module "m"` (an ambient
	// module, or an augmentation of m, relative or bare, which changes
	// m's types for all its importers from a file none of them imports),
	// or Python's `__builtins__.pyi`, which adds to every file's builtins.
	global bool
	// references are the triple-slash directives (`/// <reference
	// lib|types|path|no-default-lib …/>`), which change what the whole
	// program sees: a change to them reaches every file.
	references []string
}

// maxImportScanSize skips files too large to be hand-written source.
// Such a file's imports are not known (tooLargeToScan): it is a
// dependant of every change of its language.
const maxImportScanSize = 2 << 20

// tooLargeToScan reports whether the source file rel (its size on disk
// size; c its change, if any) is past maxImportScanSize: data files
// (JSON) import nothing, whatever their size.
func tooLargeToScan(rel string, size int64, c *changeset.Change) bool {
	if strings.EqualFold(path.Ext(rel), ".json") {
		return false
	}
	if c != nil {
		size = int64(len(c.Content))
	}
	return size > maxImportScanSize
}

// New returns a graph over root that parses with parser.
func New(root *workspace.Root, parser *syntax.Parser) *Graph {
	return &Graph{root: root, parser: parser, projects: tsconfig.NewProjects(root.Dir()), cutoff: true, cache: map[string]fileImports{},
		recorded: recordCache{turn: make(chan struct{}, 1)}}
}

// WithTypeScript has the graph ask Anvil's TypeScript (nil asks
// nothing) for a changed file's interface, which the cut-off compares.
func (g *Graph) WithTypeScript(e *tsdecl.Emitter) *Graph {
	g.decl = e
	return g
}

// WithImportRecords has the graph ask e (nil asks nothing) for the
// imports the compiler resolved in each project, taken beside Anvil's own
// resolution (records.go). A record is a program of every project,
// seconds on a real one, made in the background for each disk state, and
// an emitter answers one request at a time: the app gives it a process of
// its own, so that a check's interface comparison (WithTypeScript) never
// waits behind it.
func (g *Graph) WithImportRecords(e *tsdecl.Emitter) *Graph {
	g.records = nil
	if e != nil {
		g.records = e
	}
	return g
}

// WithoutCutoff makes Dependants count every importer, transitively, as
// if every interface had changed (the behaviour before the cut-off; tests
// compare the two).
func (g *Graph) WithoutCutoff() *Graph {
	g.cutoff = false
	return g
}

// Dependants are the files that depend on a change, nearest first.
type Dependants struct {
	Files []string
	// Direct is how many of Files (the first ones) import a changed file
	// themselves (or may: see Graph); the rest import those, and so
	// on.
	Direct int
	// Capped reports that the limit left some out.
	Capped bool
	// InterfacesKept: every changed file kept its exports' interfaces and
	// its effects within its imports, so no other file can be affected
	// and the importers were neither looked for nor counted (Unaffected
	// is 0).
	InterfacesKept bool
	// Unaffected counts the files that import the change, directly or
	// through others, and that it cannot affect: none of the exports they
	// use changed its interface. They are not in Files.
	Unaffected int
	// ByCompiler are the changed files whose interface TypeScript's
	// declaration emit compared (complete before and after the change).
	ByCompiler []string
	// Recorded: TypeScript's compiler recorded the imports of every
	// project of the workspace, on the disk and, for a change set that
	// creates or deletes a file, on the changed tree (records.go). A
	// TypeScript file that record and Anvil's reading both leave without
	// importers is read by no file the compiler checks, other than through
	// a project's configuration.
	Recorded bool
	// Global: a changed file's effects travel outside its imports
	// (declare global or module, a script's globals, a triple-slash
	// directive, __builtins__.pyi): they may reach files no import
	// graph holds, an installed package's declarations among them.
	Global bool
	// PythonUnrecorded: a Python file's interface changed (or the file
	// came or went), the graph takes pyright's record (WithPython), and
	// none was made yet (a cold start), or the record leaves out the
	// imports of some of the workspace's pyright projects (more than it
	// runs): who reads it is Anvil's reading alone, which a record may
	// add to. The project's batch check decides then (slower, sound).
	PythonUnrecorded bool
	// Opaque says, for each changed file whose change counts as a change
	// of every export or reaches every file (so the cut-off did not
	// apply), why.
	Opaque map[string]string
	// Outside names, for the changed files and dependants that the
	// project's own checks leave out (a tsconfig.json or pyright's include
	// and exclude), the configuration that does. Such a dependant is
	// checked only when it imports a changed file itself.
	Outside map[string]string
}

// Dependants returns the files of the workspace (files) that the changes
// can affect, nearest first, up to limit, and why (see Dependants).
func (g *Graph) Dependants(ctx context.Context, files Files, changes []*changeset.Change, limit int) (Dependants, error) {
	return g.dependants(ctx, files, changes, limit, g.cutoff)
}

// Importers returns every file of files that imports one of the changed
// files, directly or through others, whatever changed: behaviour reaches
// through function bodies, which interfaces leave out (the run stage
// selects tests by it).
func (g *Graph) Importers(ctx context.Context, files Files, changes []*changeset.Change, limit int) (Dependants, error) {
	return g.dependants(ctx, files, changes, limit, false)
}

// readable sorts changes by the family of files that can read them: the
// changes any file can read (changed), their families, and the fragments
// among them. A file of no language a C/C++ file includes is C/C++ to
// the compiler, whatever its name (an X-macro list, colors.def): each
// such change is tried as an include, and stays one if an include
// resolves to it; without C files, nothing could include it.
func readable(files Files, changes []*changeset.Change) (changed map[string]*changeset.Change, families, fragments map[string]bool) {
	changed, families, fragments = map[string]*changeset.Change{}, map[string]bool{}, map[string]bool{}
	hasC := sync.OnceValue(func() bool { return hasFamily(files, "c") })
	for _, c := range changes {
		fam := Family(c.Path)
		if fam == "" {
			if !hasC() {
				continue
			}
			fam = "c"
			fragments[c.Path] = true
		}
		families[fam] = true
		changed[c.Path] = c
	}
	return changed, families, fragments
}

// keptEarly is the early cut-off's answer before any graph is built: no
// change can reach another file (interfacesKept), and none is C/C++ or a
// fragment, whose includers the cut-off does not judge.
func (g *Graph) keptEarly(ctx context.Context, changed map[string]*changeset.Change, families, fragments map[string]bool) bool {
	return len(fragments) == 0 && !families["c"] && g.interfacesKept(ctx, changed)
}

func (g *Graph) dependants(ctx context.Context, files Files, changes []*changeset.Change, limit int, cut bool) (Dependants, error) {
	changed, families, fragments := readable(files, changes)
	if len(families) == 0 {
		return Dependants{}, nil
	}
	if cut && g.keptEarly(ctx, changed, families, fragments) {
		return g.keptInterfaces(changed), nil
	}
	paths := withChanged(files, changes)
	res, projects, key := g.resolver(files, paths)
	defer g.keepResolver(key, res, projects)
	var rec *record
	if families["ecma"] && g.records != nil {
		rec = g.recordFor(ctx, files, changes)
	}
	recorded := map[string]map[string][]string{}
	if families["python"] {
		recorded["python"] = g.pyRecorded.get()
	}
	if families["c"] {
		recorded["c"] = g.cRecorded.get()
	}
	gr, err := g.reverse(ctx, files, paths, families, res, rec, recorded, changed, fragments)
	if err != nil {
		return Dependants{}, err
	}
	// An include nothing resolves (a macro's) may name a fragment as
	// well as a header: while there is one, every fragment stays.
	for rel := range fragments {
		if !gr.includedByOthers(rel) && len(gr.unknown["c"]) == 0 {
			delete(gr.fragments, rel)
			delete(changed, rel)
		}
	}
	if len(changed) == 0 {
		return Dependants{}, nil
	}
	p := newPropagation(gr, cut, g.outside(projects))
	opaque := map[string]string{}
	var byCompiler []string
	// pyInterface: a Python file's interface changed (or the file came or
	// went), so an importer the reading misses could break.
	pyInterface := false
	for _, c := range changes {
		if changed[c.Path] == nil {
			continue
		}
		cs := allNames()
		if cut && c.BaseExists && !c.Delete {
			before, after := g.surfaceOf(ctx, c.Path, gr.family(c.Path), c.Base), gr.files[c.Path].surface
			cs = diffSurfaces(before, after)
			if why := opaqueReason(before, after); why != "" {
				opaque[c.Path] = why
			} else if !cs.empty() {
				if dcs, ok := g.declarationChanges(ctx, c); ok {
					cs = dcs
					byCompiler = append(byCompiler, c.Path)
				}
			}
		}
		p.seed(c.Path, cs)
		pyInterface = pyInterface || gr.family(c.Path) == "python" && !cs.empty()
	}
	anyGlobal := false
	for _, c := range changes {
		fam := gr.family(c.Path)
		if changed[c.Path] == nil {
			continue
		}
		installed := g.root.InDependencyDir(c.Path)
		global := changedScope(c).global
		anyGlobal = anyGlobal || global
		if global || untracedHeader(gr, c) || installed {
			if cut {
				opaque[c.Path] = "and every file of its language: its effects travel outside the imports (a script's globals, declare global or module, a triple-slash directive, __builtins__.pyi, a header nothing includes)"
				if installed {
					opaque[c.Path] = "and every file of its language: it is an installed package's file, which the graph does not read, so who imports it is not known"
				}
			}
			for _, f := range gr.byFamily[fam] {
				p.reach(f, 1, allNames())
			}
		}
	}
	if err := p.run(ctx); err != nil {
		return Dependants{}, err
	}
	d := p.result(limit)
	if cut && !d.Capped {
		d.Unaffected = p.unaffected()
	}
	if len(opaque) > 0 {
		d.Opaque = opaque
	}
	d.ByCompiler = byCompiler
	d.Global = anyGlobal
	d.Recorded = rec != nil && len(rec.unrecorded) == 0
	d.PythonUnrecorded = pyInterface && g.pyRecords != nil && (recorded["python"] == nil || g.pythonRecordPartial(files))
	for _, f := range append(slices.Sorted(maps.Keys(changed)), d.Files...) {
		if why := p.outside(f); why != "" {
			if d.Outside == nil {
				d.Outside = map[string]string{}
			}
			d.Outside[f] = why
		}
	}
	return d, nil
}

// interfacesKept reports whether no change can reach another file: each
// is a file of TypeScript's or Python's family, edited in place, outside
// the installed packages, whose exports all kept their interfaces and
// whose effects stay within its imports. The propagation would then
// start from nothing (an empty set of changed exports reaches no
// importer, not even one whose import nothing resolves: propagation.run),
// so the import graph is not built: on a project of 1,500 files it costs
// tens of milliseconds warm and seconds cold, and a body edit, most of
// an agent's edits, then costs the parse of its own file. The rule is the
// cut-off's own, decided the same way (diffSurfaces, opaqueReason,
// changedScope); a change the declaration emit would find unchanged
// where the surfaces differ still goes the long way.
func (g *Graph) interfacesKept(ctx context.Context, changed map[string]*changeset.Change) bool {
	for rel, c := range changed {
		fam := Family(rel)
		if fam != "ecma" && fam != "python" || !c.BaseExists || c.Delete || g.root.InDependencyDir(rel) || changedScope(c).global {
			return false
		}
		before, after := g.surfaceOf(ctx, rel, fam, c.Base), g.surfaceOf(ctx, rel, fam, c.Content)
		if opaqueReason(before, after) != "" || !diffSurfaces(before, after).empty() {
			return false
		}
	}
	return true
}

// InterfacesKept reports whether changes reach no other file, as the
// early cut-off decides it before building the import graph (keptEarly,
// the rule Dependants takes): a caller that leaves the dependants to a later check
// (the pre-edit hook) learns from it, for the cost of parsing the changed
// files, whether there are any to leave. False when the graph does not
// cut off at all.
func (g *Graph) InterfacesKept(ctx context.Context, files Files, changes []*changeset.Change) bool {
	if !g.cutoff {
		return false
	}
	changed, families, fragments := readable(files, changes)
	return len(families) == 0 || g.keptEarly(ctx, changed, families, fragments)
}

// keptInterfaces is the answer for changes that kept every interface
// (interfacesKept): no dependant, and which of the changed files the
// project's own checks leave out.
func (g *Graph) keptInterfaces(changed map[string]*changeset.Change) Dependants {
	d := Dependants{InterfacesKept: true}
	outside := g.outside(g.projects.Pass())
	for _, rel := range slices.Sorted(maps.Keys(changed)) {
		if why := outside(rel); why != "" {
			if d.Outside == nil {
				d.Outside = map[string]string{}
			}
			d.Outside[rel] = why
		}
	}
	return d
}

// declarationChanges compares a changed TypeScript file's declaration
// emit before and after, export by export; false when TypeScript cannot
// give a complete emit for either side (an export whose type needs
// inference), or is not asked. By TypeScript's own rule (the builder
// re-checks importers only when a file's declaration emit changed), what
// it says unchanged cannot break an importer, except a private member's
// type, which the emit drops and an importer can read (`new A()["x"]`):
// the builder misses that change, so the open emit (package tsdecl)
// compares it too. Effects outside the imports are decided apart from it
// (changedScope).
func (g *Graph) declarationChanges(ctx context.Context, c *changeset.Change) (nameSet, bool) {
	ext := strings.ToLower(path.Ext(c.Path))
	if g.decl == nil || strings.HasSuffix(strings.ToLower(c.Path), ".d.ts") || (ext != ".ts" && ext != ".tsx" && ext != ".mts" && ext != ".cts") {
		return nameSet{}, false
	}
	if !g.emits.worthAsking(c) {
		return nameSet{}, false
	}
	// Each side's emit, and its open emit (private members made public,
	// with their types, which the emit drops and an importer can read).
	var surfaces [2][2]*syntax.Surface
	for i, src := range [][]byte{c.Base, c.Content} {
		r, err := g.decl.Emit(ctx, path.Base(c.Path), src)
		if err == nil {
			g.emits.learn(c.Path, r)
		}
		if err != nil || !r.Complete {
			return nameSet{}, false
		}
		for j, dts := range []string{r.DTS, r.Open} {
			s, err := g.parser.Surface(ctx, syntax.TypeScript, []byte(dts))
			if err != nil || s.Opaque != "" {
				return nameSet{}, false
			}
			surfaces[i][j] = s
		}
	}
	cs := diffSurfaces(surfaces[0][0], surfaces[1][0])
	cs.merge(diffSurfaces(surfaces[0][1], surfaces[1][1]))
	return cs, true
}

// outside returns what says whether the project's own checks cover a file:
// "" when they do, else the configuration that leaves it out.
func (g *Graph) outside(projects *tsconfig.Projects) func(rel string) string {
	return scope.New(g.root.Dir(), projects).Outside
}

// importGraph is the workspace's imports, resolved, for the files of the
// families a change touches; changed files as they would be after it.
type importGraph struct {
	files     map[string]*graphFile
	importers map[string][]edge   // target → its uses
	byFamily  map[string][]string // every file of each family
	unknown   map[string][]string // files with a specifier nothing resolves, by family
	// fragments are the changed files of no language read as C/C++
	// includes (see Graph.dependants).
	fragments map[string]bool
}

// family is rel's family in the graph: a fragment is C/C++.
func (gr *importGraph) family(rel string) string {
	if gr.fragments[rel] {
		return "c"
	}
	return Family(rel)
}

// includedByOthers reports whether a file of the graph other than rel
// uses rel.
func (gr *importGraph) includedByOthers(rel string) bool {
	for _, e := range gr.importers[rel] {
		if e.from != rel {
			return true
		}
	}
	return false
}

// graphFile is one file of the graph: its surface, and where each of its
// bindings leads.
type graphFile struct {
	surface *syntax.Surface
	links   [][]link // by binding index
	changed bool     // part of the change set
}

// link is a binding's target: the file, and the name the binding takes
// from it ("*" for the whole module).
type link struct {
	target, name string
}

// edge is a use of a file: the importing file and its binding.
type edge struct {
	from    string
	binding int
	name    string
}

// reverse builds the graph for the files of the given families among
// paths (see withChanged).
func (g *Graph) reverse(ctx context.Context, files Files, paths []string, families map[string]bool, res *resolve.Workspace, rec *record, recorded map[string]map[string][]string, changed map[string]*changeset.Change, fragments map[string]bool) (*importGraph, error) {
	gr := &importGraph{files: map[string]*graphFile{}, importers: map[string][]edge{}, byFamily: map[string][]string{},
		unknown: map[string][]string{}, fragments: fragments}
	var includes *compiledb.Resolver
	if families["c"] {
		includes = compiledb.NewResolver(g.root.Dir(), paths)
	}
	for _, rel := range paths {
		fam := gr.family(rel)
		if !families[fam] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		gf := &graphFile{}
		c, isChanged := changed[rel]
		switch {
		case isChanged && c.Delete:
			gf.changed = true // a target still, importing nothing
		case isChanged:
			gf.changed = true
			gf.surface = g.surfaceOf(ctx, rel, fam, c.Content)
		default:
			gf.surface = g.importsOf(ctx, rel, files[rel]).surface
		}
		if !isChanged || !c.Delete {
			gr.byFamily[fam] = append(gr.byFamily[fam], rel)
		}
		gr.files[rel] = gf
		if gf.surface == nil {
			if !(isChanged && c.Delete) && tooLargeToScan(rel, files[rel].Size, c) {
				// Its imports were never read (nor its compiler's record
				// of them taken): it may import anything of its language.
				gr.unknown[fam] = append(gr.unknown[fam], rel)
			}
			continue
		}
		unknown := false
		if fam == "ecma" {
			gf.surface = withRecorded(gf.surface, rec.specs(rel))
			// A project the compiler could not record may import anything.
			unknown = rec.unrecordedWhy(rel) != ""
		}
		if fam == "c" {
			// A response file Anvil does not read may force in anything.
			unknown = includes.ForcesUnknown(rel)
			// What the compile command forces in (-include) is included
			// before the first line.
			if forced := includes.Forced(rel); len(forced) > 0 {
				s := *gf.surface
				s.Imports = slices.Clone(s.Imports)
				for _, f := range forced {
					s.Imports = append(s.Imports, syntax.Binding{Module: forcedInclude + f, Name: "*", Whole: true})
				}
				gf.surface = &s
			}
		}
		gf.links = make([][]link, len(gf.surface.Imports))
		for i, b := range gf.surface.Imports {
			switch fam {
			case "ecma":
				targets, known := res.ECMA(rel, b.Module)
				if !known {
					unknown = true
				}
				targets = appendNew(targets, rec.targets(rel, b.Module)...)
				for _, t := range targets {
					gf.links[i] = append(gf.links[i], link{target: t, name: b.Name})
				}
			case "c":
				targets, known := []string{strings.TrimPrefix(b.Module, forcedInclude)}, true
				if !strings.HasPrefix(b.Module, forcedInclude) {
					targets, known = includes.Resolve(rel, b.Module)
				}
				if !known {
					unknown = true
				}
				for _, t := range targets {
					gf.links[i] = append(gf.links[i], link{target: t, name: "*"})
				}
			case "python":
				module, sub := res.PythonFrom(rel, b.Module, b.Name)
				for _, t := range module {
					gf.links[i] = append(gf.links[i], link{target: t, name: b.Name})
				}
				for _, t := range sub {
					gf.links[i] = append(gf.links[i], link{target: t, name: "*"})
				}
			}
			for _, l := range gf.links[i] {
				if l.target != rel { // `from . import x` in a package's __init__
					gr.importers[l.target] = append(gr.importers[l.target], edge{from: rel, binding: i, name: l.name})
				}
			}
		}
		if (fam == "python" || fam == "c") && (!isChanged || !c.Delete) {
			// pyright's record of its imports; the compilers' of what a
			// translation unit reads.
			gr.withRecordedFiles(rel, gf, recorded[fam][rel])
		}
		if unknown {
			gr.unknown[fam] = append(gr.unknown[fam], rel)
		}
	}
	return gr, nil
}

// withRecorded returns s with a whole-module binding for each specifier
// the compiler resolved that s does not import (a require, a dynamic
// import, an import the surface does not read): the record adds what
// Anvil's reading leaves out.
func withRecorded(s *syntax.Surface, recorded map[string][]string) *syntax.Surface {
	if len(recorded) == 0 {
		return s
	}
	read := map[string]bool{}
	for _, b := range s.Imports {
		read[b.Module] = true
	}
	var extra []string
	for spec := range recorded {
		if !read[spec] {
			extra = append(extra, spec)
		}
	}
	if len(extra) == 0 {
		return s
	}
	slices.Sort(extra)
	out := *s
	out.Imports = slices.Clone(s.Imports)
	for _, spec := range extra {
		out.Imports = append(out.Imports, syntax.Binding{Module: spec, Name: "*", Whole: true})
	}
	return &out
}

// hasFamily reports whether files hold a file of family fam.
func hasFamily(files Files, fam string) bool {
	for rel := range files {
		if Family(rel) == fam {
			return true
		}
	}
	return false
}

// withChanged returns the paths of files, in order, then the changed
// files the scan does not hold: a created file, and an existing one the
// scan leaves out (ignored, or an installed package's). Each changed file
// is so a node of the graph, which resolves imports to it.
func withChanged(files Files, changes []*changeset.Change) []string {
	paths := files.Sorted()
	seen := map[string]bool{}
	for _, c := range changes {
		if _, scanned := files[c.Path]; !scanned && !seen[c.Path] {
			seen[c.Path] = true
			paths = append(paths, c.Path)
		}
	}
	return paths
}

// surfaceOf parses src, the content of rel, a file of family fam, into
// its surface; nil when it has none.
func (g *Graph) surfaceOf(ctx context.Context, rel, fam string, src []byte) *syntax.Surface {
	if src == nil || len(src) > maxImportScanSize || workspace.IsBinary(src) {
		return nil
	}
	if fam == "c" {
		return cSurface(src)
	}
	lang, ok := syntax.LanguageForPath(rel)
	if !ok {
		return nil
	}
	s, err := g.parser.Surface(ctx, lang, src)
	if err != nil {
		return nil
	}
	return s
}

// importsOf returns what rel imports, from the cache when the file has not
// changed.
func (g *Graph) importsOf(ctx context.Context, rel string, st FileStat) fileImports {
	if st.Size > maxImportScanSize {
		return fileImports{}
	}
	g.mu.Lock()
	c, ok := g.cache[rel]
	g.mu.Unlock()
	if ok && c.stat == st {
		return c
	}
	fi := fileImports{stat: st}
	src, err := os.ReadFile(st.Abs)
	if err != nil || workspace.IsBinary(src) {
		return fi
	}
	fi.surface = g.surfaceOf(ctx, rel, Family(rel), src)
	fi.effects = scopeOf(rel, src)
	if ctx.Err() == nil {
		g.mu.Lock()
		g.cache[rel] = fi
		g.mu.Unlock()
	}
	return fi
}

// Global reports whether a change's effects travel outside the imports
// (a script's globals, declare global or module, a triple-slash
// directive, __builtins__.pyi), so that it reaches every file of its
// language: an incremental check's record of who imports whom does not
// cover it.
func Global(c *changeset.Change) bool {
	return changedScope(c).global
}

// changedScope is what a changed file declares beyond its exports, either
// side of the change: a file that stops declaring a global affects its
// users as much as one that starts.
func changedScope(c *changeset.Change) effects {
	before, after := scopeOf(c.Path, c.Base), scopeOf(c.Path, c.Content)
	if c.Delete || !c.BaseExists {
		if c.Delete {
			return before
		}
		return after
	}
	return effects{global: before.global || after.global || !slices.Equal(before.references, after.references)}
}

var (
	moduleSyntax   = regexp.MustCompile(`(?m)^\s*(import|export)\b`)
	commonJS       = regexp.MustCompile(`\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w`)
	declareGlobal  = regexp.MustCompile(`\bdeclare\s+global\b|(?m)^\s*export\s+as\s+namespace\b`)
	declareModule  = regexp.MustCompile(`\bdeclare\s+module\s+['"]`)
	referenceLine  = regexp.MustCompile(`(?m)^[ \t]*///[ \t]*<(reference|amd-module|amd-dependency)\b[^\n]*`)
	javaScriptExts = map[string]bool{".js": true, ".jsx": true, ".mjs": true, ".cjs": true}
	moduleExts     = map[string]bool{".mjs": true, ".cjs": true, ".mts": true, ".cts": true}
)

// scopeOf reads what a TypeScript or JavaScript file declares beyond its
// exports. A file without import or export is a script, whose top-level
// declarations are global, except JavaScript in CommonJS form, which
// TypeScript treats as a module. `export as namespace` declares a global
// too (a UMD module).
func scopeOf(rel string, src []byte) effects {
	ext := strings.ToLower(path.Ext(rel))
	if path.Base(rel) == "__builtins__.pyi" {
		return effects{global: true}
	}
	if Family(rel) != "ecma" || ext == ".json" || src == nil {
		return effects{}
	}
	var s effects
	module := moduleSyntax.Match(src) || (javaScriptExts[ext] && commonJS.Match(src)) || moduleExts[ext]
	s.global = !module || declareGlobal.Match(src) || declareModule.Match(src)
	for _, m := range referenceLine.FindAll(src, -1) {
		s.references = append(s.references, strings.TrimSpace(string(m)))
	}
	return s
}

// forcedInclude marks a binding made of a compile command's -include.
const forcedInclude = "-include "

// untracedHeader reports whether c is a C/C++ header nothing includes as
// far as the graph can tell: it may still be reached in ways the graph
// does not see (a macro, a path built by the build), so every C/C++ file
// depends on it. A translation unit's source has no includers, and a
// created header none but those the graph sees (an include that named it
// before it existed resolved nowhere, and reaches it as untraceable).
func untracedHeader(gr *importGraph, c *changeset.Change) bool {
	if Family(c.Path) != "c" || compiledb.IsSource(c.Path) || c.Created() {
		return false
	}
	for _, e := range gr.importers[c.Path] {
		if e.from != c.Path {
			return false
		}
	}
	return true
}

// Family groups languages that import each other: "ecma", "python", "c",
// or "" for a file of none. JSON files can be imported by TypeScript and
// JavaScript (resolveJsonModule); C and C++ files include each other
// ("c").
func Family(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json":
		return "ecma"
	case ".py", ".pyi":
		return "python"
	}
	if cExts[strings.ToLower(path.Ext(p))] {
		return "c"
	}
	return ""
}
