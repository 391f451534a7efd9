package tools

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// clangd (14, without its background index, which would write into the
// project) finds definitions and references only in the files it has
// analysed. So a C/C++ symbol's queries first ask where it is declared,
// then open every translation unit of the compile database that
// includes one of those files (or is one), directly or not, and the
// headers between, and ask again: a symbol is visible only where its
// declaration is included.

// isCFamily reports whether path is C or C++.
func isCFamily(path string) bool {
	l := servers.LanguageOf(path)
	return l == "c" || l == "cpp"
}

// cDocs returns the translation units to open beside the site's file for
// a query about the symbol at site: those that include the files its
// definitions are in, or the site's own file. srv answers the first
// question (the definitions) with docs open.
func cDocs(ctx context.Context, root *workspace.Root, srv *servers.Server, docs []servers.Doc, site symbolSite, content []byte) ([]servers.Doc, error) {
	decls := []string{site.Path}
	err := srv.Query(ctx, docs, func(c servers.Navigator) error {
		pos := lsp.PositionAt(content, lsp.ByteOffset(content, site.Line-1, site.Column))
		defs, err := c.Definition(ctx, lsp.URIFromPath(root.Abs(site.Path)), pos)
		for _, d := range defs {
			if rel, err := root.Rel(d.URI.Path()); err == nil && !slices.Contains(decls, rel) {
				decls = append(decls, rel)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	units, err := cUnits(ctx, root, decls)
	if err != nil {
		return nil, err
	}
	open := map[string]bool{}
	for _, d := range docs {
		open[d.Path] = true
	}
	var out []servers.Doc
	for _, u := range units {
		if abs := root.Abs(u); !open[abs] {
			out = append(out, servers.Doc{Path: abs})
		}
	}
	return out, nil
}

// cUnits returns the files (relative) that include one of files,
// directly or not, through the translation units of the compile
// databases governing them, and files themselves: the headers too, since
// clangd reports the references in a header only while it is open.
func cUnits(ctx context.Context, root *workspace.Root, files []string) ([]string, error) {
	res := compiledb.NewResolver(root.Dir(), nil)
	targets := map[string]bool{}
	var candidates []string
	seenDB := map[string]bool{}
	for _, f := range files {
		targets[f] = true
		db := res.DB(f)
		if db == nil || seenDB[db.Path] {
			continue
		}
		seenDB[db.Path] = true
		if db.Flags == nil {
			for _, c := range db.Commands {
				if rel, err := root.Rel(c.File); err == nil {
					candidates = append(candidates, rel)
				}
			}
			continue
		}
		// compile_flags.txt covers every source under its directory.
		start, err := root.Resolve(filepath.Dir(db.Path))
		if err != nil {
			continue
		}
		err = root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
			if !e.IsDir() && compiledb.IsSource(e.Rel) {
				candidates = append(candidates, e.Rel)
			}
			return nil
		})
		if err != nil && err != fs.SkipAll {
			return nil, err
		}
	}
	// The includes of everything the candidates reach, reversed; then
	// what reaches a target.
	includers := map[string][]string{}
	seen := map[string]bool{}
	queue := slices.Clone(candidates)
	for _, c := range candidates {
		seen[c] = true
	}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x := queue[0]
		queue = queue[1:]
		src, err := root.ReadFile(x)
		if err != nil {
			continue
		}
		for _, t := range res.Included(x, src) {
			includers[t] = append(includers[t], x)
			if !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	reached := map[string]bool{}
	for t := range targets {
		reached[t] = true
		queue = append(queue, t)
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, from := range includers[x] {
			if !reached[from] {
				reached[from] = true
				queue = append(queue, from)
			}
		}
	}
	var out []string
	for f := range reached {
		if root.InDependencyDir(f) {
			continue
		}
		if _, err := root.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out, nil
}
