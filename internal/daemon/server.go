package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// DefaultIdle is how long a workspace's servers stay warm without a
// request (Cursor's shadow workspace uses the same 15 minutes); the daemon
// itself exits once it has held no workspace for as long.
const DefaultIdle = 15 * time.Minute

// DefaultQueue bounds the requests in flight or waiting for one workspace;
// past it a request is refused as busy rather than queued without end.
const DefaultQueue = 32

// ErrRunning is returned by [Run] when another daemon holds the socket.
var ErrRunning = errors.New("an Anvil daemon is already running")

// Options configure a daemon.
type Options struct {
	// Socket is where it listens (see [SocketPath]).
	Socket string
	// Idle: see [DefaultIdle]; zero means that.
	Idle time.Duration
	// Queue: see [DefaultQueue]; zero means that.
	Queue int
	// Getenv is the environment workspaces are opened with (config and
	// state directories): the composition root's.
	Getenv func(string) string
	// Log receives what the daemon does; nil discards it.
	Log io.Writer
	// Version is what the daemon says it is; "" means [Version]. Tests
	// set it to play a daemon of another build.
	Version string
	// Memory bounds the resident memory of everything the daemon starts,
	// bytes (see memory.go); zero means [DefaultMemory], negative no
	// bound.
	Memory int64
	// memoryTick is how often the memory bound is measured, and
	// memoryMinIdle how long a workspace must be idle before the bound
	// may stop it (tests shorten both); zero means the constants.
	memoryTick, memoryMinIdle time.Duration
	// Unused, when set, makes a daemon that no client has connected to
	// within it exit: a daemon a client started for itself (one that lost
	// a start race, or whose client went away first) does not wait out
	// its idle time. Zero: it waits (anvil serve run by hand).
	Unused time.Duration
}

// Daemon serves the workspaces its clients ask about.
type Daemon struct {
	opts    Options
	version string
	started time.Time
	log     *log.Logger

	ctx    context.Context // cancelled by Stop: ends every request
	cancel context.CancelFunc
	ln     net.Listener

	mu     sync.Mutex
	spaces map[string]*space
	last   time.Time // the end of the last request, for the daemon's own idle exit
	// clients counts the connections open: a daemon with a client (an MCP
	// session waiting for its model) is not idle, whatever its workspaces.
	clients int
	// served: a client has connected at least once.
	served bool
	conns  sync.WaitGroup
	// requests in flight, over every connection: the workspaces are
	// closed only once the last has ended.
	requests sync.WaitGroup
	draining bool          // set once Serve waits for requests: no new one enters
	done     chan struct{} // closed by Stop
	closed   chan struct{} // closed once every server is down: clients are let go then
	once     sync.Once
}

// space is one workspace the daemon holds.
type space struct {
	dir      string
	app      *app.App
	svc      service.Service
	active   int // requests in flight or waiting
	requests int
	last     time.Time
	configs  map[string]string // config files → what they were when loaded
}

// Run acquires the daemon's lock (beside the socket), listens and serves
// until ctx ends, [Daemon.Stop] is called (anvil serve stop) or the daemon
// has been idle for opts.Idle with no workspace. It returns [ErrRunning] if
// another daemon is running.
func Run(ctx context.Context, opts Options) error {
	d, err := Listen(opts)
	if err != nil {
		return err
	}
	go func() {
		select {
		case <-ctx.Done():
			d.Stop()
		case <-d.done:
		}
	}()
	return d.Serve()
}

