package servers

import (
	"context"
	"os"
	"sync"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// Pull mode asks for each file's diagnostics before and after; an answer
// reflects the notifications sent before the request, for open and closed
// files alike.
func (cy *cycle) pullBefore(ctx context.Context) error {
	// Every "before" describes the disk, so it comes from the cache while
	// the disk is unchanged. A server that applies didOpen lazily (pyright)
	// is the exception for the changed files: they are opened with their
	// disk content and pulled, and that pull is what makes the server take
	// the open in before the new content arrives as a didChange.
	lazy := cy.server.resolved.Spec.LazyOpen
	if cy.server.resolved.Spec.PullOpen {
		for _, p := range cy.req.Dependants {
			text, err := os.ReadFile(p)
			if err != nil {
				continue // gone since the dependants were found
			}
			if err := cy.open(ctx, p, LanguageOf(p), string(text)); err != nil {
				return err
			}
		}
	}
	// Where a changed file's base is not the disk's content, with it open
	// (pyright) the answers are not the disk's, and a cached answer of the
	// disk is not theirs (as in tsserver's cycle): beforesFor keeps none.
	cache := cy.server.beforesFor(cy.req, cy.client)
	var before []string
	for _, f := range cy.req.Files {
		if !f.OldExists || f.Config {
			continue
		}
		if lazy {
			if err := cy.open(ctx, f.Path, f.Language, string(f.Old)); err != nil {
				return err
			}
			before = append(before, f.Path)
			continue
		}
		switch d, ok := cache.get(f.Path); {
		case ok:
			cy.res.Before[f.Path] = d
			cy.res.Reused++
		case cache.isClean(f.Path):
			cy.res.Before[f.Path] = nil
			cy.res.Reused++
		default:
			before = append(before, f.Path) // a closed file: its disk state
		}
	}
	for _, p := range cy.req.Dependants {
		switch d, ok := cache.get(p); {
		case ok:
			cy.res.Before[p] = d
			cy.res.Reused++
		case cache.isClean(p):
			// The batch checker, of the server's own configuration,
			// found no error there at this disk state.
			cy.res.Before[p] = nil
			cy.res.Reused++
		default:
			before = append(before, p)
		}
	}
	if err := cy.pullAll(ctx, before, cy.res.Before); err != nil {
		return err
	}
	for _, p := range before {
		cache.put(p, cy.res.Before[p])
	}
	return nil
}

// pullAfter pulls the changed files and their direct importers first, and
// the rest only if those gained no errors.
func (cy *cycle) pullAfter(ctx context.Context) error {
	after := cy.afterPaths()
	near := len(after) - len(cy.req.Dependants) + cy.req.DirectDependants
	if err := cy.pullAll(ctx, after[:near], cy.res.After); err != nil {
		return err
	}
	cy.res.Checked = after[:near]
	if gainedErrors(cy.res.Before, cy.res.After) {
		cy.res.Skipped = len(after) - near
		return nil
	}
	if err := cy.pullAll(ctx, after[near:], cy.res.After); err != nil {
		return err
	}
	cy.res.Checked = after
	return nil
}

// pullAll pulls paths with a few requests in flight and stores the answers.
func (cy *cycle) pullAll(ctx context.Context, paths []string, into map[string][]lsp.Diagnostic) error {
	type answer struct {
		path  string
		diags []lsp.Diagnostic
		err   error
	}
	answers := make([]answer, len(paths))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			d, err := cy.client.PullDiagnostics(ctx, lsp.URIFromPath(p))
			answers[i] = answer{p, d, err}
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			return a.err
		}
		into[a.path] = a.diags
	}
	return nil
}
