// Package lsp is a Language Server Protocol client: it runs a server as a
// subprocess, speaks JSON-RPC 2.0 over its stdio with Content-Length framing,
// keeps the documents it has opened in sync, records pushed diagnostics and
// progress, and pulls diagnostics where the server supports it.
//
// A Client owns its subprocess. The process lives on a background context of
// its own, not on the context that started it; Shutdown (or Kill) ends it.
// Every request takes a context and gets a deadline from it, or a default.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// ErrExited is returned by requests made to a server whose process has ended.
var ErrExited = errors.New("language server exited")

// Config says how to run one server.
type Config struct {
	// Name identifies the server in messages ("gopls").
	Name    string
	Command string
	Args    []string
	// Dir is the workspace root: the process's working directory, rootUri and
	// the single workspace folder.
	Dir string
	// Env is added to the environment the server inherits.
	Env []string
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
	cmd    *exec.Cmd
	conn   *jsonrpc2.Conn
	nextID atomic.Uint64
	// mods counts the notifications sent that change the server's view of
	// the workspace (see [Client.Modifications]).
	mods    atomic.Int64
	stderr  *tailBuffer
	exited  chan struct{} // closed when the process has ended
	exitErr error         // set before exited is closed

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
		stderr:  newTailBuffer(16 << 10),
		exited:  make(chan struct{}),
		changed: make(chan struct{}),
		state:   newState(),
		docs:    map[DocumentURI]*document{},
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = append(os.Environ(), cfg.Env...)
	// A process group of its own, so that killing the server also kills the
	// helpers it spawns (tsc's native binary, tsserver, gopls telemetry).
	// If Anvil dies without shutting servers down, they see their stdin
	// close and exit (TestNoServerOutlivesAnvil kills anvil to check).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var errOut io.Writer = c.stderr
	if cfg.Log != nil {
		errOut = io.MultiWriter(c.stderr, cfg.Log)
	}
	cmd.Stderr = errOut
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	c.cmd = cmd
	go func() {
		err := cmd.Wait()
		c.exitErr = err
		close(c.exited)
		c.broadcast()
	}()
	stream := jsonrpc2.NewBufferedStream(pipeRWC{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{})
	// The library logs protocol noise (a closed pipe when the server dies)
	// through its logger; send it where the server's stderr goes.
	logOut := cfg.Log
	if logOut == nil {
		logOut = io.Discard
	}
	c.conn = jsonrpc2.NewConn(context.Background(), stream, handler{c}, jsonrpc2.SetLogger(log.New(logOut, "jsonrpc2: ", 0)))

	if err := c.initialize(ctx); err != nil {
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
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Exited returns a channel closed when the server process has ended.
func (c *Client) Exited() <-chan struct{} { return c.exited }

// Alive reports whether the server process is still running.
func (c *Client) Alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// ExitError describes how the process ended, with the tail of its stderr.
func (c *Client) ExitError() error {
	select {
	case <-c.exited:
	default:
		return nil
	}
	msg := fmt.Sprintf("%s exited", c.cfg.Name)
	if c.exitErr != nil {
		msg += ": " + c.exitErr.Error()
	}
	if tail := c.stderr.String(); tail != "" {
		msg += "; stderr: " + tail
	}
	return fmt.Errorf("%w: %s", ErrExited, msg)
}

// Shutdown asks the server to exit (shutdown, then exit) and waits a bounded
// time before killing its process group. Safe to call more than once.
func (c *Client) Shutdown(ctx context.Context) error {
	if !c.Alive() {
		c.conn.Close()
		return nil
	}
	// Each stage gets a short bound of its own: a hung server must not hold
	// Anvil's exit for long.
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	err := c.call(sctx, "shutdown", nil, nil)
	cancel()
	if err == nil {
		_ = c.conn.Notify(ctx, "exit", nil)
	}
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
		c.Kill()
	case <-ctx.Done():
		c.Kill()
	}
	c.conn.Close()
	return nil
}

// Kill ends the server's process group at once and waits for it to exit.
func (c *Client) Kill() {
	if c.cmd.Process != nil {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		_ = c.cmd.Process.Kill()
	}
	<-c.exited
	c.conn.Close()
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
	w, err := c.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return c.connError(method, err)
	}
	err = w.Wait(ctx, result)
	if ctx.Err() != nil {
		_ = c.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id.Num})
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
	if err := c.conn.Notify(ctx, method, params); err != nil {
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
	case <-c.exited:
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
		case <-c.exited:
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

// tailBuffer keeps the last n bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func newTailBuffer(n int) *tailBuffer { return &tailBuffer{n: n} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}