// Listen prepares a daemon: its directory private to the user, its lock,
// its socket (a stale one from a daemon that died is replaced).
func Listen(opts Options) (*Daemon, error) {
	// Without the root's environment every workspace it opened would
	// fail at its first request, after the daemon had said it listens.
	if opts.Getenv == nil {
		return nil, errors.New("daemon: no environment to open workspaces with (Options.Getenv)")
	}
	if opts.Idle == 0 {
		opts.Idle = DefaultIdle
	}
	if opts.Queue == 0 {
		opts.Queue = DefaultQueue
	}
	if opts.Memory == 0 {
		opts.Memory = DefaultMemory()
	}
	if opts.memoryTick == 0 {
		opts.memoryTick = memoryTick
	}
	if opts.memoryMinIdle == 0 {
		opts.memoryMinIdle = memoryMinIdle
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Version == "" {
		opts.Version = Version()
	}
	dir := filepath.Dir(opts.Socket)
	if err := state.EnsureDir(dir); err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	// Only the user may even reach the socket.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	lock := flock.New(strings.TrimSuffix(opts.Socket, ".sock") + ".lock")
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	if !ok {
		return nil, ErrRunning
	}
	// The lock is held: a socket file left here belongs to a daemon that
	// died.
	_ = os.Remove(opts.Socket)
	ln, err := net.Listen("unix", opts.Socket)
	if err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("daemon: %w", err)
	}
	if err := os.Chmod(opts.Socket, 0o600); err != nil {
		ln.Close()
		lock.Unlock()
		return nil, fmt.Errorf("daemon: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Daemon{opts: opts, version: opts.Version, started: time.Now(), log: log.New(opts.Log, "anvil daemon: ", log.LstdFlags),
		ctx: ctx, cancel: cancel, ln: ln, spaces: map[string]*space{}, last: time.Now(), done: make(chan struct{}), closed: make(chan struct{})}
	go func() {
		<-d.done
		lock.Unlock()
	}()
	return d, nil
}

// Serve accepts clients until the daemon stops, then shuts every
// workspace's servers down and returns.
func (d *Daemon) Serve() error {
	bound := "off"
	if d.opts.Memory > 0 {
		bound = fmt.Sprintf("%d MiB", d.opts.Memory>>20)
	}
	d.log.Printf("listening on %s (pid %d, idle %s, children's memory bound %s)", d.opts.Socket, os.Getpid(), d.opts.Idle, bound)
	go d.reap()
	if d.opts.Memory > 0 {
		go d.watchMemory()
	}
	for {
		c, err := d.ln.Accept()
		if err != nil {
			if d.ctx.Err() != nil {
				break
			}
			d.log.Printf("accept: %v", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		d.conns.Add(1)
		go d.serveConn(c)
	}
	// Requests were cancelled by Stop; the servers go down before the
	// clients are let go, so that a client that asked for the stop sees
	// the connection close only when nothing of the daemon's is left.
	d.mu.Lock()
	d.draining = true
	d.mu.Unlock()
	d.requests.Wait()
	d.closeAll()
	close(d.closed)
	d.conns.Wait()
	d.log.Printf("stopped")
	return nil
}

// Stop ends the daemon: no new client, every request cancelled (their
// overlays put back), every server shut down. Safe to call more than once.
func (d *Daemon) Stop() {
	d.once.Do(func() {
		d.cancel()
		d.ln.Close()
		close(d.done)
	})
}

// Done returns a channel closed when the daemon stops.
func (d *Daemon) Done() <-chan struct{} { return d.done }

func (d *Daemon) serveConn(c net.Conn) {
	defer d.conns.Done()
	if why := trustedPeer(c); why != "" {
		d.log.Printf("refused a connection: %s", why)
		c.Close()
		return
	}
	d.mu.Lock()
	d.clients++
	d.served = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.clients--
		d.last = time.Now()
		d.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	h := &handler{d: d, ctx: ctx, inflight: map[string]context.CancelFunc{}}
	stream := jsonrpc2.NewBufferedStream(c, jsonrpc2.VSCodeObjectCodec{})
	conn := jsonrpc2.NewConn(ctx, stream, jsonrpc2.AsyncHandler(h), jsonrpc2.SetLogger(d.log))
	select {
	case <-conn.DisconnectNotify():
	case <-d.closed:
		conn.Close()
	}
	// A client that left: its requests are cancelled (cancel above), so a
	// check it started puts the server back to the disk before the next
	// one runs; h.wg makes the daemon's shutdown wait for them.
	cancel()
	h.wg.Wait()
}

// handler answers one connection's requests, each in its own goroutine,
// with a context that ends when the connection does or when the client
// cancels the request.
type handler struct {
	d   *Daemon
	ctx context.Context
	wg  sync.WaitGroup

	mu       sync.Mutex
	inflight map[string]context.CancelFunc // by token
}

func (h *handler) Handle(_ context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		if req.Method == methodCancel && req.Params != nil {
			var p cancelParams
			if json.Unmarshal(*req.Params, &p) == nil {
				h.cancel(p.Token)
			}
		}
		return
	}
	h.wg.Add(1)
	defer h.wg.Done()
	if !h.d.enter() {
		_ = conn.ReplyWithError(context.Background(), req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "the Anvil daemon is stopping"})
		return
	}
	defer h.d.requests.Done()
	var r request
	if req.Params != nil {
		_ = json.Unmarshal(*req.Params, &r)
	}
	ctx, done := h.begin(r.Token)
	defer done()
	var say func(service.Progress)
	if r.Token != "" {
		say = forwarder(ctx, conn, r.Token)
	}
	result, err := h.d.dispatch(ctx, req, say)
	if err != nil {
		_ = conn.ReplyWithError(context.Background(), req.ID, rpcError(err))
		return
	}
	_ = conn.Reply(context.Background(), req.ID, result)
	if req.Method == methodStop {
		go h.d.Stop()
	}
}

// begin returns the context of the request with token, which the client
// can cancel by it.
func (h *handler) begin(token string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(h.ctx)
	if token == "" {
		return ctx, cancel
	}
	h.mu.Lock()
	h.inflight[token] = cancel
	h.mu.Unlock()
	return ctx, func() {
		h.mu.Lock()
		delete(h.inflight, token)
		h.mu.Unlock()
		cancel()
	}
}

func (h *handler) cancel(token string) {
	h.mu.Lock()
	cancel := h.inflight[token]
	h.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// forwarder sends a request's progress to its client without ever making
// the check wait on the client: messages a slow client has not taken are
// dropped (each one supersedes the last anyway).
func forwarder(ctx context.Context, conn *jsonrpc2.Conn, token string) func(service.Progress) {
	queue := make(chan service.Progress, 8)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-queue:
				_ = conn.Notify(ctx, methodProgress, progressParams{Token: token, Progress: m})
			}
		}
	}()
	return func(m service.Progress) {
		select {
		case queue <- m:
		default:
		}
	}
}

