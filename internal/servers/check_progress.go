package servers

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// Push-progress mode (gopls): the baseline is what the server last
// published for each file once its "diagnosing" work is done; after the
// overlays the work is waited for again. The server publishes every file
// whose diagnostics changed, open or not, so every published file counts
// as checked; files it never published have none.
func (cy *cycle) pushProgressBefore(ctx context.Context) error {
	// Once earlier work (the previous cycle's restore) is done, every file's
	// latest publish describes the disk.
	if err := cy.waitDiagnosed(ctx); err != nil {
		return err
	}
	for p, pub := range cy.client.PublishedAll() {
		cy.res.Before[p] = pub.Diagnostics
	}
	return nil
}

func (cy *cycle) pushProgressAfter(ctx context.Context) error {
	if err := cy.waitDiagnosed(ctx); err != nil {
		return err
	}
	// The end of the work is the evidence; a publish for a changed file
	// labelled with an older version than the one sent would contradict
	// it, and a file the server loaded into no package was not checked.
	for _, s := range cy.overlays {
		pub, ok := cy.client.Published(s.path)
		if ok && pub.Version != nil && *pub.Version != s.version {
			return fmt.Errorf("%s: the last diagnostics are for version %d, not %d as sent", s.path, *pub.Version, s.version)
		}
		if m := firstMarked(pub.Diagnostics, unloadedMarkers); ok && m != "" {
			return &NotLoadedError{Path: s.path, Message: m}
		}
	}
	// Diagnostics of packages gopls could not load (the go command failed,
	// a module missing from the cache) are not the compiler's: a file of
	// such a package is type-checked alone or not at all, and an importer
	// of a changed package is never reached. No answer after the change
	// counts while any file shows it. (Before the change it only makes
	// the answers fewer, which can add new errors, never hide one.) One
	// copy of the publishes serves this and the answer below, so both
	// read the same state. The first failing file by path is named, so the
	// message is the same from one run to the next.
	published := cy.client.PublishedAll()
	var failed *LoadFailedError
	for p, pub := range published {
		if m := firstMarked(pub.Diagnostics, loadFailureMarkers); m != "" && (failed == nil || p < failed.Path) {
			failed = &LoadFailedError{Path: p, Message: m}
		}
	}
	if failed != nil {
		// Named as the user sees the workspace.
		if rel, err := filepath.Rel(cy.server.root, failed.Path); err == nil && filepath.IsLocal(rel) {
			failed.Path = filepath.ToSlash(rel)
		}
		return failed
	}
	deleted := map[string]bool{}
	for _, f := range cy.req.Files {
		if f.Delete {
			deleted[f.Path] = true
		}
	}
	for p, pub := range published {
		if deleted[p] {
			continue
		}
		cy.res.After[p] = pub.Diagnostics
		cy.res.Checked = append(cy.res.Checked, p)
	}
	for _, f := range cy.req.Files {
		if _, ok := cy.res.After[f.Path]; !ok && !f.Delete {
			cy.res.After[f.Path] = nil
			cy.res.Checked = append(cy.res.Checked, f.Path)
		}
	}
	return nil
}

// waitDiagnosed waits for the initial load and one "diagnosing" report per
// modification sent so far to have run to their end.
func (cy *cycle) waitDiagnosed(ctx context.Context) error {
	return cy.client.WaitWorkDone(ctx, "diagnosing", 1+cy.client.Modifications())
}

// NotLoadedError says the server loaded the file into no project, so its
// diagnostics say nothing about the change (gopls on a file outside every
// module of the workspace).
type NotLoadedError struct {
	Path    string
	Message string
}

func (e *NotLoadedError) Error() string {
	return fmt.Sprintf("%s belongs to no project the server loaded: %s", e.Path, e.Message)
}

// unloadedMarkers begin the warnings gopls publishes for an open file it
// could not place in any package of its views.
var unloadedMarkers = []string{"No packages found for open file", "This file is within module", "is not included in your workspace"}

// firstMarked returns the message of the first of ds that holds one of
// markers, or "".
func firstMarked(ds []lsp.Diagnostic, markers []string) string {
	for _, d := range ds {
		for _, m := range markers {
			if strings.Contains(d.Message, m) {
				return d.Message
			}
		}
	}
	return ""
}

// LoadFailedError says the server could not load the packages of the
// workspace (gopls, when the go command's package load fails), so its
// diagnostics after the change say nothing of what the change breaks.
type LoadFailedError struct {
	// Path is the file whose publish said so, workspace-relative where
	// it lies in the workspace.
	Path    string
	Message string
}

func (e *LoadFailedError) Error() string {
	return fmt.Sprintf("could not load the packages (%s: %s)", e.Path, oneLine(e.Message, 400))
}

// loadFailureMarkers are in what gopls publishes when the go command's
// package load failed: on the module's go.mod for the whole load, and on
// an import whose package it has no data for.
var loadFailureMarkers = []string{"packages.Load error", "missing metadata for import of"}

// oneLine joins s's lines with "; ", cut at about max bytes: the go
// command's error is on its last lines, after its progress.
func oneLine(s string, max int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	out := strings.Join(lines, "; ")
	if len(out) > max {
		out = strings.ToValidUTF8(out[:max], "") + "…"
	}
	return out
}
