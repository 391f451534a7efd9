package shadow

import (
	"context"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/resolve"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/tsconfig"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// ImportGraph finds dependants through a reverse-import graph built from
// each file's imports (tree-sitter), for servers that only report on the
// files they are asked about (TypeScript's servers, pyright). Specifiers
// are resolved the way the compilers resolve them (see package resolve).
// Each file's imports are cached by size and modification time.
//
// What cannot be traced to a file is not dropped: a file importing a
// specifier nothing resolves counts as depending on every change of its
// language, and a change to a file that declares globals (a script, a
// "declare global", a "declare module") reaches every file of its
// language. So a dependant is missed only where the compiler itself would
// not see the import.
type ImportGraph struct {
	root     *workspace.Root
	parser   *syntax.Parser
	projects *tsconfig.Projects

	mu    sync.Mutex
	cache map[string]fileImports // by relative path
}

type fileImports struct {
	stat  FileStat
	specs []importSpec
	scope
}

type importSpec struct{ name, ident string }

// scope is what a file declares beyond its exports.
type scope struct {
	// global: the file puts names in the global scope (a TypeScript or
	// JavaScript script, or a module with "declare global").
	global bool
	// ambient are the modules it declares ("declare module 'x'").
	ambient []string
}

// maxImportScanSize skips files too large to be hand-written source.
const maxImportScanSize = 2 << 20

// NewImportGraph returns a graph over root that parses with parser.
func NewImportGraph(root *workspace.Root, parser *syntax.Parser) *ImportGraph {
	return &ImportGraph{root: root, parser: parser, projects: tsconfig.NewProjects(root.Dir()), cache: map[string]fileImports{}}
}

// Dependants are the files that depend on a change, nearest first.
type Dependants struct {
	Files []string
	// Direct is how many of Files (the first ones) import a changed file
	// themselves (or may: see ImportGraph); the rest import those, and so
	// on.
	Direct int
	// Capped reports that the limit left some out.
	Capped bool
}

// Dependants returns the files of snap that import any of the changed
// files, then the files that import those, level by level, up to limit.
func (g *ImportGraph) Dependants(ctx context.Context, snap *Snapshot, changes []*changeset.Change, limit int) (Dependants, error) {
	var d Dependants
	families := map[string]bool{}
	for _, c := range changes {
		if fam := family(c.Path); fam != "" {
			families[fam] = true
		}
	}
	if len(families) == 0 {
		return d, nil
	}
	files := snap.Sorted()
	for _, c := range changes {
		if c.Created() {
			files = append(files, c.Path)
		}
	}
	res := resolve.New(g.root.Dir(), files, g.projects)
	graph, err := g.reverse(ctx, snap, families, res)
	if err != nil {
		return d, err
	}
	seen := map[string]bool{}
	var level []string
	for _, c := range changes {
		seen[c.Path] = true
		level = append(level, c.Path)
	}
	// The first level: direct importers, and those the graph cannot rule
	// out.
	var first []string
	for _, c := range changes {
		fam := family(c.Path)
		first = append(first, graph.importers[c.Path]...)
		sc := changedScope(c)
		if sc.global {
			first = append(first, graph.byFamily[fam]...)
		}
		for _, m := range sc.ambient {
			first = append(first, graph.bare[m]...)
		}
		first = append(first, graph.unknown[fam]...)
	}
	add := func(f string) bool {
		if seen[f] {
			return true
		}
		seen[f] = true
		if len(d.Files) == limit {
			d.Capped = true
			return false
		}
		d.Files = append(d.Files, f)
		return true
	}
	var next []string
	for _, f := range first {
		if !seen[f] {
			if !add(f) {
				return d, nil
			}
			next = append(next, f)
		}
	}
	d.Direct = len(d.Files)
	for level = next; len(level) > 0; level = next {
		next = nil
		for _, f := range level {
			for _, imp := range graph.importers[f] {
				if seen[imp] {
					continue
				}
				if !add(imp) {
					return d, nil
				}
				next = append(next, imp)
			}
		}
	}
	return d, nil
}

// importGraph is the reverse of the workspace's imports.
type importGraph struct {
	importers map[string][]string // target → files importing it
	byFamily  map[string][]string // every file of each family
	unknown   map[string][]string // files with a specifier nothing resolves, by family
	bare      map[string][]string // package specifier → files importing it
}

// reverse builds the graph for the files of the given families.
func (g *ImportGraph) reverse(ctx context.Context, snap *Snapshot, families map[string]bool, res *resolve.Workspace) (*importGraph, error) {
	gr := &importGraph{importers: map[string][]string{}, byFamily: map[string][]string{}, unknown: map[string][]string{}, bare: map[string][]string{}}
	for _, rel := range snap.Sorted() {
		fam := family(rel)
		if !families[fam] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		gr.byFamily[fam] = append(gr.byFamily[fam], rel)
		fi := g.importsOf(ctx, rel, snap.Files[rel])
		unknown := false
		for _, s := range fi.specs {
			var targets []string
			switch fam {
			case "ecma":
				var known bool
				targets, known = res.ECMA(rel, s.name)
				if !known {
					unknown = true
				}
				if len(targets) == 0 && !strings.HasPrefix(s.name, ".") {
					gr.bare[s.name] = append(gr.bare[s.name], rel)
				}
			case "python":
				targets = res.Python(rel, s.name, s.ident)
			}
			for _, t := range targets {
				gr.importers[t] = append(gr.importers[t], rel)
			}
		}
		if unknown {
			gr.unknown[fam] = append(gr.unknown[fam], rel)
		}
	}
	return gr, nil
}

// importsOf returns what rel imports, from the cache when the file has not
// changed.
func (g *ImportGraph) importsOf(ctx context.Context, rel string, st FileStat) fileImports {
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
	fi.specs = g.parse(ctx, rel, src)
	fi.scope = scopeOf(rel, src)
	g.mu.Lock()
	g.cache[rel] = fi
	g.mu.Unlock()
	return fi
}

func (g *ImportGraph) parse(ctx context.Context, rel string, src []byte) []importSpec {
	lang, ok := syntax.LanguageForPath(rel)
	if !ok {
		return nil
	}
	syms, err := g.parser.Symbols(ctx, lang, src)
	if err != nil {
		return nil
	}
	var out []importSpec
	for _, s := range syms {
		for _, spec := range specifiers(s) {
			out = append(out, importSpec{name: spec, ident: s.Ident})
		}
	}
	return out
}

// changedScope is the scope of a changed file either side of the change:
// a file that stops declaring a global affects its users as much as one
// that starts.
func changedScope(c *changeset.Change) scope {
	before, after := scopeOf(c.Path, c.Base), scopeOf(c.Path, c.Content)
	if c.Delete || !c.BaseExists {
		if c.Delete {
			return before
		}
		return after
	}
	return scope{global: before.global || after.global, ambient: append(before.ambient, after.ambient...)}
}

var (
	moduleSyntax   = regexp.MustCompile(`(?m)^\s*(import|export)\b`)
	commonJS       = regexp.MustCompile(`\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w`)
	declareGlobal  = regexp.MustCompile(`\bdeclare\s+global\b`)
	declareModule  = regexp.MustCompile(`\bdeclare\s+module\s+['"]([^'"]+)['"]`)
	reexportFrom   = regexp.MustCompile(`\bfrom\s*['"]([^'"]+)['"]`)
	javaScriptExts = map[string]bool{".js": true, ".jsx": true, ".mjs": true, ".cjs": true}
)

// scopeOf reads what a TypeScript or JavaScript file declares beyond its
// exports. A file without import or export is a script, whose top-level
// declarations are global, except JavaScript in CommonJS form, which
// TypeScript treats as a module.
func scopeOf(rel string, src []byte) scope {
	ext := strings.ToLower(path.Ext(rel))
	if family(rel) != "ecma" || ext == ".json" || src == nil {
		return scope{}
	}
	var s scope
	module := moduleSyntax.Match(src) || (javaScriptExts[ext] && commonJS.Match(src)) || ext == ".mjs" || ext == ".cjs" || ext == ".mts" || ext == ".cts"
	s.global = !module || declareGlobal.Match(src)
	for _, m := range declareModule.FindAllSubmatch(src, -1) {
		s.ambient = append(s.ambient, string(m[1]))
	}
	return s
}

// specifiers returns the module specifiers a symbol brings in: an import's
// module, and the source of a re-export.
func specifiers(s syntax.Symbol) []string {
	switch s.Kind {
	case syntax.Import:
		return []string{s.Name}
	case syntax.Export:
		if m := reexportFrom.FindStringSubmatch(s.Signature); m != nil {
			return []string{m[1]}
		}
	}
	return nil
}

// family groups languages that import each other. JSON files can be
// imported by TypeScript and JavaScript (resolveJsonModule).
func family(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json":
		return "ecma"
	case ".py", ".pyi":
		return "python"
	}
	return ""
}
