package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// Server is one supervised language server for a workspace. It starts
// lazily, restarts after a crash (re-opening the documents that were open,
// with their content on disk, so no overlay outlives the check that made
// it), and runs one check at a time.
type Server struct {
	resolved Resolved
	root     string
	log      io.Writer
	timeout  time.Duration // startup and readiness bound

	// life bounds supervision; Shutdown cancels it and waits for watchers.
	life     context.Context
	stopLife context.CancelFunc
	watchers sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	client   *lsp.Client
	restarts int
	closed   bool
	lastErr  error

	busy sync.Mutex // one check or query at a time

	// baseline caches dependants' diagnostics of the disk state named by
	// baselineKey, as answered by baselineFrom; guarded by busy.
	baselineKey  string
	baselineFrom *lsp.Client
	baseline     map[string][]lsp.Diagnostic
}

// baselineFor returns the baseline cache for key as c answers it, emptied
// when the key changed (the disk did), the server was restarted, or the key
// is empty. Callers hold busy.
func (s *Server) baselineFor(key string, c *lsp.Client) map[string][]lsp.Diagnostic {
	if key == "" {
		return map[string][]lsp.Diagnostic{} // never reused
	}
	if key != s.baselineKey || c != s.baselineFrom || s.baseline == nil {
		s.baselineKey, s.baselineFrom, s.baseline = key, c, map[string][]lsp.Diagnostic{}
	}
	return s.baseline
}

func newServer(resolved Resolved, root string, log io.Writer, timeout time.Duration) *Server {
	life, stop := context.WithCancel(context.Background())
	return &Server{resolved: resolved, root: root, log: log, timeout: timeout, life: life, stopLife: stop}
}

// Spec returns the server's spec.
func (s *Server) Spec() Spec { return s.resolved.Spec }

// Binary returns the path of the server's executable.
func (s *Server) Binary() string { return s.resolved.Path }

// Restarts returns how many times the server was restarted after a crash.
func (s *Server) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

// Info returns the running server's name and version ("" before it starts).
func (s *Server) Info() lsp.ServerInfo {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c == nil {
		return lsp.ServerInfo{Name: s.resolved.Spec.Name}
	}
	info := c.Info()
	info.Version = cleanVersion(info.Version)
	if s.resolved.Spec.version != "" && info.Version == "" {
		info.Version = "typescript " + s.resolved.Spec.version
	}
	return info
}

// cleanVersion turns gopls's JSON build-info "version" into its module
// version.
func cleanVersion(v string) string {
	if len(v) == 0 || v[0] != '{' {
		return v
	}
	var bi struct {
		Version string `json:"Version"`
	}
	if json.Unmarshal([]byte(v), &bi) == nil && bi.Version != "" {
		return bi.Version
	}
	return v
}

// PID returns the running server's process id, or 0.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil || !s.client.Alive() {
		return 0
	}
	return s.client.PID()
}

// Client returns a running, ready client, starting the server if needed.
func (s *Server) Client(ctx context.Context) (*lsp.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("server manager is shut down")
	}
	if s.client != nil && s.client.Alive() {
		return s.client, nil
	}
	return s.startLocked(ctx, nil)
}

// startLocked starts a new client, re-opening reopen with disk content.
func (s *Server) startLocked(ctx context.Context, reopen []lsp.OpenDocument) (*lsp.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	spec := s.resolved.Spec
	c, err := lsp.Start(ctx, lsp.Config{
		Name: spec.Name, Command: s.resolved.Path, Args: spec.Args, Dir: s.root, Env: spec.Env,
		InitOptions: spec.InitOptions, Settings: spec.Settings, Log: s.log,
	})
	if err != nil {
		s.lastErr = err
		return nil, err
	}
	if err := s.awaitReady(ctx, c); err != nil {
		c.Kill()
		s.lastErr = err
		return nil, fmt.Errorf("%s did not become ready: %w", spec.Name, err)
	}
	for _, d := range reopen {
		text, err := os.ReadFile(d.URI.Path())
		if err != nil {
			continue // deleted on disk meanwhile: nothing to re-open
		}
		_, _ = c.DidOpen(ctx, d.URI, d.LanguageID, string(text))
	}
	if len(reopen) > 0 {
		if err := s.awaitReady(ctx, c); err != nil {
			c.Kill()
			return nil, err
		}
	}
	s.client = c
	s.watchers.Add(1)
	go s.watch(c)
	return c, nil
}

// awaitReady waits for what a server needs before its answers are
// complete: gopls's initial workspace diagnosis, pyright's dynamic
// registration of pull diagnostics.
func (s *Server) awaitReady(ctx context.Context, c *lsp.Client) error {
	switch {
	case s.resolved.Spec.Mode == ModePushProgress:
		return c.WaitWorkDone(ctx, "diagnosing", 1+c.Modifications())
	case s.resolved.Spec.Mode == ModePull && !c.SupportsPull():
		return c.WaitRegistered(ctx, "textDocument/diagnostic")
	}
	return nil
}

// watch restarts the server if its process ends while it is wanted.
func (s *Server) watch(c *lsp.Client) {
	defer s.watchers.Done()
	select {
	case <-s.life.Done():
		return
	case <-c.Exited():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.client != c {
		return
	}
	s.restarts++
	s.lastErr = c.ExitError()
	if s.log != nil {
		fmt.Fprintf(s.log, "anvil: %v; restarting\n", s.lastErr)
	}
	// A short pause keeps a server that dies at once from spinning.
	select {
	case <-time.After(200 * time.Millisecond):
	case <-s.life.Done():
		return
	}
	if _, err := s.startLocked(s.life, c.OpenDocuments()); err != nil && s.log != nil {
		fmt.Fprintf(s.log, "anvil: restarting %s failed: %v\n", s.resolved.Spec.Name, err)
	}
}

// current returns the client as it is now, possibly nil or dead.
func (s *Server) current() *lsp.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// Kill ends the server process at once, as a crash would; the supervisor
// restarts it. For tests and for 'anvil doctor'.
func (s *Server) Kill() {
	if c := s.current(); c != nil {
		c.Kill()
	}
}

// Shutdown stops supervising and shuts the server down.
func (s *Server) Shutdown(ctx context.Context) {
	s.stopLife() // first, so that a restart in progress gives up the lock
	s.mu.Lock()
	s.closed = true
	c := s.client
	s.mu.Unlock()
	if c != nil {
		_ = c.Shutdown(ctx)
	}
	s.watchers.Wait()
}
