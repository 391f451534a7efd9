package servers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/tsserver"
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
	// Config marks a configuration file (go.mod, tsconfig.json): it is
	// shown to the server so that the other files are checked under it,
	// and not itself asked about.
	Config bool
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
	// NewErrorsOnly: the caller reads only the errors the change
	// introduces (the pre-edit hook), not those it resolves. A file
	// without an error after the change can have no new one, whatever it
	// had before, so where the server can take the change back (tsserver,
	// for a change that only edits existing files) the "after" is asked
	// first and the "before" only of the files with an error after it:
	// on a clean project, one question per file instead of two. The
	// result then has no Before for the others, and its resolved errors
	// are not all known.
	NewErrorsOnly bool
	// CleanAtDisk are files (absolute) that the project's own batch
	// checker, the same compiler as the server and its configuration,
	// found without an error at the disk state BaselineKey names. Their
	// "before" is spared: once tsc has checked a project's unchanged
	// tree, a change that reaches 608 of tldraw's files asks tsserver
	// 608 questions, not 1,216. tsserver asks it only of those with an
	// error after the change, where it can take the change back (edits
	// only: cleanSpares), so the server's own answer pairs every error
	// it reports; a pull server takes it as no error. It applies only
	// where the disk state is the "before" (every changed file's base is
	// the disk's content). A file named here wrongly can only have its
	// old errors read as new ones (a pull server's) or an error it
	// resolved go unreported: no new error is hidden by it.
	CleanAtDisk map[string]bool
	// AfterOverlay, if set, is called once the overlays have been sent;
	// tests use it to crash a server in the middle of a check.
	AfterOverlay func()
	// OnWait, if set, is told when the check waits for the server's turn
	// (another client's check on it), and what for. It must not block.
	OnWait func(what string)
	// warm: the cycle is a warm-up (Server.Warm), which yields the turn
	// to every other check and query.
	warm bool
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
	// Notes say how particular files were checked, by path (a created file
	// checked outside any tsconfig.json project).
	Notes map[string]string
	// Reused counts the files whose "before" was not asked: kept in the
	// baseline cache, the disk unchanged since the server was asked about
	// them (by an earlier check, or by [Server.Warm]), or known from the
	// batch checker (CheckRequest.CleanAtDisk).
	Reused int
	// Stopped says where a checker stopped reporting part-way through the
	// answer after the change (a compiler's fatal error in a translation
	// unit): its silence past that point is no evidence. "" when none.
	Stopped string
}

// note records how path was checked.
func (r *CheckResult) note(path, text string) {
	if r.Notes == nil {
		r.Notes = map[string]string{}
	}
	r.Notes[path] = text
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
	release, err := s.acquire(ctx, req.OnWait, req.warm)
	if err != nil {
		return CheckResult{}, err
	}
	defer release()
	s.restartIfAsked()
	b, err := s.running(ctx)
	if err != nil {
		return CheckResult{}, err
	}
	if err := s.flushDisk(ctx, b); err != nil {
		return CheckResult{}, err
	}
	res := CheckResult{Before: map[string][]lsp.Diagnostic{}, After: map[string][]lsp.Diagnostic{}}
	var cy checkCycle
	switch c := b.(type) {
	case *tsserver.Client:
		cy = &tsCycle{server: s, client: c, req: req, res: &res}
	case *lsp.Client:
		cy = &cycle{server: s, client: c, req: req, mode: s.resolved.Spec.Mode, res: &res}
	}
	abandon := false
	defer func() { cy.restore(abandon) }()
	err = cy.before(ctx)
	if err == nil && change {
		err = cy.applyOverlays(ctx)
		if err == nil {
			err = cy.after(ctx)
		}
	}
	if err != nil && !b.Alive() {
		return res, b.ExitError()
	}
	if err != nil && ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded) && !req.warm {
		// The server did not finish within the bound. Whatever it is busy
		// with would leak into the next check's answers; a fresh server
		// starts from the disk. A warm-up sent no overlay, and its bound
		// is its job's, not a sign of a hung server: the next check's own
		// bound judges the server.
		abandon = true
	}
	return res, err
}

