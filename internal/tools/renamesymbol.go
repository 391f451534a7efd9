package tools

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed descriptions/rename_symbol.md
var renameSymbolDescription string

// RenameSymbolParams are the arguments of rename_symbol.
type RenameSymbolParams struct {
	NewName string `json:"new_name" jsonschema:"the new identifier"`
	Name    string `json:"name,omitempty" jsonschema:"the current name; enough alone when it is declared once in the workspace"`
	Path    string `json:"path,omitempty" jsonschema:"file containing the symbol"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based line of the symbol in path"`
	Column  int    `json:"column,omitempty" jsonschema:"1-based column of the symbol; default: where name first appears on the line"`
}

// RenameData is the structured result of rename_symbol: the change set the
// rename makes, in the form 'anvil check' reads.
type RenameData struct {
	Site    symbolSite       `json:"site"`
	Changes []changeset.Spec `json:"changes"`
	Staged  bool             `json:"staged"`
}

// RenameSymbol stages a server-computed rename.
type RenameSymbol struct {
	loc     locator
	servers *servers.Manager
	stager  Stager
	// staged is a change set staged elsewhere, read and never staged
	// into (see WithStaged); nil for none.
	staged Stager
}

// withStaged returns the tool reading st, staged elsewhere.
func (t *RenameSymbol) withStaged(st Stager) Typed[RenameSymbolParams] {
	c := *t
	c.staged = st
	return &c
}

// NewRenameSymbol returns the rename_symbol tool. With a nil stager the
// rename is computed and returned but staged nowhere (for 'anvil tool').
func NewRenameSymbol(root *workspace.Root, parser *syntax.Parser, mgr *servers.Manager, stager Stager) *RenameSymbol {
	return &RenameSymbol{loc: locator{root: root, parser: parser}, servers: mgr, stager: stager}
}

func (t *RenameSymbol) Name() string        { return "rename_symbol" }
func (t *RenameSymbol) Description() string { return renameSymbolDescription }