// enter counts a request in, unless the daemon is draining.
func (d *Daemon) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining {
		return false
	}
	d.requests.Add(1)
	return true
}

func rpcError(err error) *jsonrpc2.Error {
	var re *jsonrpc2.Error
	switch {
	case errors.As(err, &re):
		return re
	case service.IsInput(err):
		return &jsonrpc2.Error{Code: codeInput, Message: err.Error()}
	case errors.Is(err, errBusy):
		return &jsonrpc2.Error{Code: codeBusy, Message: err.Error()}
	}
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
}

var errBusy = errors.New("the workspace has too many requests waiting; try again")

func (d *Daemon) dispatch(ctx context.Context, req *jsonrpc2.Request, say func(service.Progress)) (any, error) {
	params := json.RawMessage("{}")
	if req.Params != nil {
		params = *req.Params
	}
	decode := func(v any) error {
		if err := json.Unmarshal(params, v); err != nil {
			return &service.InputError{Msg: fmt.Sprintf("%s: bad params: %v", req.Method, err)}
		}
		return nil
	}
	switch req.Method {
	case methodHello:
		return helloResult{Version: d.version, PID: os.Getpid()}, nil
	case methodStatus:
		return d.status(), nil
	case methodStop:
		// Handle stops the daemon once this answer is sent.
		return map[string]bool{"stopping": true}, nil
	case methodCheck, methodCommit:
		var p changesParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		p.GateOptions.Progress = say
		return withSpace(d, p.request, func(s service.Service) (any, error) {
			if req.Method == methodCheck {
				return s.Check(ctx, p.Changes, p.GateOptions)
			}
			return s.Commit(ctx, p.Changes, p.Message, p.GateOptions)
		})
	case methodUndo:
		var p undoParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		p.UndoOptions.Progress = say
		return withSpace(d, p.request, func(s service.Service) (any, error) { return s.Undo(ctx, p.UndoOptions) })
	case methodTool:
		var p toolParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return withSpace(d, p.request, func(s service.Service) (any, error) { return s.Tool(ctx, p.Name, p.Args, p.Staged) })
	case methodWarm:
		var p warmParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return withSpace(d, p.request, func(s service.Service) (any, error) { return struct{}{}, s.Warm(ctx, p.Paths) })
	case methodTools:
		var p request
		if err := decode(&p); err != nil {
			return nil, err
		}
		return withSpace(d, p, func(s service.Service) (any, error) { return s.Tools(ctx) })
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "unknown method " + req.Method}
}

