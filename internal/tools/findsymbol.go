package tools

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/scope"
	"github.com/anvil-dev/anvil/internal/search"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/tsconfig"
	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed descriptions/find_symbol.md
var findSymbolDescription string

// maxReferences caps the references listed for one symbol.
const maxReferences = 300

// FindSymbolParams are the arguments of find_symbol.
type FindSymbolParams struct {
	Name   string `json:"name,omitempty" jsonschema:"the symbol's name, e.g. User or getUser"`
	Path   string `json:"path,omitempty" jsonschema:"file containing the symbol (with line), or a file or directory to look for declarations of name in"`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line of the symbol in path"`
	Column int    `json:"column,omitempty" jsonschema:"1-based column of the symbol on line; default: where name first appears on the line"`
}

// SymbolReport is what find_symbol found for one symbol.
type SymbolReport struct {
	Site        symbolSite   `json:"site"`
	Definitions []symbolSite `json:"definitions"`
	References  []symbolSite `json:"references"`
	Omitted     int          `json:"omitted,omitempty"` // references outside the workspace or past the cap
	// Unchecked are whole-word matches of the name in files of the same
	// language that the project's own checks leave out (tests outside
	// pyright's include, examples no tsconfig.json includes): the server
	// does not see them, and a change to the symbol may break them.
	Unchecked []symbolSite `json:"unchecked,omitempty"`
	Verified  bool         `json:"verified"` // answered by a language server
	Server    string       `json:"server,omitempty"`
	Note      string       `json:"note,omitempty"` // why it is unverified
}

// FindSymbol answers definition and references queries.
type FindSymbol struct {
	loc      locator
	servers  *servers.Manager
	searcher *search.Searcher
}

// NewFindSymbol returns the find_symbol tool.
func NewFindSymbol(root *workspace.Root, parser *syntax.Parser, mgr *servers.Manager, searcher *search.Searcher) *FindSymbol {
	return &FindSymbol{loc: locator{root: root, parser: parser}, servers: mgr, searcher: searcher}
}

func (t *FindSymbol) Name() string        { return "find_symbol" }
func (t *FindSymbol) Description() string { return findSymbolDescription }

func (t *FindSymbol) Run(ctx context.Context, p FindSymbolParams) (Result, error) {
	sites, res := t.sites(ctx, p)
	if res != nil {
		return *res, nil
	}
	var reports []SymbolReport
	for _, s := range sites {
		r, err := t.report(ctx, s, p.Name)
		if err != nil {
			return Result{}, err
		}
		reports = append(reports, r)
	}
	return Result{Output: formatSymbolReports(reports), Data: reports}, nil
}

// sites turns the arguments into the positions to ask about.
func (t *FindSymbol) sites(ctx context.Context, p FindSymbolParams) ([]symbolSite, *Result) {
	switch {
	case p.Line > 0:
		if p.Path == "" {
			r := Errorf("line needs path")
			return nil, &r
		}
		s, res := t.loc.siteAt(p.Path, p.Line, p.Column, p.Name)
		if res != nil {
			return nil, res
		}
		return []symbolSite{s}, nil
	case p.Name != "":
		decls, err := t.loc.declarations(ctx, p.Name, p.Path)
		if err != nil {
			r := pathError(err)
			return nil, &r
		}
		if len(decls) == 0 {
			where := "the workspace"
			if p.Path != "" {
				where = p.Path
			}
			r := Errorf("no declaration of %q found in %s; check the spelling, or use text_search to find where it appears", p.Name, where)
			return nil, &r
		}
		return decls[:min(len(decls), maxDeclarations)], nil
	default:
		r := Errorf("give name, or path and line")
		return nil, &r
	}
}

