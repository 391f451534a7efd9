package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/tsserver"
)

// ErrClosed is returned by a server (or manager) that has been shut down.
var ErrClosed = errors.New("language servers are shut down")

// Server is one supervised language server for a workspace. It starts
// lazily, restarts after a crash with nothing open (no overlay outlives the
// check that made it), and runs one check or query at a time.
//
// Nothing a caller waits for holds the server's mutex: a start in progress
// is waited on through a channel, with the caller's context, and Shutdown
// cancels it instead of queueing behind it.
type Server struct {
	resolved Resolved
	root     string
	folders  []string
	log      io.Writer
	timeout  time.Duration // start-up and readiness bound
	onStart  func(string)  // told of each start, if set

	// life bounds supervision and start-up; Shutdown cancels it and waits
	// for the goroutines it bounds.
	life     context.Context
	stopLife context.CancelFunc
	workers  sync.WaitGroup

	mu       sync.Mutex // guards the fields below; never held while waiting
	client   backend
	starting chan struct{} // non-nil while a start runs; closed when it ends
	restarts int
	// crashes counts the restarts in a row of a server that died soon
	// after it started; startedAt is when the running one started.
	crashes   int
	startedAt time.Time
	closed    bool
	lastErr   error
	// loadedProjects are the projects loadedBy has loaded (see Prepare
	// and projects).
	loadedBy       backend
	loadedProjects map[string]bool

	// turn is a one-slot semaphore: the holder runs the only check or
	// query in progress. Taking it honours the caller's context.
	turn chan struct{}
	// yielders cancel the warm-ups that hold or wait for the turn (see
	// Warm): nobody waits on them, so a check or query that finds the
	// server busy takes the turn from them (guarded by mu).
	yielders  map[int]context.CancelFunc
	nextYield int

	// pendingDisk are disk changes the server has not been told yet
	// (guarded by mu), kept from the start of its launch on; the next
	// turn sends them first. pendingRestart has
	// the next turn replace the server first.
	pendingDisk    map[string]int
	pendingRestart bool

	// baseline caches dependants' diagnostics of the disk state named by
	// baselineKey, as answered by baselineFrom; replaced by the turn's
	// holder, under mu (the strategy reads it without the turn).
	baselineKey  string
	baselineFrom backend
	baseline     *baseline
}

// backend is a running server process, of either protocol: an
// [*lsp.Client], or a [*tsserver.Client] for ModeTSServer.
type backend interface {
	Alive() bool
	Exited() <-chan struct{}
	ExitError() error
	PID() int
	Info() lsp.ServerInfo
	Kill()
	Shutdown(ctx context.Context) error
	OutputBytes() uint64
	Contained() bool
}

func newServer(resolved Resolved, root string, folders []string, log io.Writer, timeout time.Duration) *Server {
	life, stop := context.WithCancel(context.Background())
	return &Server{resolved: resolved, root: root, folders: folders, log: log, timeout: timeout,
		life: life, stopLife: stop, turn: make(chan struct{}, 1)}
}

// acquire waits for the server's turn until ctx ends, and returns the
// function that gives it back. A caller that has to wait is told what for
// through onWait (nil: not told), which must not block. Unless the caller
// is a warm-up itself (warm), it first takes the turn from the warm-ups
// that hold or wait for it.
func (s *Server) acquire(ctx context.Context, onWait func(what string), warm bool) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		// A caller already gone (a warm-up superseded) takes no turn: its
		// cycle would fail at once and kill the server on the way out.
		return nil, fmt.Errorf("%s: %w", s.resolved.Spec.Name, err)
	}
	select {
	case s.turn <- struct{}{}:
		return func() { <-s.turn }, nil
	default:
	}
	if !warm {
		s.mu.Lock()
		for _, cancel := range s.yielders {
			cancel()
		}
		s.mu.Unlock()
	}
	if onWait != nil {
		onWait(s.resolved.Spec.Name + " is busy with another check or query; waiting for its turn")
	}
	select {
	case s.turn <- struct{}{}:
		return func() { <-s.turn }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s is busy with another check: %w", s.resolved.Spec.Name, ctx.Err())
	case <-s.life.Done():
		return nil, ErrClosed
	}
}