// withSpace runs fn with the workspace the request names, opening it on
// first use, counting the request against the workspace's queue bound.
func withSpace(d *Daemon, r request, fn func(service.Service) (any, error)) (any, error) {
	s, err := d.acquire(r.Workspace, r.Identity)
	if err != nil {
		return nil, err
	}
	defer d.release(s)
	return fn(s.svc)
}

func (d *Daemon) acquire(dir, identity string) (*space, error) {
	if !filepath.IsAbs(dir) {
		// Resolved here, a missing or relative path would be the daemon's
		// own directory (/), never what the client meant.
		return nil, &service.InputError{Msg: fmt.Sprintf("the request names no workspace (an absolute directory; it gave %q); nothing was done: name the project's directory", dir)}
	}
	root, err := workspace.New(dir)
	if err != nil {
		return nil, &service.InputError{Msg: err.Error()}
	}
	if identity != "" && identity != root.ID().String() {
		return nil, &service.InputError{Msg: fmt.Sprintf("the workspace %s was replaced while the request was on its way (%s, now %s); nothing was done: ask again", root.Dir(), identity, root.ID())}
	}
	key := root.Dir()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx.Err() != nil {
		return nil, errors.New("the daemon is stopping")
	}
	s := d.spaces[key]
	if s != nil && s.app.Root.ID() != root.ID() {
		// Another directory at the same path: nothing of the old one's
		// (servers, snapshots, baselines) may answer for it. Requests still
		// running on the old one fail on their own identity checks.
		d.log.Printf("%s: the directory was replaced (%s, now %s); closing what was open for the old one", key, s.app.Root.ID(), root.ID())
		delete(d.spaces, key)
		go s.app.Close()
		s = nil
	}
	if s != nil && s.active == 0 && s.configChanged() {
		// The project's settings changed: serve it as configured now.
		d.log.Printf("%s: configuration changed; reopening", key)
		delete(d.spaces, key)
		go s.app.Close()
		s = nil
	}
	if s == nil {
		a, err := app.New(app.Options{Dir: key, Getenv: d.opts.Getenv})
		if err != nil {
			return nil, &service.InputError{Msg: err.Error()}
		}
		s = &space{dir: key, app: a, svc: a.Service(), configs: configState(key, d.opts.Getenv)}
		d.spaces[key] = s
		d.log.Printf("%s: opened", key)
	}
	if s.active >= d.opts.Queue {
		return nil, errBusy
	}
	s.active++
	s.requests++
	return s, nil
}

func (d *Daemon) release(s *space) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s.active--
	s.last = time.Now()
	d.last = s.last
}

