package servers

import (
	"context"
	"os"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// Doc is a document to have open for a query: its content on disk, or an
// overlay when Text is set.
type Doc struct {
	Path string // absolute
	Text *string
}

// Query runs fn with a ready client while docs are open (as on disk, or
// with the given overlay text), then closes what it opened. Queries and
// checks take turns, so a query never sees a check's overlays.
func (s *Server) Query(ctx context.Context, docs []Doc, fn func(c *lsp.Client) error) error {
	s.busy.Lock()
	defer s.busy.Unlock()
	c, err := s.Client(ctx)
	if err != nil {
		return err
	}
	cy := &cycle{server: s, client: c}
	defer cy.restore()
	for _, d := range docs {
		text := d.Text
		if text == nil {
			data, err := os.ReadFile(d.Path)
			if err != nil {
				return err
			}
			t := string(data)
			text = &t
		}
		if err := cy.open(ctx, d.Path, LanguageOf(d.Path), *text); err != nil {
			return err
		}
	}
	if err := fn(c); err != nil {
		if !c.Alive() {
			return c.ExitError()
		}
		return err
	}
	return nil
}

// Diagnose returns the current diagnostics of files (absolute paths), as on
// disk: the "before" half of a check, with nothing changed. For servers
// that report every file (gopls), the result also holds every other file
// with diagnostics.
func (s *Server) Diagnose(ctx context.Context, files []string) (map[string][]lsp.Diagnostic, error) {
	req := CheckRequest{}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		req.Files = append(req.Files, FileChange{Path: p, Language: LanguageOf(p), Old: data, OldExists: true, New: data})
	}
	res, err := s.cycle(ctx, req, false)
	if err != nil {
		return nil, err
	}
	return res.Before, nil
}

// NotifyDiskChanges tells a running server that files changed on disk
// (absolute path → 1 created, 2 changed, 3 deleted). A server not yet
// started needs nothing: it will read the disk as it is.
func (s *Server) NotifyDiskChanges(ctx context.Context, changes map[string]int) {
	s.busy.Lock()
	defer s.busy.Unlock()
	c := s.current()
	if c == nil || !c.Alive() {
		return
	}
	uris := make(map[lsp.DocumentURI]int, len(changes))
	for p, t := range changes {
		uris[lsp.URIFromPath(p)] = t
	}
	_ = c.DidChangeWatchedFiles(ctx, uris)
}