// yielding returns a context below ctx that a check or query finding the
// server busy cancels, and the function that ends it: the life of a
// warm-up, which nobody waits on.
func (s *Server) yielding(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if s.yielders == nil {
		s.yielders = map[int]context.CancelFunc{}
	}
	id := s.nextYield
	s.nextYield++
	s.yielders[id] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.yielders, id)
		s.mu.Unlock()
		cancel()
	}
}

// baselineFor returns the baseline cache for key as c answers it, emptied
// when the key changed (the disk did), the server was restarted, or the key
// is empty. Callers hold the turn.
func (s *Server) baselineFor(key string, c backend) *baseline {
	if key == "" {
		return newBaseline() // never reused
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key != s.baselineKey || c != s.baselineFrom || s.baseline == nil {
		s.baselineKey, s.baselineFrom, s.baseline = key, c, newBaseline()
	}
	return s.baseline
}

// Spec returns the server's spec.
func (s *Server) Spec() Spec { return s.resolved.Spec }

// Note says what the user should know of the server chosen, for every
// verdict it gives ("" for nothing): a compiler other than the project's,
// and a server that runs uncontained (the kernel gave it no namespace),
// which reads every place the policy would have hidden from it.
func (s *Server) Note() string {
	note := s.resolved.Note
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if s.resolved.Contain != nil && c != nil && c.Alive() && !c.Contained() {
		uncontained := s.resolved.Spec.Name + " runs uncontained: this machine gave it no namespace of its own, so the credential stores and Anvil's state are not hidden from it"
		note = strings.TrimPrefix(note+"; "+uncontained, "; ")
	}
	return note
}

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

// Start makes sure the server is running and ready, starting it if
// needed, and returns the error of a start that failed. A start takes up
// to the manager's start timeout whatever ctx says, so that one impatient
// caller does not waste a half-loaded server; ctx bounds only how long
// this caller waits for it.
func (s *Server) Start(ctx context.Context) error {
	_, err := s.running(ctx)
	return err
}

// running returns the running, ready backend, starting it if needed.
func (s *Server) running(ctx context.Context) (backend, error) {
	for {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return nil, ErrClosed
		case s.client != nil && s.client.Alive():
			c := s.client
			s.mu.Unlock()
			return c, nil
		case s.starting == nil:
			s.starting = make(chan struct{})
			s.workers.Add(1)
			go s.start(s.starting)
		}
		starting, lastErr := s.starting, s.lastErr
		s.mu.Unlock()
		select {
		case <-starting:
		case <-ctx.Done():
			if lastErr != nil {
				return nil, fmt.Errorf("%w (last start: %v)", ctx.Err(), lastErr)
			}
			return nil, ctx.Err()
		}
		s.mu.Lock()
		c, err := s.client, s.lastErr
		s.mu.Unlock()
		if c == nil || !c.Alive() {
			if err == nil {
				err = ErrClosed
			}
			return nil, err
		}
	}
}

// start runs one start-up of the server, bounded by the start timeout and
// by the server's life, and publishes its outcome; done is closed at the
// end.
func (s *Server) start(done chan struct{}) {
	defer s.workers.Done()
	// The new process reads the disk from here on: what changed before
	// is what it reads; what changes from now on it is told of (see
	// NotifyDiskChanges).
	s.mu.Lock()
	s.pendingDisk = nil
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.life, s.timeout)
	defer cancel()
	c, err := s.launch(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(done)
	s.starting = nil
	if err == nil && s.closed {
		// Shut down while starting: the new process has no owner left.
		c.Kill()
		err = ErrClosed
	}
	if err != nil {
		s.lastErr = err
		return
	}
	s.client, s.lastErr, s.startedAt = c, nil, time.Now()
	s.workers.Add(1)
	go s.watch(c)
}

