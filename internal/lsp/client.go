// Package lsp is a Language Server Protocol client: it runs a server as a
// subprocess, speaks JSON-RPC 2.0 over its stdio with Content-Length framing,
// keeps the documents it has opened in sync, records pushed diagnostics and
// progress, and pulls diagnostics where the server supports it.
//
// A Client owns its subprocess (an [proc.Process]: killed with Anvil, and
// with everything it started). The process lives on no context; Shutdown
// (or Kill) ends it. Every request and every notification takes a context:
// a request gets a deadline from it, or a default, and a write the server
// does not read before the context ends is abandoned, and the server with
// it, since a half-sent message leaves the connection unusable.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/anvil-dev/anvil/internal/proc"
)

// ErrExited is returned by requests made to a server whose process has ended.
var ErrExited = errors.New("language server exited")

// Config says how to run one server.
type Config struct {
	// Name identifies the server in messages ("gopls").
	Name    string
	Command string
	Args    []string
	// Dir is the workspace root: the process's working directory and
	// rootUri.
	Dir string
	// Folders are the workspace folders announced to the server; empty
	// means Dir alone. Servers that load one project per folder (gopls and
	// nested Go modules) need each project root among them.
	Folders []string
	// Env is the server's whole environment (see proc.Spec.Env).
	Env []string
	// Contain keeps the server from what it must not see (see
	// proc.Spec.Contain).
	Contain *proc.Containment
	// InitOptions is sent as initializationOptions.
	InitOptions map[string]any
	// Settings answers workspace/configuration, looked up by dotted section
	// ("python.analysis"); it is also pushed with didChangeConfiguration.
	Settings map[string]any
	// RequestTimeout bounds requests whose context has no deadline.
	// Zero means 30 seconds.
	RequestTimeout time.Duration
	// Log, if set, receives the server's stderr.
	Log io.Writer
}

// Client is a running language server.
type Client struct {
	cfg    Config
	proc   *proc.Process
	conn   *jsonrpc2.Conn
	nextID atomic.Uint64
	// mods counts the notifications sent that change the server's view of
	// the workspace (see [Client.Modifications]).
	mods   atomic.Int64
	stderr *proc.Tail

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	info    ServerInfo
	caps    ServerCapabilities
	state   state
	docs    map[DocumentURI]*document
}

type document struct {
	languageID string
	version    int
	text       string
}

// Start runs the server described by cfg and performs the initialize
// handshake within ctx. On any failure the process is killed.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	c := &Client{
		cfg:     cfg,
		stderr:  proc.NewTail(16 << 10),
		changed: make(chan struct{}),
		state:   newState(),
		docs:    map[DocumentURI]*document{},
	}
	var errOut io.Writer = c.stderr
	if cfg.Log != nil {
		errOut = io.MultiWriter(c.stderr, cfg.Log)
	}
	p, err := proc.Start(proc.Spec{Path: cfg.Command, Args: cfg.Args, Dir: cfg.Dir, Env: cfg.Env, Stderr: errOut, Contain: cfg.Contain})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	c.proc = p
	go func() {
		<-p.Exited()
		c.broadcast()
	}()
	stream := jsonrpc2.NewBufferedStream(pipeRWC{p.Stdout(), p.Stdin()}, jsonrpc2.VSCodeObjectCodec{})
	// The library logs protocol noise (a closed pipe when the server dies)
	// through its logger; send it where the server's stderr goes.
	logOut := cfg.Log
	if logOut == nil {
		logOut = io.Discard
	}
	c.conn = jsonrpc2.NewConn(context.Background(), stream, handler{c}, jsonrpc2.SetLogger(log.New(logOut, "jsonrpc2: ", 0)))

	// The handshake comes before any loading: a server that does not
	// answer it within a request's bound is hung, not busy.
	ictx, cancel := context.WithTimeout(ctx, cfg.RequestTimeout)
	defer cancel()
	if err := c.initialize(ictx); err != nil {
		c.Kill()
		return nil, fmt.Errorf("%s: initialize: %w", cfg.Name, err)
	}
	return c, nil
}

// Name returns the configured server name.
func (c *Client) Name() string { return c.cfg.Name }

// Info returns the server's self-reported name and version.
func (c *Client) Info() ServerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// PID returns the server's process id.
func (c *Client) PID() int { return c.proc.PID() }

// Isolation says how the server's process is tied to Anvil.
func (c *Client) Isolation() proc.Isolation { return c.proc.Isolation() }