// report asks the file's language server about site, or falls back to
// tree-sitter and text search when there is none.
func (t *FindSymbol) report(ctx context.Context, site symbolSite, name string) (SymbolReport, error) {
	rep := SymbolReport{Site: site}
	abs := t.loc.root.Abs(site.Path)
	srv, err := t.servers.ForFile(site.Path)
	docs := []servers.Doc{{Path: abs}}
	if err == nil && isCFamily(site.Path) {
		var data []byte
		var units []servers.Doc
		if data, err = t.loc.root.ReadFile(site.Path); err == nil {
			units, err = cDocs(ctx, t.loc.root, srv, docs, site, data)
			docs = append(docs, units...)
		}
	}
	if err == nil {
		var defs, refs []lsp.Location
		err = srv.Query(ctx, docs, func(c servers.Navigator) error {
			data, err := t.loc.root.ReadFile(site.Path)
			if err != nil {
				return err
			}
			pos := lsp.PositionAt(data, lsp.ByteOffset(data, site.Line-1, site.Column))
			uri := lsp.URIFromPath(abs)
			if defs, err = c.Definition(ctx, uri, pos); err != nil {
				return err
			}
			refs, err = c.References(ctx, uri, pos)
			return err
		})
		if err == nil {
			rep.Verified, rep.Server = true, srv.Spec().Name
			rep.Definitions, _ = t.toSites(defs, 0)
			rep.References, rep.Omitted = t.toSites(refs, maxReferences)
			rep.Unchecked, err = t.unchecked(ctx, rep, name)
			return rep, err
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	rep.Note = fmt.Sprintf("unverified: no language server answered (%v); definitions from tree-sitter, references from a whole-word text search, which may include unrelated names", firstLineOf(err))
	return t.fallback(ctx, rep, name)
}

func (t *FindSymbol) fallback(ctx context.Context, rep SymbolReport, name string) (SymbolReport, error) {
	if name == "" {
		name = t.wordAt(rep.Site)
	}
	if name == "" {
		return rep, nil
	}
	decls, err := t.loc.declarations(ctx, name, ".")
	if err != nil {
		return rep, err
	}
	rep.Definitions = decls
	res, err := t.searcher.Search(ctx, search.Query{Pattern: `\b` + regexp.QuoteMeta(name) + `\b`, MaxResults: maxReferences})
	if err != nil {
		return rep, err
	}
	for _, m := range res.Matches {
		rep.References = append(rep.References, symbolSite{Path: m.Path, Line: m.Line, Column: m.Column, Text: strings.TrimSpace(m.Text)})
	}
	rep.Omitted = res.TotalMatches - len(res.Matches)
	return rep, nil
}

// unchecked finds the whole-word matches of the symbol's name in files of
// its language that the project's own checks (and so its server) leave
// out, other than the references already found.
func (t *FindSymbol) unchecked(ctx context.Context, rep SymbolReport, name string) ([]symbolSite, error) {
	if name == "" {
		name = t.wordAt(rep.Site)
	}
	lang := servers.LanguageOf(rep.Site.Path)
	if name == "" || lang == "" {
		return nil, nil
	}
	res, err := t.searcher.Search(ctx, search.Query{Pattern: `\b` + regexp.QuoteMeta(name) + `\b`, MaxResults: maxReferences})
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, r := range rep.References {
		known[fmt.Sprintf("%s:%d", r.Path, r.Line)] = true
	}
	checks := scope.New(t.loc.root.Dir(), tsconfig.NewProjects(t.loc.root.Dir()))
	var out []symbolSite
	for _, m := range res.Matches {
		if servers.LanguageOf(m.Path) != lang || known[fmt.Sprintf("%s:%d", m.Path, m.Line)] || checks.Outside(m.Path) == "" {
			continue
		}
		out = append(out, symbolSite{Path: m.Path, Line: m.Line, Column: m.Column, Text: strings.TrimSpace(m.Text)})
	}
	return out, nil
}

// toSites converts server locations to sites inside the workspace, reading
// each file once for line text and byte columns.
func (t *FindSymbol) toSites(locs []lsp.Location, limit int) ([]symbolSite, int) {
	texts := map[string][]byte{}
	var out []symbolSite
	omitted := 0
	for _, l := range locs {
		rel, err := t.loc.root.Rel(l.URI.Path())
		if err != nil {
			omitted++ // a library file outside the workspace
			continue
		}
		data, ok := texts[rel]
		if !ok {
			// The server's path is judged as text only so far; the read
			// resolves it inside the root, so a symlinked directory that
			// leads out (src/vendor -> ../../outside) shows nothing.
			if data, err = t.loc.root.ReadFile(rel); err != nil {
				texts[rel] = nil
				omitted++
				continue
			}
			texts[rel] = data
		} else if data == nil {
			omitted++
			continue
		}
		line, _ := lineOf(data, l.Range.Start.Line+1)
		out = append(out, symbolSite{Path: rel, Line: l.Range.Start.Line + 1, Column: lsp.ByteColumn(data, l.Range.Start), Text: strings.TrimSpace(line)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line || (out[i].Line == out[j].Line && out[i].Column < out[j].Column)
	})
	if limit > 0 && len(out) > limit {
		omitted += len(out) - limit
		out = out[:limit]
	}
	return out, omitted
}

var identRE = regexp.MustCompile(`[\p{L}_$][\p{L}\p{N}_$]*`)

// wordAt returns the identifier at site's line and column.
func (t *FindSymbol) wordAt(site symbolSite) string {
	data, err := t.loc.root.ReadFile(site.Path)
	if err != nil {
		return ""
	}
	line, _ := lineOf(data, site.Line)
	for _, loc := range identRE.FindAllStringIndex(line, -1) {
		if loc[0] <= site.Column-1 && site.Column-1 < loc[1] {
			return line[loc[0]:loc[1]]
		}
	}
	return ""
}

func firstLineOf(err error) string {
	if err == nil {
		return "none"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func formatSymbolReports(reports []SymbolReport) string {
	var b strings.Builder
	for i, r := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "symbol at %s:%d:%d  %s\n", r.Site.Path, r.Site.Line, r.Site.Column, r.Site.Text)
		if r.Verified {
			fmt.Fprintf(&b, "(answered by %s)\n", r.Server)
		} else {
			fmt.Fprintf(&b, "(%s)\n", r.Note)
		}
		if len(r.Definitions) == 0 {
			b.WriteString("definition: not found\n")
		}
		for _, d := range r.Definitions {
			fmt.Fprintf(&b, "definition: %s:%d:%d  %s\n", d.Path, d.Line, d.Column, d.Text)
		}
		files := map[string]bool{}
		for _, ref := range r.References {
			files[ref.Path] = true
		}
		fmt.Fprintf(&b, "references: %d in %d files\n", len(r.References)+r.Omitted, len(files))
		last := ""
		for _, ref := range r.References {
			if ref.Path != last {
				fmt.Fprintf(&b, "%s\n", ref.Path)
				last = ref.Path
			}
			fmt.Fprintf(&b, "  %d:%d  %s\n", ref.Line, ref.Column, ref.Text)
		}
		if r.Omitted > 0 {
			fmt.Fprintf(&b, "... %d more not listed (outside the workspace or past %d)\n", r.Omitted, maxReferences)
		}
		if len(r.Unchecked) > 0 {
			fmt.Fprintf(&b, "also in files the project's own checks leave out, which %s does not see (whole-word matches: look at them; a change to the symbol may break them):\n", r.Server)
			last := ""
			for _, u := range r.Unchecked {
				if u.Path != last {
					fmt.Fprintf(&b, "%s\n", u.Path)
					last = u.Path
				}
				fmt.Fprintf(&b, "  %d:%d  %s\n", u.Line, u.Column, u.Text)
			}
		}
	}
	return b.String()
}