// Restarts after a crash back off while a server keeps dying soon after
// it starts, and stop after maxQuickCrashes in a row: the next request
// tries again, and says why when that fails too.
const (
	quickCrash      = 30 * time.Second
	maxQuickCrashes = 5
	restartPause    = 200 * time.Millisecond
	maxRestartPause = 10 * time.Second
)

// launch starts a backend and waits until it is ready.
func (s *Server) launch(ctx context.Context) (backend, error) {
	spec := s.resolved.Spec
	if s.onStart != nil {
		s.onStart(spec.Name)
	}
	if spec.Mode == ModeTSServer {
		c, err := tsserver.Start(ctx, tsserver.Config{
			Name: spec.Name, Node: s.resolved.Path, TSServer: spec.tsserver, Dir: s.root, Env: s.resolved.Env, Contain: s.resolved.Contain, Log: s.log,
		})
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	c, err := lsp.Start(ctx, lsp.Config{
		Name: spec.Name, Command: s.resolved.Path, Args: spec.Args, Dir: s.root, Folders: s.folders, Env: s.resolved.Env, Contain: s.resolved.Contain,
		InitOptions: spec.InitOptions, Settings: spec.Settings, Log: s.log,
	})
	if err != nil {
		return nil, err
	}
	if err := s.awaitReady(ctx, c); err != nil {
		c.Kill()
		return nil, fmt.Errorf("%s did not become ready: %w", spec.Name, err)
	}
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

// watch notices the end of c's process and, if the server is still wanted,
// starts a new one. The new one opens nothing: whatever c had open was a
// check's overlay or a query's document, and both ended with c.
func (s *Server) watch(c backend) {
	defer s.workers.Done()
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
	s.client = nil
	if time.Since(s.startedAt) < quickCrash {
		s.crashes++
	} else {
		s.crashes = 1
	}
	if s.crashes >= maxQuickCrashes {
		s.lastErr = fmt.Errorf("%s died within %s of starting %d times in a row, so it is not restarted until the next check asks for it; last: %w", s.resolved.Spec.Name, quickCrash, s.crashes, s.lastErr)
		if s.log != nil {
			fmt.Fprintf(s.log, "anvil: %v\n", s.lastErr)
		}
		return
	}
	pause := min(restartPause<<(s.crashes-1), maxRestartPause)
	if s.log != nil {
		fmt.Fprintf(s.log, "anvil: %v; restarting in %s\n", s.lastErr, pause)
	}
	if s.starting == nil {
		s.starting = make(chan struct{})
		s.workers.Add(1)
		go func(done chan struct{}) {
			// The pause keeps a server that dies at once from spinning.
			select {
			case <-time.After(pause):
			case <-s.life.Done():
			}
			s.start(done)
		}(s.starting)
	}
}

// current returns the backend as it is now, possibly nil or dead.
func (s *Server) current() backend {
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

// Shutdown stops supervising and shuts the server down: a start in
// progress is cancelled, a running server asked to exit and killed if it
// does not within the bounds of [lsp.Client.Shutdown] or ctx. It returns
// once every process and goroutine of the server has ended.
func (s *Server) Shutdown(ctx context.Context) {
	s.mu.Lock()
	s.closed = true
	c := s.client
	s.mu.Unlock()
	s.stopLife()
	if c != nil {
		_ = c.Shutdown(ctx)
	}
	s.workers.Wait()
}

// kill ends the server at once without the shutdown handshake and
// returns once its processes are reaped, for a process about to exit.
func (s *Server) kill() {
	s.mu.Lock()
	s.closed = true
	c := s.client
	s.mu.Unlock()
	s.stopLife()
	if c != nil {
		c.Kill()
	}
	s.workers.Wait()
}
