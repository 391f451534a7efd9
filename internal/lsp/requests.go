package lsp

import (
	"context"
	"encoding/json"
)

// PullDiagnostics asks for a document's diagnostics (textDocument/diagnostic).
// The answer describes the server's current view, overlays included.
func (c *Client) PullDiagnostics(ctx context.Context, uri DocumentURI) ([]Diagnostic, error) {
	var rep DocumentDiagnosticReport
	err := c.call(ctx, "textDocument/diagnostic", map[string]any{
		"textDocument": TextDocumentIdentifier{URI: uri},
	}, &rep)
	if err != nil {
		return nil, err
	}
	return rep.Items, nil
}

// Definition returns where the symbol at pos is defined.
func (c *Client) Definition(ctx context.Context, uri DocumentURI, pos Position) ([]Location, error) {
	var raw json.RawMessage
	err := c.call(ctx, "textDocument/definition", TextDocumentPositionParams{
		TextDocument: TextDocumentIdentifier{URI: uri}, Position: pos,
	}, &raw)
	if err != nil {
		return nil, err
	}
	return decodeLocations(raw), nil
}

// References returns every reference to the symbol at pos, declaration
// included.
func (c *Client) References(ctx context.Context, uri DocumentURI, pos Position) ([]Location, error) {
	var locs []Location
	err := c.call(ctx, "textDocument/references", map[string]any{
		"textDocument": TextDocumentIdentifier{URI: uri},
		"position":     pos,
		"context":      map[string]any{"includeDeclaration": true},
	}, &locs)
	return locs, err
}

// Rename asks the server for the edits that rename the symbol at pos.
func (c *Client) Rename(ctx context.Context, uri DocumentURI, pos Position, newName string) (*WorkspaceEdit, error) {
	var edit *WorkspaceEdit
	err := c.call(ctx, "textDocument/rename", map[string]any{
		"textDocument": TextDocumentIdentifier{URI: uri},
		"position":     pos,
		"newName":      newName,
	}, &edit)
	return edit, err
}

// decodeLocations accepts the three shapes a definition answer may take:
// a Location, a list of Locations, or a list of LocationLinks.
func decodeLocations(raw json.RawMessage) []Location {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var one Location
	if raw[0] == '{' {
		if json.Unmarshal(raw, &one) == nil && one.URI != "" {
			return []Location{one}
		}
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []Location
	for _, it := range items {
		var link LocationLink
		if json.Unmarshal(it, &link) == nil && link.TargetURI != "" {
			out = append(out, Location{URI: link.TargetURI, Range: link.TargetSelectionRange})
			continue
		}
		var loc Location
		if json.Unmarshal(it, &loc) == nil && loc.URI != "" {
			out = append(out, loc)
		}
	}
	return out
}