func (t *RenameSymbol) Run(ctx context.Context, p RenameSymbolParams) (Result, error) {
	if !identRE.MatchString(p.NewName) || identRE.FindString(p.NewName) != p.NewName {
		return Errorf("new_name %q is not an identifier", p.NewName), nil
	}
	site, res := t.site(ctx, p)
	if res != nil {
		return *res, nil
	}
	srv, err := t.servers.ForFile(site.Path)
	if err != nil {
		return Errorf("cannot rename in %s: %v", site.Path, err), nil
	}
	abs := t.loc.root.Abs(site.Path)
	// The change set to rename in: the tool's own, or one the caller
	// staged elsewhere (read, never staged into).
	stage := t.stager
	if stage == nil {
		stage = t.staged
	}
	// Open every staged file with its staged content, so the server renames
	// what the change set holds, not what is on disk.
	docs := []servers.Doc{{Path: abs}}
	if stage != nil {
		for _, rel := range stage.Paths() {
			if content, deleted, ok := stage.Staged(rel); ok && !deleted && servers.LanguageOf(rel) == servers.LanguageOf(site.Path) {
				text := string(content)
				if rel == site.Path {
					docs[0].Text = &text
				} else {
					docs = append(docs, servers.Doc{Path: t.loc.root.Abs(rel), Text: &text})
				}
			}
		}
	}
	if isCFamily(site.Path) {
		data, _, err := currentContent(stage, t.loc.root, site.Path)
		if err != nil {
			return Errorf("%v", err), nil
		}
		units, err := cDocs(ctx, t.loc.root, srv, docs, site, data)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return Errorf("%s could not find the translation units that see the symbol at %s:%d:%d: %v", srv.Spec().Name, site.Path, site.Line, site.Column, firstLineOf(err)), nil
		}
		docs = append(docs, units...)
	}
	var edit *lsp.WorkspaceEdit
	var missed []string // files with references the rename leaves alone
	err = srv.Query(ctx, docs, func(c servers.Navigator) error {
		data, _, err := currentContent(stage, t.loc.root, site.Path)
		if err != nil {
			return err
		}
		pos := lsp.PositionAt(data, lsp.ByteOffset(data, site.Line-1, site.Column))
		uri := lsp.URIFromPath(abs)
		if edit, err = c.Rename(ctx, uri, pos, p.NewName); err != nil {
			return err
		}
		// A server may answer a rename from what it has analysed so far
		// (pyright's first rename in a project touches the one file):
		// its references show every file the rename must touch, and
		// having answered them it renames completely.
		refs, err := c.References(ctx, uri, pos)
		if err != nil {
			return nil // no references to compare with: the rename stands, and the gate checks it
		}
		if missed = t.untouched(edit, refs); len(missed) > 0 {
			if edit, err = c.Rename(ctx, uri, pos, p.NewName); err != nil {
				return err
			}
			missed = t.untouched(edit, refs)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Errorf("%s could not rename the symbol at %s:%d:%d: %v", srv.Spec().Name, site.Path, site.Line, site.Column, firstLineOf(err)), nil
	}
	if len(missed) > 0 {
		return Errorf("%s's rename of the symbol at %s:%d:%d leaves references in %d %s it reports itself: %s; nothing was staged. Rename by hand (edit_file) or try again",
			srv.Spec().Name, site.Path, site.Line, site.Column, len(missed), plural(len(missed), "file", "files"), strings.Join(missed, ", ")), nil
	}
	specs, err := t.specs(edit, stage)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if len(specs) == 0 {
		return Errorf("%s returned no edits for the symbol at %s:%d:%d", srv.Spec().Name, site.Path, site.Line, site.Column), nil
	}
	data := RenameData{Site: site, Changes: specs}
	var b strings.Builder
	fmt.Fprintf(&b, "rename of the symbol at %s:%d:%d to %s touches %d files:\n", site.Path, site.Line, site.Column, p.NewName, len(specs))
	for _, s := range specs {
		fmt.Fprintf(&b, "  %s\n", s.Path)
	}
	if t.stager == nil {
		b.WriteString("(not staged: no change set in this context; {\"changes\": data.changes} is a change set for 'anvil check')\n")
		return Result{Output: b.String(), Data: data}, nil
	}
	state, err := t.stager.Stage(ctx, specs)
	if err != nil {
		return Result{}, err
	}
	data.Staged = true
	b.WriteString(state)
	return Result{Output: b.String(), Data: data}, nil
}

// untouched returns the workspace files holding one of refs that edit
// does not change.
func (t *RenameSymbol) untouched(edit *lsp.WorkspaceEdit, refs []lsp.Location) []string {
	touched := map[lsp.DocumentURI]bool{}
	if edit != nil {
		for uri := range edit.Changes {
			touched[uri] = true
		}
		for _, dc := range edit.DocumentChanges {
			if dc.TextDocument != nil {
				touched[dc.TextDocument.URI] = true
			}
		}
	}
	var out []string
	for _, r := range refs {
		if touched[r.URI] {
			continue
		}
		rel, err := t.loc.root.Rel(r.URI.Path())
		if err != nil || t.loc.root.InDependencyDir(rel) || slices.Contains(out, rel) {
			continue // outside the project: a rename never edits it
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

func (t *RenameSymbol) site(ctx context.Context, p RenameSymbolParams) (symbolSite, *Result) {
	if p.Line > 0 {
		if p.Path == "" {
			r := Errorf("line needs path")
			return symbolSite{}, &r
		}
		return t.loc.siteAt(p.Path, p.Line, p.Column, p.Name)
	}
	if p.Name == "" {
		r := Errorf("give the symbol's position (path, line, column) or its name")
		return symbolSite{}, &r
	}
	decls, err := t.loc.declarations(ctx, p.Name, p.Path)
	if err != nil {
		r := pathError(err)
		return symbolSite{}, &r
	}
	switch len(decls) {
	case 0:
		r := Errorf("no declaration of %q found; use find_symbol or text_search to locate it, then pass its position", p.Name)
		return symbolSite{}, &r
	case 1:
		return decls[0], nil
	}
	r := Errorf("%q is declared %d times; pass the position of the one to rename:\n%s", p.Name, len(decls), describeSites(decls))
	return symbolSite{}, &r
}

// specs applies a WorkspaceEdit to the current contents and returns the
// resulting changes. Every file must be inside the workspace.
func (t *RenameSymbol) specs(edit *lsp.WorkspaceEdit, stage Stager) ([]changeset.Spec, error) {
	if edit == nil {
		return nil, nil
	}
	contents := map[string][]byte{} // rel → new content
	var deleted []string
	load := func(uri lsp.DocumentURI) (string, []byte, error) {
		rel, err := t.loc.root.Rel(uri.Path())
		if err != nil {
			return "", nil, fmt.Errorf("the rename would edit %s, outside the workspace", uri.Path())
		}
		if c, ok := contents[rel]; ok {
			return rel, c, nil
		}
		c, _, err := currentContent(stage, t.loc.root, rel)
		return rel, c, err
	}
	apply := func(uri lsp.DocumentURI, edits []lsp.TextEdit) error {
		rel, data, err := load(uri)
		if err != nil {
			return err
		}
		contents[rel] = lsp.ApplyEdits(data, edits)
		return nil
	}
	for uri, edits := range edit.Changes {
		if err := apply(uri, edits); err != nil {
			return nil, err
		}
	}
	for _, dc := range edit.DocumentChanges {
		switch dc.Kind {
		case "":
			if dc.TextDocument == nil {
				continue
			}
			if err := apply(dc.TextDocument.URI, dc.Edits); err != nil {
				return nil, err
			}
		case "rename": // a file renamed with its symbol (some servers do this)
			rel, data, err := load(dc.OldURI)
			if err != nil {
				return nil, err
			}
			newRel, err := t.loc.root.Rel(dc.NewURI.Path())
			if err != nil {
				return nil, fmt.Errorf("the rename would move a file outside the workspace")
			}
			contents[newRel] = data
			delete(contents, rel)
			deleted = append(deleted, rel)
		case "create":
			rel, err := t.loc.root.Rel(dc.URI.Path())
			if err != nil {
				return nil, fmt.Errorf("the rename would create a file outside the workspace")
			}
			contents[rel] = nil
		case "delete":
			rel, err := t.loc.root.Rel(dc.URI.Path())
			if err != nil {
				return nil, fmt.Errorf("the rename would delete a file outside the workspace")
			}
			delete(contents, rel)
			deleted = append(deleted, rel)
		}
	}
	var specs []changeset.Spec
	for rel, c := range contents {
		text := string(c)
		specs = append(specs, changeset.Spec{Path: rel, Content: &text})
	}
	for _, rel := range deleted {
		specs = append(specs, changeset.Spec{Path: rel, Delete: true})
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Path < specs[j].Path })
	if t.stager == nil {
		// A change set to be checked or committed later names the
		// contents it was made from, so that it cannot go over a later
		// edit (see changeset.Spec.BaseSHA256).
		for i := range specs {
			specs[i].BaseSHA256 = changeset.Absent
			if data, err := t.loc.root.ReadFile(specs[i].Path); err == nil {
				specs[i].BaseSHA256 = changeset.Hash(data)
			}
		}
	}
	return specs, nil
}