// Exited returns a channel closed when the server process has ended.
func (c *Client) Exited() <-chan struct{} { return c.proc.Exited() }

// Alive reports whether the server process is still running.
func (c *Client) Alive() bool { return c.proc.Alive() }

// ExitError describes how the process ended, with the tail of its stderr.
func (c *Client) ExitError() error {
	if err := c.proc.ExitError(c.cfg.Name, c.stderr); err != nil {
		return fmt.Errorf("%w: %w", ErrExited, err)
	}
	return nil
}

// Shutdown asks the server to exit (shutdown, then exit) and kills it if it
// has not within a bound: 2 s for the shutdown answer and 2 s more for the
// exit, less if ctx ends first. It returns once the process is reaped.
// Safe to call more than once.
func (c *Client) Shutdown(ctx context.Context) error {
	defer c.conn.Close()
	if !c.Alive() {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	err := c.call(sctx, "shutdown", nil, nil)
	if err == nil {
		_ = c.notify(sctx, "exit", nil)
	}
	cancel()
	c.proc.Stop(ctx, 2*time.Second)
	return nil
}

// Kill ends the server's process, and everything it started, at once and
// returns once it is reaped.
func (c *Client) Kill() {
	c.proc.Kill()
	c.conn.Close()
}

// send runs fn, which writes one message to the server, bounded by ctx
// (see [proc.Process.WriteBounded]).
func (c *Client) send(ctx context.Context, fn func() error) error {
	return c.proc.WriteBounded(ctx, fn)
}

// call sends a request and waits for its answer. A cancelled request is
// also cancelled at the server with $/cancelRequest.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	if !c.Alive() {
		return c.ExitError()
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.RequestTimeout)
		defer cancel()
	}
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	var w jsonrpc2.Waiter
	err := c.send(ctx, func() (err error) {
		w, err = c.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
		return err
	})
	if err != nil {
		return c.connError(method, err)
	}
	err = w.Wait(ctx, result)
	if ctx.Err() != nil {
		// Bounded like any write: a server that stopped reading gets
		// killed rather than holding this caller.
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = c.send(cctx, func() error {
			return c.conn.Notify(cctx, "$/cancelRequest", map[string]any{"id": id.Num})
		})
		cancel()
		return fmt.Errorf("%s %s: %w", c.cfg.Name, method, ctx.Err())
	}
	if err != nil {
		return c.connError(method, err)
	}
	return nil
}

func (c *Client) notify(ctx context.Context, method string, params any) error {
	if !c.Alive() {
		return c.ExitError()
	}
	if err := c.send(ctx, func() error { return c.conn.Notify(ctx, method, params) }); err != nil {
		return c.connError(method, err)
	}
	switch method {
	case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose",
		"workspace/didChangeWatchedFiles", "workspace/didChangeConfiguration":
		c.mods.Add(1)
	}
	return nil
}

// Modifications returns how many notifications that change the server's
// view (didOpen, didChange, didClose, didChangeWatchedFiles,
// didChangeConfiguration) have been sent to it.
func (c *Client) Modifications() int { return int(c.mods.Load()) }

func (c *Client) connError(method string, err error) error {
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return fmt.Errorf("%s %s: %w", c.cfg.Name, method, rpcErr)
	}
	// A closed connection means the process is gone or going; wait briefly
	// for its exit status so the error says why.
	select {
	case <-c.proc.Exited():
		return c.ExitError()
	case <-time.After(500 * time.Millisecond):
		return fmt.Errorf("%s %s: %w", c.cfg.Name, method, err)
	}
}

// broadcast wakes every waiter; callers re-check their conditions.
func (c *Client) broadcast() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// waitFor blocks until cond (called with c.mu held) is true, the context
// ends, or the server exits.
func (c *Client) waitFor(ctx context.Context, cond func() bool) error {
	for {
		c.mu.Lock()
		ok := cond()
		ch := c.changed
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.proc.Exited():
			return c.ExitError()
		}
	}
}

// pipeRWC joins the server's stdout and stdin into one stream.
type pipeRWC struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	werr := p.w.Close()
	rerr := p.r.Close()
	return errors.Join(werr, rerr)
}

// OutputBytes returns how much the server has written so far: a server
// whose count grows is working, whatever it says.
func (c *Client) OutputBytes() uint64 { return c.proc.OutputBytes() }

// Contained reports whether the server runs with its containment's
// places covered (see [proc.Process.Contained]).
func (c *Client) Contained() bool { return c.proc.Contained() }
