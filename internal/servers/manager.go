package servers

import (
	"context"
	"io"
	"sync"
	"time"
)

// Manager runs the language servers of one workspace: at most one per spec,
// started on first use and shut down together. It is a value owned by the
// composition root, not a global, so tests and several workspaces can each
// have their own.
type Manager struct {
	root     string
	registry *Registry
	log      io.Writer
	timeout  time.Duration
	onStart  func(string)

	mu      sync.Mutex
	servers map[string]*Server // by spec name
	closed  bool
}

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	// Log receives servers' stderr and restart notices; nil discards them.
	Log io.Writer
	// StartTimeout bounds a server's start and readiness (gopls loading the
	// workspace); zero means 5 minutes: a large workspace loads slowly, and
	// the bound is for a server that hangs.
	StartTimeout time.Duration
	// OnStart, if set, is told the name of each server as it starts (for
	// a terminal's progress line; it must not block).
	OnStart func(server string)
}

// NewManager returns a manager for the workspace at root.
func NewManager(root string, registry *Registry, opts ManagerOptions) *Manager {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 5 * time.Minute
	}
	return &Manager{root: root, registry: registry, log: opts.Log, timeout: opts.StartTimeout, onStart: opts.OnStart, servers: map[string]*Server{}}
}

// Registry returns the registry the manager resolves servers with.
func (m *Manager) Registry() *Registry { return m.registry }

// ForLanguage returns the server for an LSP language id, creating it (not
// yet started) on first use. A *NoServerError means none is available.
func (m *Manager) ForLanguage(language string) (*Server, error) {
	resolved, err := m.registry.Resolve(m.root, language)
	if err != nil {
		return nil, err
	}
	return m.serverFor(resolved)
}

// NativeFor returns TypeScript 7's server for language, created (not yet
// started) on first use, where it may stand in for the project's own
// tsserver (Registry.ResolveNative); false where it may not. It runs
// beside the project's server, which still answers wherever the
// project's own compiler decides.
func (m *Manager) NativeFor(language string) (*Server, bool) {
	resolved, ok := m.registry.ResolveNative(m.root, language)
	if !ok {
		return nil, false
	}
	s, err := m.serverFor(resolved)
	return s, err == nil
}

// serverFor returns the manager's server of resolved's spec, creating
// it on first use.
func (m *Manager) serverFor(resolved Resolved) (*Server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, context.Canceled
	}
	if s, ok := m.servers[resolved.Spec.Name]; ok {
		return s, nil
	}
	s := newServer(resolved, m.root, projectFolders(m.root, resolved.Spec), m.log, m.timeout)
	s.onStart = m.onStart
	m.servers[resolved.Spec.Name] = s
	return s, nil
}

// ForFile returns the server for the file at path (see [LanguageOf]).
func (m *Manager) ForFile(path string) (*Server, error) {
	lang := LanguageOf(path)
	if lang == "" {
		return nil, &NoServerError{Language: "files like " + path}
	}
	return m.ForLanguage(lang)
}

// Prewarm starts the servers for languages in the background so the first
// check does not pay their start-up; errors surface on first use.
func (m *Manager) Prewarm(ctx context.Context, languages ...string) {
	for _, l := range languages {
		s, err := m.ForLanguage(l)
		if err != nil {
			continue
		}
		go func() { _ = s.Start(ctx) }()
	}
}

// Running returns the servers created so far.
func (m *Manager) Running() []*Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	return out
}

// Shutdown shuts every server down in parallel, bounded by ctx.
func (m *Manager) Shutdown(ctx context.Context) {
	m.mu.Lock()
	m.closed = true
	servers := make([]*Server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { s.Shutdown(ctx) })
	}
	wg.Wait()
}

// KillAll kills every server at once, without the shutdown handshake, and
// returns once they are reaped: for a process about to exit on a second
// interrupt, so that no server outlives it. It does not wait for a
// Shutdown in progress.
func (m *Manager) KillAll() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range m.Running() {
		wg.Go(s.kill)
	}
	wg.Wait()
}
