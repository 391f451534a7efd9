package servers

import (
	"context"
	"fmt"
	"os"
	"slices"
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
	if cy.defersBefores() {
		cy.cache, cy.deferred = cache, before
		return nil
	}
	if err := cy.pullAll(ctx, before, cy.res.Before); err != nil {
		return err
	}
	for _, p := range before {
		cache.put(p, cy.res.Before[p])
	}
	return nil
}

// defersBefores reports whether this cycle's "before" of the changed
// files waits for the "after".
func (cy *cycle) defersBefores() bool { return defersBefores(cy.server.resolved.Spec, cy.req) }

// defersBefores reports whether a pull server's check of req asks the
// "before" only of the files the change leaves an error in
// (CheckRequest.NewErrorsOnly): a change that edits existing files in
// place, which the cycle can take back by sending the old texts, with no
// dependants, so that every file's "after" is in before any "before" is
// needed; and not a server that applies opens lazily, whose "before"
// is what makes it take the open in. Each pull after a change has the
// server bring its program up to date: on date-fns, TypeScript 7's
// server spent 10-15 ms on a "before" a clean "after" makes moot.
func defersBefores(spec Spec, req CheckRequest) bool {
	return spec.Mode == ModePull && !spec.LazyOpen && req.NewErrorsOnly && len(req.Dependants) == 0 && len(req.Files) > 0 && EditsInPlace(req.Files)
}

// pullBeforeWhereNeeded pulls, once the "after" is in, the "before" of
// the deferred files that have an error after the change, with the
// change taken back: only their errors can be new. A file without an
// error after the change has none that is new, and needs none.
func (cy *cycle) pullBeforeWhereNeeded(ctx context.Context) error {
	var need []string
	for _, p := range cy.deferred {
		if slices.ContainsFunc(cy.res.After[p], lsp.Diagnostic.IsError) {
			need = append(need, p)
		}
	}
	cy.deferred = nil
	if len(need) == 0 {
		return nil
	}
	for _, f := range cy.req.Files {
		if _, err := cy.send(ctx, f.Path, f.Language, string(f.Old)); err != nil {
			return err
		}
	}
	if err := cy.pullAll(ctx, need, cy.res.Before); err != nil {
		return fmt.Errorf("diagnostics before the change: %w", err)
	}
	for _, p := range need {
		cy.cache.put(p, cy.res.Before[p])
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
	if len(cy.deferred) > 0 {
		// No dependants (defersBefores): every file's "after" is in.
		return cy.pullBeforeWhereNeeded(ctx)
	}
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
