package servers

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sync"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// FileChange is one file of a change set, as a server check sees it.
type FileChange struct {
	Path     string // absolute
	Language string // LSP language id
	// Old is the content on disk (the base); OldExists is false for a
	// file the change creates.
	Old       []byte
	OldExists bool
	// New is the proposed content; Delete removes the file instead.
	New    []byte
	Delete bool
}

// CheckRequest is one validation cycle for one server.
type CheckRequest struct {
	Files []FileChange
	// Dependants are other files (absolute paths) to diagnose before and
	// after, for servers that do not report dependants themselves.
	Dependants []string
	// DirectDependants is how many of Dependants (the first ones) import a
	// changed file themselves. Pull servers check the changed files and
	// these first, and stop there if they already have new errors: the
	// change is rejected either way, and rejections come back fast.
	DirectDependants int
	// BaselineKey identifies the state of the files on disk (the caller's
	// fingerprint of sizes and modification times). While it stays the
	// same, pull servers reuse the dependants' diagnostics from before
	// instead of asking again: they describe the disk, which has not
	// changed. Empty disables the reuse.
	BaselineKey string
	// AfterOverlay, if set, is called once the overlays have been sent;
	// tests use it to crash a server in the middle of a check.
	AfterOverlay func()
}

// CheckResult holds the diagnostics of every checked file before and after
// the change, by absolute path. A file of the change set that is created
// has no Before entry; a deleted one has no After entry.
type CheckResult struct {
	Before map[string][]lsp.Diagnostic
	After  map[string][]lsp.Diagnostic
	// Checked lists the files whose after-state the server reported on.
	Checked []string
	// Skipped counts dependants left unchecked because the nearer files
	// already had new errors.
	Skipped int
}

// Check runs one cycle: diagnostics of the current state, the proposed
// contents sent as overlays (never written to disk), diagnostics again, and
// the server's view restored to the disk. It fails (and the caller reports
// the change as unverified) when the server cannot start, crashes or does
// not settle before ctx ends.
func (s *Server) Check(ctx context.Context, req CheckRequest) (CheckResult, error) {
	return s.cycle(ctx, req, true)
}

// cycle runs the "before" half of a check and, when change is set, the
// overlays and the "after" half, then restores the server's view.
func (s *Server) cycle(ctx context.Context, req CheckRequest, change bool) (CheckResult, error) {
	s.busy.Lock()
	defer s.busy.Unlock()
	c, err := s.Client(ctx)
	if err != nil {
		return CheckResult{}, err
	}
	cy := &cycle{server: s, client: c, req: req, mode: s.resolved.Spec.Mode, res: CheckResult{
		Before: map[string][]lsp.Diagnostic{}, After: map[string][]lsp.Diagnostic{},
	}}
	defer cy.restore()
	err = cy.before(ctx)
	if err == nil && change {
		err = cy.applyOverlays(ctx)
		if err == nil {
			err = cy.after(ctx)
		}
	}
	if err != nil && !c.Alive() {
		return cy.res, c.ExitError()
	}
	return cy.res, err
}

// before collects the diagnostics of the files as they are on disk, the
// way the server's mode allows.
func (cy *cycle) before(ctx context.Context) error {
	var err error
	switch cy.mode {
	case ModePull:
		err = cy.pullBefore(ctx)
	case ModePushProgress:
		err = cy.pushProgressBefore(ctx)
	default:
		err = cy.pushBefore(ctx)
	}
	if err != nil {
		return fmt.Errorf("diagnostics before the change: %w", err)
	}
	return nil
}

// after collects the diagnostics once the overlays are in.
func (cy *cycle) after(ctx context.Context) error {
	var err error
	switch cy.mode {
	case ModePull:
		err = cy.pullAfter(ctx)
	case ModePushProgress:
		err = cy.pushProgressAfter(ctx)
	default:
		err = cy.pushAfter(ctx)
	}
	if err != nil {
		return fmt.Errorf("diagnostics after the change: %w", err)
	}
	return nil
}

// cycle is the state of one Check.
type cycle struct {
	server *Server
	client *lsp.Client
	mode   Mode
	req    CheckRequest
	res    CheckResult
	opened []lsp.DocumentURI // documents this cycle opened, to close after
}

// overlayText is what the server is shown for a changed file: the new
// content, or for a deletion a stand-in that keeps the file's language
// valid but defines nothing, so importers break the way they would when
// the file is gone.
func overlayText(f FileChange) string {
	if !f.Delete {
		return string(f.New)
	}
	switch f.Language {
	case "go":
		if m := goPackageClause.FindSubmatch(f.Old); m != nil {
			return "package " + string(m[1]) + "\n"
		}
		return ""
	case "typescript", "typescriptreact", "javascript", "javascriptreact":
		return "export {};\n"
	}
	return ""
}

var goPackageClause = regexp.MustCompile(`(?m)^package\s+(\w+)`)

