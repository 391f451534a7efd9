package servers

import (
	"context"
	"fmt"
	"os"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// Push mode: servers that publish diagnostics for open files and give no
// sign of the end of their work (clangd, rust-analyzer, servers a user
// configures). A file counts as checked only by a publish that answers what
// was sent: one labelled with the version the client sent, or, from a
// server that labels none, one that arrived after the client had sent it.
// A server that never answers for a file leaves it unverified when the
// context ends; nothing is inferred from silence.
//
// The "before" opens the changed files and the dependants with their disk
// content and waits for each one's answer. The "after" sends the change,
// and also re-sends each dependant unchanged under a new version, so that
// the server answers for it again: a dependant's old answer says nothing
// about the change.
func (cy *cycle) pushBefore(ctx context.Context) error {
	var waits []sent
	for _, f := range cy.req.Files {
		if !f.OldExists || f.Config {
			continue
		}
		s, err := cy.send(ctx, f.Path, f.Language, string(f.Old))
		if err != nil {
			return err
		}
		waits = append(waits, s)
	}
	for _, p := range cy.req.Dependants {
		text, err := os.ReadFile(p)
		if err != nil {
			continue // gone since the dependants were found: nothing to check
		}
		s, err := cy.send(ctx, p, LanguageOf(p), string(text))
		if err != nil {
			return err
		}
		waits = append(waits, s)
	}
	return cy.awaitAnswers(ctx, waits, cy.res.Before)
}

func (cy *cycle) pushAfter(ctx context.Context) error {
	var waits []sent
	for _, s := range cy.overlays {
		if !cy.config(s.path) {
			waits = append(waits, s)
		}
	}
	for _, p := range cy.req.Dependants {
		uri := lsp.URIFromPath(p)
		if _, open := cy.client.IsOpen(uri); !open {
			continue // it could not be read before either
		}
		text, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s, err := cy.send(ctx, p, LanguageOf(p), string(text))
		if err != nil {
			return err
		}
		waits = append(waits, s)
	}
	if err := cy.awaitAnswers(ctx, waits, cy.res.After); err != nil {
		return err
	}
	for _, s := range waits {
		cy.res.Checked = append(cy.res.Checked, s.path)
	}
	return nil
}

// awaitAnswers waits, within ctx, for the server's answer to each of
// waits and stores its diagnostics. Deleted files are not waited for: a
// stand-in was sent for them so that importers see them gone.
func (cy *cycle) awaitAnswers(ctx context.Context, waits []sent, into map[string][]lsp.Diagnostic) error {
	for _, s := range waits {
		if cy.deleted(s.path) {
			continue
		}
		pub, err := cy.client.WaitPublished(ctx, s.path, s.answeredBy)
		if err != nil {
			return fmt.Errorf("no diagnostics for %s after it was sent (version %d): %w", s.path, s.version, err)
		}
		into[s.path] = pub.Diagnostics
	}
	return nil
}

// config reports whether path is a configuration file of the change set.
func (cy *cycle) config(path string) bool {
	for _, f := range cy.req.Files {
		if f.Path == path {
			return f.Config
		}
	}
	return false
}

// deleted reports whether the change set deletes path.
func (cy *cycle) deleted(path string) bool {
	for _, f := range cy.req.Files {
		if f.Path == path {
			return f.Delete
		}
	}
	return false
}