// configState records the config files a workspace was opened with.
func configState(root string, getenv func(string) string) map[string]string {
	p := config.DefaultPaths(root, getenv)
	out := map[string]string{}
	for _, f := range []string{p.User, p.Project} {
		if f == "" {
			continue
		}
		if st, err := os.Stat(f); err == nil {
			out[f] = fmt.Sprintf("%d/%d", st.Size(), st.ModTime().UnixNano())
		} else {
			out[f] = "absent"
		}
	}
	return out
}

func (s *space) configChanged() bool {
	for f, was := range s.configs {
		now := "absent"
		if st, err := os.Stat(f); err == nil {
			now = fmt.Sprintf("%d/%d", st.Size(), st.ModTime().UnixNano())
		}
		if now != was {
			return true
		}
	}
	return false
}

// reap stops the servers of workspaces idle for longer than the idle
// limit, and the daemon once it has held none for as long.
func (d *Daemon) reap() {
	tick := min(d.opts.Idle/4, 30*time.Second)
	if d.opts.Unused > 0 {
		tick = min(tick, d.opts.Unused/2)
	}
	t := time.NewTicker(max(tick, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		d.mu.Lock()
		now := time.Now()
		d.dropGone()
		for key, s := range d.spaces {
			if s.active == 0 && now.Sub(s.last) > d.opts.Idle {
				d.log.Printf("%s: idle for %s; stopping its servers", key, now.Sub(s.last).Round(time.Second))
				delete(d.spaces, key)
				go s.app.Close()
			}
		}
		empty := len(d.spaces) == 0 && d.clients == 0 && now.Sub(d.last) > d.opts.Idle
		unused := !d.served && d.opts.Unused > 0 && now.Sub(d.started) > d.opts.Unused
		d.mu.Unlock()
		if empty || unused {
			if unused {
				d.log.Printf("no client came within %s; exiting", d.opts.Unused)
			} else {
				d.log.Printf("idle with no workspace; exiting")
			}
			d.Stop()
			return
		}
	}
}

// dropGone stops the servers of workspaces whose directory is gone or
// replaced, and forgets them; d.mu is held. The reaper calls it on its
// tick, and status before it lists anything: a directory removed a moment
// ago (the demo's example project) is not shown with servers still warm
// for it.
func (d *Daemon) dropGone() {
	for key, s := range d.spaces {
		if s.active == 0 && s.app.Root.Replaced() != nil {
			d.log.Printf("%s: the directory is gone or replaced; stopping its servers", key)
			delete(d.spaces, key)
			go s.app.Close()
		}
	}
}

// closeAll shuts every workspace's servers down, in parallel, each within
// its own bound (app.Close: 5 s).
func (d *Daemon) closeAll() {
	d.mu.Lock()
	spaces := d.spaces
	d.spaces = map[string]*space{}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range spaces {
		wg.Go(func() { s.app.Close() })
	}
	wg.Wait()
}

func (d *Daemon) status() Status {
	children := d.childrenKiB() // /proc, read before the lock
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropGone()
	st := Status{PID: os.Getpid(), Version: d.version, Started: d.started, Idle: d.opts.Idle,
		MemoryBoundKiB: max(d.opts.Memory>>10, 0), ChildrenKiB: children}
	now := time.Now()
	for _, s := range d.spaces {
		ws := WorkspaceStatus{Dir: s.dir, Active: s.active, Requests: s.requests}
		if !s.last.IsZero() {
			ws.IdleFor = now.Sub(s.last)
		}
		for _, srv := range s.app.Servers.Running() {
			info := srv.Info()
			ss := ServerStatus{Name: srv.Spec().Name, Version: info.Version, PID: srv.PID(), Restarts: srv.Restarts()}
			if ss.PID != 0 {
				ss.RSSKiB = proc.TreeRSS(ss.PID)
			}
			ws.Servers = append(ws.Servers, ss)
		}
		ws.Background = s.app.Validator.Background()
		st.Workspaces = append(st.Workspaces, ws)
	}
	sort.Slice(st.Workspaces, func(i, j int) bool { return st.Workspaces[i].Dir < st.Workspaces[j].Dir })
	return st
}
