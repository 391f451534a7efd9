package shadow

import (
	"context"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// ImportGraph finds dependants through a reverse-import graph built from
// each file's imports (tree-sitter), for servers that only report on the
// files they are asked about (TypeScript 7's server, pyright,
// typescript-language-server). Module specifiers are resolved the way
// the languages do for relative paths: "./types" is types.ts, types.tsx,
// types/index.ts...; "app.models" is app/models.py or
// app/models/__init__.py. Each file's imports are cached by size and
// modification time.
type ImportGraph struct {
	root   *workspace.Root
	parser *syntax.Parser

	mu    sync.Mutex
	cache map[string]fileImports // by relative path
}

type fileImports struct {
	stat    FileStat
	targets []string // resolved, workspace-relative
}

// maxImportScanSize skips files too large to be hand-written source.
const maxImportScanSize = 2 << 20

// NewImportGraph returns a graph over root that parses with parser.
func NewImportGraph(root *workspace.Root, parser *syntax.Parser) *ImportGraph {
	return &ImportGraph{root: root, parser: parser, cache: map[string]fileImports{}}
}

// Dependants are the files that depend on a change, nearest first.
type Dependants struct {
	Files []string
	// Direct is how many of Files (the first ones) import a changed file
	// themselves; the rest import those, and so on.
	Direct int
	// Capped reports that the limit left some out.
	Capped bool
}

// Dependants returns the files of snap that import any of files, then the
// files that import those, level by level, up to limit.
func (g *ImportGraph) Dependants(ctx context.Context, snap *Snapshot, files []string, limit int) (Dependants, error) {
	var d Dependants
	families := map[string]bool{}
	for _, f := range files {
		if fam := family(f); fam != "" {
			families[fam] = true
		}
	}
	if len(families) == 0 {
		return d, nil
	}
	importers, err := g.reverse(ctx, snap, families)
	if err != nil {
		return d, err
	}
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
	}
	level := files
	for depth := 1; len(level) > 0; depth++ {
		var next []string
		for _, f := range level {
			for _, imp := range importers[f] {
				if seen[imp] {
					continue
				}
				seen[imp] = true
				if len(d.Files) == limit {
					d.Capped = true
					return d, nil
				}
				d.Files = append(d.Files, imp)
				next = append(next, imp)
			}
		}
		if depth == 1 {
			d.Direct = len(d.Files)
		}
		level = next
	}
	return d, nil
}

// reverse builds target → importers for the files of the given families.
func (g *ImportGraph) reverse(ctx context.Context, snap *Snapshot, families map[string]bool) (map[string][]string, error) {
	exists := map[string]bool{}
	var files []string
	for _, p := range snap.Sorted() {
		exists[p] = true
		if families[family(p)] {
			files = append(files, p)
		}
	}
	rev := map[string][]string{}
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, t := range g.importsOf(ctx, rel, snap.Files[rel], exists) {
			rev[t] = append(rev[t], rel)
		}
	}
	return rev, nil
}

// importsOf returns the workspace files rel imports, from the cache when
// the file has not changed.
func (g *ImportGraph) importsOf(ctx context.Context, rel string, st FileStat, exists map[string]bool) []string {
	if st.Size > maxImportScanSize {
		return nil
	}
	g.mu.Lock()
	c, ok := g.cache[rel]
	g.mu.Unlock()
	if ok && c.stat == st {
		return c.targets
	}
	src, err := os.ReadFile(st.Abs)
	if err != nil || workspace.IsBinary(src) {
		return nil
	}
	lang, ok := syntax.LanguageForPath(rel)
	if !ok {
		return nil
	}
	syms, err := g.parser.Symbols(ctx, lang, src)
	if err != nil {
		return nil
	}
	var targets []string
	for _, s := range syms {
		for _, spec := range specifiers(s) {
			targets = append(targets, resolveImport(rel, spec, s.Ident, exists)...)
		}
	}
	g.mu.Lock()
	g.cache[rel] = fileImports{stat: st, targets: targets}
	g.mu.Unlock()
	return targets
}

// reexportFrom finds the module of `export ... from "m"`.
var reexportFrom = regexp.MustCompile(`\bfrom\s*['"]([^'"]+)['"]`)

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

// family groups languages that import each other.
func family(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
		return "ecma"
	case ".py", ".pyi":
		return "python"
	}
	return ""
}

// resolveImport maps a specifier in file from to the workspace files it
// can name. ident is the name the import binds, used for Python's
// "from pkg import module".
func resolveImport(from, spec, ident string, exists map[string]bool) []string {
	switch family(from) {
	case "ecma":
		return resolveECMA(from, spec, exists)
	case "python":
		return resolvePython(from, spec, ident, exists)
	}
	return nil
}

var ecmaExts = []string{".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

func resolveECMA(from, spec string, exists map[string]bool) []string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return nil // a package or a path alias
	}
	base := path.Join(path.Dir(from), spec)
	var cands []string
	cands = append(cands, base)
	// ESM-style imports name the emitted .js file for a .ts source.
	for js, ts := range map[string][]string{".js": {".ts", ".tsx"}, ".mjs": {".mts"}, ".cjs": {".cts"}, ".jsx": {".tsx"}} {
		if strings.HasSuffix(base, js) {
			for _, t := range ts {
				cands = append(cands, strings.TrimSuffix(base, js)+t)
			}
		}
	}
	for _, ext := range ecmaExts {
		cands = append(cands, base+ext, base+"/index"+ext)
	}
	for _, c := range cands {
		if exists[c] {
			return []string{c}
		}
	}
	return nil
}

func resolvePython(from, spec, ident string, exists map[string]bool) []string {
	// Absolute imports resolve from the root or a src/ layout; relative ones
	// from the importing file's package, one level up per extra dot.
	bases := []string{".", "src"}
	if strings.HasPrefix(spec, ".") {
		dots := len(spec) - len(strings.TrimLeft(spec, "."))
		dir := path.Dir(from)
		for range dots - 1 {
			dir = path.Dir(dir)
		}
		bases, spec = []string{dir}, spec[dots:]
	}
	var out []string
	for _, base := range bases {
		mod := base
		if spec != "" {
			mod = path.Join(base, strings.ReplaceAll(spec, ".", "/"))
		}
		for _, c := range []string{mod + ".py", mod + ".pyi", mod + "/__init__.py", path.Join(mod, ident) + ".py", path.Join(mod, ident, "__init__.py")} {
			if c = path.Clean(c); exists[c] {
				out = append(out, c)
			}
		}
	}
	return out
}