func (cy *cycle) open(ctx context.Context, path, language, text string) error {
	uri := lsp.URIFromPath(path)
	if _, open := cy.client.IsOpen(uri); open {
		_, err := cy.client.DidChange(ctx, uri, text)
		return err
	}
	if _, err := cy.client.DidOpen(ctx, uri, language, text); err != nil {
		return err
	}
	cy.opened = append(cy.opened, uri)
	return nil
}

// applyOverlays sends every change as an overlay.
func (cy *cycle) applyOverlays(ctx context.Context) error {
	for _, f := range cy.req.Files {
		if err := cy.open(ctx, f.Path, f.Language, overlayText(f)); err != nil {
			return err
		}
	}
	if cy.req.AfterOverlay != nil {
		cy.req.AfterOverlay()
	}
	return nil
}

// restore closes what the cycle opened, on the server that is running now
// (a restarted one, after a crash), so the server is back to the disk.
func (cy *cycle) restore() {
	c := cy.server.current()
	if c == nil || !c.Alive() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cy.server.timeout)
	defer cancel()
	for _, uri := range cy.opened {
		_ = c.DidClose(ctx, uri)
	}
}

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
	cache := cy.server.baselineFor(cy.req.BaselineKey, cy.client)
	var before []string
	for _, f := range cy.req.Files {
		if !f.OldExists {
			continue
		}
		if lazy {
			if err := cy.open(ctx, f.Path, f.Language, string(f.Old)); err != nil {
				return err
			}
			before = append(before, f.Path)
			continue
		}
		if d, ok := cache[f.Path]; ok {
			cy.res.Before[f.Path] = d
		} else {
			before = append(before, f.Path) // a closed file: its disk state
		}
	}
	for _, p := range cy.req.Dependants {
		if d, ok := cache[p]; ok {
			cy.res.Before[p] = d
		} else {
			before = append(before, p)
		}
	}
	if err := cy.pullAll(ctx, before, cy.res.Before); err != nil {
		return err
	}
	for p, d := range cy.res.Before {
		cache[p] = d
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

// gainedErrors reports whether some file has more errors after than before,
// which means at least one error is new, whatever the pairing finds.
func gainedErrors(before, after map[string][]lsp.Diagnostic) bool {
	count := func(ds []lsp.Diagnostic) int {
		n := 0
		for _, d := range ds {
			if d.IsError() {
				n++
			}
		}
		return n
	}
	for p, ds := range after {
		if count(ds) > count(before[p]) {
			return true
		}
	}
	return false
}

// afterPaths are the files to diagnose after the change: the changed
// files that still exist, and the dependants.
func (cy *cycle) afterPaths() []string {
	var after []string
	for _, f := range cy.req.Files {
		if !f.Delete {
			after = append(after, f.Path)
		}
	}
	return append(after, cy.req.Dependants...)
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
	deleted := map[string]bool{}
	for _, f := range cy.req.Files {
		if f.Delete {
			deleted[f.Path] = true
		}
	}
	for p, pub := range cy.client.PublishedAll() {
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

// Push mode: servers that publish only for open files, with no end
// marker. The changed files and the dependants are opened and the server
// waited on; after the overlays, it is waited on again.
func (cy *cycle) pushBefore(ctx context.Context) error {
	c := cy.client
	var watched []string
	mark := c.PublishSeq()
	for _, f := range cy.req.Files {
		if f.OldExists {
			if err := cy.open(ctx, f.Path, f.Language, string(f.Old)); err != nil {
				return err
			}
			watched = append(watched, f.Path)
		}
	}
	for _, p := range cy.req.Dependants {
		text, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if err := cy.open(ctx, p, LanguageOf(p), string(text)); err != nil {
			return err
		}
		watched = append(watched, p)
	}
	// A file just opened is always published once; the first time can take
	// seconds while the server loads the project, far past any quiet period.
	for _, p := range watched {
		if _, err := c.WaitPublished(ctx, p, func(pub lsp.Published) bool { return pub.Seq > mark }); err != nil {
			return fmt.Errorf("none for %s: %w", p, err)
		}
	}
	if err := cy.waitQuiet(ctx); err != nil {
		return err
	}
	for _, p := range watched {
		pub, _ := c.Published(p)
		cy.res.Before[p] = pub.Diagnostics
	}
	return nil
}

func (cy *cycle) pushAfter(ctx context.Context) error {
	if err := cy.waitQuiet(ctx); err != nil {
		return err
	}
	after := cy.afterPaths()
	for _, p := range after {
		pub, _ := cy.client.Published(p)
		cy.res.After[p] = pub.Diagnostics
	}
	cy.res.Checked = after
	return nil
}

// waitQuiet waits for no publish during the spec's quiet period. A
// push-only server without progress reports gives nothing better; waiting
// for one publish per file is not enough either, since
// typescript-language-server does not re-publish a file whose diagnostics
// did not change.
func (cy *cycle) waitQuiet(ctx context.Context) error {
	return cy.client.WaitQuiet(ctx, cy.server.resolved.Spec.quiet())
}
