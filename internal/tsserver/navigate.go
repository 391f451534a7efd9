package tsserver

import (
	"context"
	"sort"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// The navigation requests below answer in LSP's terms, so that the tools
// asking them need not know which protocol the server speaks.

// fileSpan is a range in a file, as tsserver reports definitions and
// references.
type fileSpan struct {
	File  string   `json:"file"`
	Start Location `json:"start"`
	End   Location `json:"end"`
}

func (s fileSpan) location() lsp.Location {
	return lsp.Location{URI: lsp.URIFromPath(s.File), Range: lsp.Range{Start: s.Start.position(), End: s.End.position()}}
}

func positionArgs(uri lsp.DocumentURI, pos lsp.Position) map[string]any {
	loc := locationOf(pos)
	return map[string]any{"file": uri.Path(), "line": loc.Line, "offset": loc.Offset}
}

// Definition returns where the symbol at pos is defined.
func (c *Client) Definition(ctx context.Context, uri lsp.DocumentURI, pos lsp.Position) ([]lsp.Location, error) {
	var spans []fileSpan
	if err := c.Request(ctx, "definition", positionArgs(uri, pos), &spans); err != nil {
		return nil, err
	}
	out := make([]lsp.Location, len(spans))
	for i, s := range spans {
		out[i] = s.location()
	}
	return out, nil
}

// References returns every reference to the symbol at pos, its
// declaration included.
func (c *Client) References(ctx context.Context, uri lsp.DocumentURI, pos lsp.Position) ([]lsp.Location, error) {
	var body struct {
		Refs []fileSpan `json:"refs"`
	}
	if err := c.Request(ctx, "references", positionArgs(uri, pos), &body); err != nil {
		return nil, err
	}
	out := make([]lsp.Location, len(body.Refs))
	for i, s := range body.Refs {
		out[i] = s.location()
	}
	return out, nil
}

// Rename returns the edits that rename the symbol at pos, or nil if it
// cannot be renamed.
func (c *Client) Rename(ctx context.Context, uri lsp.DocumentURI, pos lsp.Position, newName string) (*lsp.WorkspaceEdit, error) {
	args := positionArgs(uri, pos)
	args["findInStrings"], args["findInComments"] = false, false
	var body struct {
		Info struct {
			CanRename bool `json:"canRename"`
		} `json:"info"`
		Locs []struct {
			File string `json:"file"`
			Locs []struct {
				Start      Location `json:"start"`
				End        Location `json:"end"`
				PrefixText string   `json:"prefixText"`
				SuffixText string   `json:"suffixText"`
			} `json:"locs"`
		} `json:"locs"`
	}
	if err := c.Request(ctx, "rename", args, &body); err != nil {
		return nil, err
	}
	if !body.Info.CanRename {
		return nil, nil
	}
	edit := &lsp.WorkspaceEdit{Changes: map[lsp.DocumentURI][]lsp.TextEdit{}}
	for _, g := range body.Locs {
		uri := lsp.URIFromPath(g.File)
		for _, l := range g.Locs {
			edit.Changes[uri] = append(edit.Changes[uri], lsp.TextEdit{
				Range:   lsp.Range{Start: l.Start.position(), End: l.End.position()},
				NewText: l.PrefixText + newName + l.SuffixText,
			})
		}
		sort.Slice(edit.Changes[uri], func(i, j int) bool {
			a, b := edit.Changes[uri][i].Range.Start, edit.Changes[uri][j].Range.Start
			return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
		})
	}
	return edit, nil
}