// checkCycle is one check on one kind of server: the "before" half, the
// overlays, the "after" half, and putting the server back to the disk
// (or, when abandon is set, killing it).
type checkCycle interface {
	before(ctx context.Context) error
	applyOverlays(ctx context.Context) error
	after(ctx context.Context) error
	restore(abandon bool)
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
	res    *CheckResult
	opened []lsp.DocumentURI // documents this cycle opened, to close after
	// overlays are the states of the changed files sent to the server.
	overlays []sent
	// cache is where the "before" answers come from and go to, and
	// deferred the files whose "before" waits for the "after" (see
	// defersBefores).
	cache    befores
	deferred []string
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

// sent records one document state the client sent, for servers whose
// answer must be matched to it (see check_push.go).
type sent struct {
	path    string
	version int
	// mark is the number of publishes received when the state had been
	// written to the server; only a later publish can answer it.
	mark uint64
}

// answeredBy reports whether pub answers the state s: a publish labelled
// with s's version, or, unlabelled, one that arrived after s was sent.
func (s sent) answeredBy(pub lsp.Published) bool {
	if pub.Version != nil {
		return *pub.Version == s.version
	}
	return pub.Seq > s.mark
}

// send shows the server text for path: a didChange if the cycle has it
// open, else a didOpen (closed again by restore).
func (cy *cycle) send(ctx context.Context, path, language, text string) (sent, error) {
	uri := lsp.URIFromPath(path)
	var version int
	var err error
	if _, open := cy.client.IsOpen(uri); open {
		version, err = cy.client.DidChange(ctx, uri, text)
	} else {
		// Recorded before it is sent: a didOpen cut short by the caller's
		// context may still have reached the server, and a document left
		// open there would shadow the disk for every later check.
		cy.opened = append(cy.opened, uri)
		version, err = cy.client.DidOpen(ctx, uri, language, text)
	}
	if err != nil {
		return sent{}, err
	}
	return sent{path: path, version: version, mark: cy.client.PublishSeq()}, nil
}

func (cy *cycle) open(ctx context.Context, path, language, text string) error {
	_, err := cy.send(ctx, path, language, text)
	return err
}

// applyOverlays sends every change as an overlay.
func (cy *cycle) applyOverlays(ctx context.Context) error {
	for _, f := range cy.req.Files {
		if cy.atBaseFirst(f) {
			if err := cy.open(ctx, f.Path, f.Language, string(f.Old)); err != nil {
				return err
			}
		}
		s, err := cy.send(ctx, f.Path, f.Language, overlayText(f))
		if err != nil {
			return err
		}
		cy.overlays = append(cy.overlays, s)
	}
	if cy.req.AfterOverlay != nil {
		cy.req.AfterOverlay()
	}
	return nil
}

// atBaseFirst reports whether a source file edited in place is shown to
// the server at its base first, then changed, rather than opened changed:
// measured on date-fns with TypeScript 7's server, opening a file for the
// first time with content that differs from the disk took 60-240 ms to
// answer, and opening it at its base and then changing it 16-45 ms, every
// time. Only a pull server that applies opens as they come: a push
// server would publish for the base, an answer a check could take for
// the change's, and one that applies opens lazily (pyright) has the
// changed files open at their base already (check_pull.go).
func (cy *cycle) atBaseFirst(f FileChange) bool {
	if cy.mode != ModePull || cy.server.resolved.Spec.LazyOpen || !f.OldExists || f.Delete || f.Config {
		return false
	}
	_, open := cy.client.IsOpen(lsp.URIFromPath(f.Path))
	return !open
}

// restoreTimeout bounds closing a cycle's documents. Closing is a handful
// of notifications; a server that does not take them this fast is not
// reading, and is killed instead.
const restoreTimeout = 5 * time.Second

// restore puts the server back to the disk: it closes what the cycle
// opened on the client the cycle used, or, if that cannot be done (the
// server is gone, did not answer in time, or does not take the close), it
// makes sure that client is dead. A restarted server opens nothing, so no
// overlay survives a check.
func (cy *cycle) restore(abandon bool) {
	c := cy.client
	if c == nil || !c.Alive() {
		return
	}
	if abandon {
		c.Kill()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	for _, uri := range cy.opened {
		if err := c.DidClose(ctx, uri); err != nil {
			c.Kill()
			return
		}
	}
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
		if !f.Delete && !f.Config {
			after = append(after, f.Path)
		}
	}
	return append(after, cy.req.Dependants...)
}
