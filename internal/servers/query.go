package servers

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/tsserver"
)

// Doc is a document to have open for a query: its content on disk, or an
// overlay when Text is set.
type Doc struct {
	Path string // absolute
	Text *string
}

// Navigator answers the navigation requests tools make, in LSP's terms,
// whatever protocol the server speaks.
type Navigator interface {
	Definition(ctx context.Context, uri lsp.DocumentURI, pos lsp.Position) ([]lsp.Location, error)
	References(ctx context.Context, uri lsp.DocumentURI, pos lsp.Position) ([]lsp.Location, error)
	Rename(ctx context.Context, uri lsp.DocumentURI, pos lsp.Position, newName string) (*lsp.WorkspaceEdit, error)
}

// queryAnalysisTimeout bounds a query's wait for a push server to have
// analysed the documents it opened (a file at a time, each in about the
// time of a compile).
const queryAnalysisTimeout = 2 * time.Minute

// Query runs fn with the ready server while docs are open (as on disk, or
// with the given overlay text), then closes what it opened. Queries and
// checks take turns, so a query never sees a check's overlays.
func (s *Server) Query(ctx context.Context, docs []Doc, fn func(Navigator) error) error {
	release, err := s.acquire(ctx, nil, false)
	if err != nil {
		return err
	}
	defer release()
	s.restartIfAsked()
	b, err := s.running(ctx)
	if err != nil {
		return err
	}
	if err := s.flushDisk(ctx, b); err != nil {
		return err
	}
	if ts, ok := b.(*tsserver.Client); ok {
		return s.queryTS(ctx, ts, docs, fn)
	}
	c := b.(*lsp.Client)
	cy := &cycle{server: s, client: c}
	defer cy.restore(false)
	var opened []sent
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
		st, err := cy.send(ctx, d.Path, LanguageOf(d.Path), *text)
		if err != nil {
			return err
		}
		opened = append(opened, st)
	}
	if s.resolved.Spec.Mode == ModePush && len(opened) > 1 {
		// A push server's publish for a document shows it has analysed
		// it: clangd adds a file's references to its index before it
		// publishes the file's diagnostics, and finds references only in
		// the files it has analysed (there is no background index). So the
		// query waits for every document's answer; then references cover
		// all of them.
		wctx, cancel := context.WithTimeout(ctx, queryAnalysisTimeout)
		defer cancel()
		for _, st := range opened {
			if _, err := c.WaitPublished(wctx, st.path, st.answeredBy); err != nil {
				return fmt.Errorf("%s did not analyse %s within %s: %w", s.resolved.Spec.Name, st.path, queryAnalysisTimeout, err)
			}
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

// Warm asks the server about files (absolute paths) as they are on disk,
// whose state key names (the caller's fingerprint, as in
// [CheckRequest.BaselineKey]), and keeps the answers as the baseline of
// the next checks while the key holds: the first check of a change to
// them then asks about the change alone. Only the servers that keep such
// a baseline (pull servers, tsserver) are asked; the others' baseline is
// what they publish. A server that applies opens lazily (pyright) still
// pulls a changed file at its disk content in the check (check_pull.go):
// what its warm-up saves is its dependants' questions. A warm-up yields
// the server to any check or query that finds it busy: it then fails with
// the context's cancellation and keeps none of its answers (the caller
// asks again).
func (s *Server) Warm(ctx context.Context, key string, files []string) error {
	spec := s.resolved.Spec
	if key == "" || len(files) == 0 || spec.ReportsDependants || (spec.Mode != ModePull && spec.Mode != ModeTSServer) {
		return nil
	}
	// A warm-up gives the server up to any check or query that asks for
	// it, waiting or holding it: the question in flight is cancelled and
	// the cycle puts the server back to the disk, as for any check cut
	// short by its caller (a cancellation is no reason to kill it).
	ctx, done := s.yielding(ctx)
	defer done()
	_, err := s.cycle(ctx, CheckRequest{Dependants: files, BaselineKey: key, warm: true}, false)
	return err
}

// Settle asks a pull server about files as they are on disk, and keeps
// none of its answers: after a check that opened and closed many files
// (a commit's, a turn's end's), the server brings its program back to
// the disk at its next question, and asked in the background that
// question is this one rather than the next check's. It yields the
// server to any check, as Warm does.
func (s *Server) Settle(ctx context.Context, files []string) error {
	if s.resolved.Spec.Mode != ModePull || len(files) == 0 {
		return nil
	}
	ctx, done := s.yielding(ctx)
	defer done()
	_, err := s.cycle(ctx, CheckRequest{Dependants: files, warm: true}, false)
	return err
}

// Kinds of disk change for [Server.NotifyDiskChanges], numbered as
// workspace/didChangeWatchedFiles numbers them.
const (
	FileCreated = 1
	FileChanged = 2
	FileDeleted = 3
)

// NotifyDiskChanges tells the server that files changed on disk
// (absolute path → 1 created, 2 changed, 3 deleted). It never waits: the
// changes are kept and sent at the start of the server's next turn, before
// any check or query runs on it, so a check never sees a disk older than
// the one its caller scanned, and a notification never waits behind
// another client's long check on this server (or any other). A server
// starting is told too, once it is up: it may have read the file before
// the change (gopls loads the whole workspace before it is ready, and a
// caller that gave up on the start leaves it loading). A server neither
// running nor starting needs nothing: it will read the disk as it is.
func (s *Server) NotifyDiskChanges(_ context.Context, changes map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.starting == nil && (s.client == nil || !s.client.Alive()) {
		return
	}
	if s.pendingDisk == nil {
		s.pendingDisk = map[string]int{}
	}
	for p, t := range changes {
		s.pendingDisk[p] = t
	}
}

// RestartBeforeNextTurn has the server replaced at the start of its next
// turn (in that turn, so no check running now is cut short): what it
// resolved imports against (installed packages) changed in ways it is
// never told of.
func (s *Server) RestartBeforeNextTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil && s.client.Alive() {
		s.pendingRestart = true
	}
}

// restartIfAsked replaces the backend when a restart is pending; called
// in the caller's turn, before the server is used.
func (s *Server) restartIfAsked() {
	s.mu.Lock()
	c := s.client
	if !s.pendingRestart || c == nil {
		s.mu.Unlock()
		return
	}
	s.pendingRestart, s.pendingDisk = false, nil
	// Not a crash: the watcher leaves a retired backend alone.
	s.client = nil
	s.mu.Unlock()
	if s.log != nil {
		fmt.Fprintf(s.log, "anvil: %s restarted: the installed dependencies changed\n", s.resolved.Spec.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	_ = c.Shutdown(ctx)
}

// flushDisk sends the disk changes kept for b, in the caller's turn. A
// server that cannot be told is killed (it would go on answering about
// contents that are gone); its successor reads the disk afresh.
func (s *Server) flushDisk(ctx context.Context, b backend) error {
	s.mu.Lock()
	changes := s.pendingDisk
	s.pendingDisk = nil
	s.mu.Unlock()
	if len(changes) == 0 || b == nil || !b.Alive() {
		return nil
	}
	var err error
	switch c := b.(type) {
	case *tsserver.Client:
		err = notifyTSServer(ctx, c, changes)
	case *lsp.Client:
		uris := make(map[lsp.DocumentURI]int, len(changes))
		for p, t := range changes {
			uris[lsp.URIFromPath(p)] = t
		}
		err = c.DidChangeWatchedFiles(ctx, uris)
	}
	if err != nil {
		b.Kill()
		return fmt.Errorf("%s could not be told of files changed on disk (%v); it is restarted", s.resolved.Spec.Name, err)
	}
	return nil
}
