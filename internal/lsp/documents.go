package lsp

import (
	"context"
	"fmt"
)

// DidOpen opens a document with the given text, at version 1 or one past the
// version it had when last open, so versions never repeat for a URI.
func (c *Client) DidOpen(ctx context.Context, uri DocumentURI, languageID, text string) (int, error) {
	c.mu.Lock()
	if _, open := c.docs[uri]; open {
		c.mu.Unlock()
		return 0, fmt.Errorf("%s: %s is already open", c.cfg.Name, uri)
	}
	d := &document{languageID: languageID, version: 1, text: text}
	c.docs[uri] = d
	c.mu.Unlock()
	err := c.notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": TextDocumentItem{URI: uri, LanguageID: languageID, Version: d.version, Text: text},
	})
	return d.version, err
}

// DidChange replaces an open document's text and returns its new version.
func (c *Client) DidChange(ctx context.Context, uri DocumentURI, text string) (int, error) {
	c.mu.Lock()
	d, open := c.docs[uri]
	if !open {
		c.mu.Unlock()
		return 0, fmt.Errorf("%s: %s is not open", c.cfg.Name, uri)
	}
	d.version++
	d.text = text
	version := d.version
	c.mu.Unlock()
	err := c.notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   VersionedTextDocumentIdentifier{URI: uri, Version: version},
		"contentChanges": []TextDocumentContentChangeEvent{{Text: text}},
	})
	return version, err
}

// DidClose closes a document; the server goes back to the file on disk.
func (c *Client) DidClose(ctx context.Context, uri DocumentURI) error {
	c.mu.Lock()
	_, open := c.docs[uri]
	delete(c.docs, uri)
	c.mu.Unlock()
	if !open {
		return nil
	}
	return c.notify(ctx, "textDocument/didClose", map[string]any{
		"textDocument": TextDocumentIdentifier{URI: uri},
	})
}

// IsOpen reports whether the client has uri open, and its version.
func (c *Client) IsOpen(uri DocumentURI) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[uri]
	if !ok {
		return 0, false
	}
	return d.version, true
}

// OpenDocument is an open document's state, for re-syncing a restarted server.
type OpenDocument struct {
	URI        DocumentURI
	LanguageID string
	Text       string
}

// OpenDocuments returns the documents currently open.
func (c *Client) OpenDocuments() []OpenDocument {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]OpenDocument, 0, len(c.docs))
	for uri, d := range c.docs {
		out = append(out, OpenDocument{URI: uri, LanguageID: d.languageID, Text: d.text})
	}
	return out
}

// DidChangeWatchedFiles tells the server files changed on disk (type 1
// created, 2 changed, 3 deleted), as after a commit.
func (c *Client) DidChangeWatchedFiles(ctx context.Context, changes map[DocumentURI]int) error {
	events := make([]map[string]any, 0, len(changes))
	for uri, typ := range changes {
		events = append(events, map[string]any{"uri": uri, "type": typ})
	}
	return c.notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": events})
}
