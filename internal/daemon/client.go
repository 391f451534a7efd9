package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Client is a connection to a running daemon.
type Client struct {
	conn    *jsonrpc2.Conn
	Version string // the daemon's
	PID     int    // the daemon's

	mu       sync.Mutex
	progress map[string]func(service.Progress) // by request token
}

// Dial connects to the daemon listening at socket and greets it. It
// fails if none is listening; it does not start one (see [Connect]).
//
// Nothing is sent before the socket is known to be this user's daemon's:
// its directory private to the user, the socket the user's, and the
// process listening on it running as the user. Anyone else's socket (a
// squatter's, in a temporary directory another user made first) gets an
// [*UntrustedError], not a byte of a change set.
func Dial(ctx context.Context, socket string) (*Client, error) {
	if err := checkSocket(socket); err != nil {
		return nil, err
	}
	var dialer net.Dialer
	nc, err := dialer.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, err
	}
	if why := trustedServer(nc); why != "" {
		nc.Close()
		return nil, &UntrustedError{Socket: socket, Why: "the process listening on it " + why}
	}
	c := &Client{progress: map[string]func(service.Progress){}}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(c.handle))
	var hello helloResult
	if err := c.call(ctx, methodHello, helloParams{Version: Version()}, &hello); err != nil {
		c.Close()
		return nil, fmt.Errorf("daemon at %s: %w", socket, err)
	}
	c.Version, c.PID = hello.Version, hello.PID
	return c, nil
}

// UntrustedError says a daemon socket is not this user's own.
type UntrustedError struct {
	Socket string
	Why    string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("refusing the daemon socket %s: %s; nothing was sent to it (fix: remove it if it is yours, or set ANVIL_DAEMON_DIR to a directory only you can enter)", e.Socket, e.Why)
}

// IsUntrusted reports whether err is an [*UntrustedError].
func IsUntrusted(err error) bool {
	var u *UntrustedError
	return errors.As(err, &u)
}

// checkSocket checks the socket's directory (a real directory, the
// user's, no one else may enter or write it) and the socket itself (the
// user's), before anything is sent through it. A socket that does not
// exist is not an error here: the dial fails.
func checkSocket(socket string) error {
	dir := filepath.Dir(socket)
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case info.Mode()&os.ModeSymlink != 0:
		return &UntrustedError{Socket: socket, Why: dir + " is a symlink"}
	case !info.IsDir():
		return &UntrustedError{Socket: socket, Why: dir + " is not a directory"}
	case info.Mode().Perm()&0o077 != 0:
		return &UntrustedError{Socket: socket, Why: fmt.Sprintf("%s can be entered by others (mode %v)", dir, info.Mode().Perm())}
	}
	if uid, ok := ownerOf(info); ok && uid != os.Geteuid() {
		return &UntrustedError{Socket: socket, Why: fmt.Sprintf("%s belongs to another user (uid %d)", dir, uid)}
	}
	if si, err := os.Lstat(socket); err == nil {
		if uid, ok := ownerOf(si); ok && uid != os.Geteuid() {
			return &UntrustedError{Socket: socket, Why: fmt.Sprintf("the socket belongs to another user (uid %d)", uid)}
		}
	}
	return nil
}

// Close ends the connection; the daemon cancels what this client had
// asked and not yet been answered.
func (c *Client) Close() error { return c.conn.Close() }

// Done is closed when the connection ends (the daemon stopped or died).
func (c *Client) Done() <-chan struct{} { return c.conn.DisconnectNotify() }

func (c *Client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	if req.Method != methodProgress || req.Params == nil {
		return nil, nil
	}
	var p progressParams
	if json.Unmarshal(*req.Params, &p) != nil {
		return nil, nil
	}
	c.mu.Lock()
	fn := c.progress[p.Token]
	c.mu.Unlock()
	if fn != nil {
		fn(p.Progress)
	}
	return nil, nil
}

// call sends one request and waits for its answer or ctx; on ctx the
// daemon is told to cancel the request.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	err := c.callOnce(ctx, method, params, result)
	var gone *errGone
	if errors.As(err, &gone) {
		return gone.err
	}
	return err
}

// callOnce is call, telling a connection that ended ([*errGone]) apart.
func (c *Client) callOnce(ctx context.Context, method string, params, result any) error {
	select {
	case <-c.Done():
		return &errGone{err: fmt.Errorf("the Anvil daemon went away: %w", jsonrpc2.ErrClosed)}
	default:
	}
	err := c.conn.Call(ctx, method, params, result)
	var re *jsonrpc2.Error
	switch {
	case errors.As(err, &re) && re.Code == codeInput:
		return &service.InputError{Msg: re.Message}
	case errors.As(err, &re):
		return errors.New(re.Message)
	case errors.Is(err, jsonrpc2.ErrClosed):
		return &errGone{err: fmt.Errorf("the Anvil daemon went away: %w", err), sent: true}
	case ctx.Err() == nil && connectionLost(err):
		// A daemon killed between two calls leaves the connection open
		// on this side until a write finds it gone. Part of the request
		// may have left before the write failed: counted as sent.
		return &errGone{err: fmt.Errorf("the Anvil daemon went away: %w", err), sent: true}
	}
	return err
}

// track registers the request's progress sink (nil: notices dropped)
// under a new token, and arranges for the daemon to be told if ctx ends
// first.
func (c *Client) track(ctx context.Context, progress func(service.Progress)) (token string, done func()) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	token = hex.EncodeToString(b[:])
	fn := progress
	if fn == nil {
		fn = func(service.Progress) {}
	}
	c.mu.Lock()
	c.progress[token] = fn
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		_ = c.conn.Notify(context.Background(), methodCancel, cancelParams{Token: token})
	})
	return token, func() {
		stop()
		c.mu.Lock()
		delete(c.progress, token)
		c.mu.Unlock()
	}
}

// Status asks the daemon what it holds.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	var st Status
	if err := c.call(ctx, methodStatus, struct{}{}, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Stop asks the daemon to stop and waits until it has closed the
// connection (its servers are shut down by then).
func (c *Client) Stop(ctx context.Context) error {
	err := c.call(ctx, methodStop, struct{}{}, nil)
	if err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		return err
	}
	select {
	case <-c.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Workspace returns the daemon's service for the workspace at dir, over
// this connection alone: when the daemon goes away, its calls fail (see
// [Link] for one that reconnects).
func (c *Client) Workspace(dir string) (*Remote, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Remote{link: &Link{c: c}, dir: abs}, nil
}

// Remote is a workspace served by the daemon.
type Remote struct {
	link *Link
	dir  string
}

var _ service.Service = (*Remote)(nil)

// req describes the workspace for a request: its path and the identity of
// the directory there now.
func (r *Remote) req() (request, error) {
	id, err := workspace.IDOf(r.dir)
	if err != nil {
		return request{}, &service.InputError{Msg: fmt.Sprintf("workspace %s: %v", r.dir, err)}
	}
	return request{Workspace: r.dir, Identity: id.String()}, nil
}

// Check implements [Service].
func (r *Remote) Check(ctx context.Context, specs []changeset.Spec, opts service.GateOptions) (*service.Outcome, error) {
	return r.changes(ctx, methodCheck, specs, "", opts)
}

// Commit implements [Service].
func (r *Remote) Commit(ctx context.Context, specs []changeset.Spec, message string, opts service.GateOptions) (*service.Outcome, error) {
	return r.changes(ctx, methodCommit, specs, message, opts)
}

func (r *Remote) changes(ctx context.Context, method string, specs []changeset.Spec, message string, opts service.GateOptions) (*service.Outcome, error) {
	req, err := r.req()
	if err != nil {
		return nil, err
	}
	var out service.Outcome
	// A check writes nothing: asking again after the daemon went away in
	// the middle is safe. A commit is not retried once sent (the journal
	// settles an interrupted one on the next request).
	params := changesParams{request: req, Changes: specs, Message: message, GateOptions: opts}
	if err := r.link.call(ctx, method, &params, &params.Token, &out, opts.Progress, method == methodCheck); err != nil {
		return nil, err
	}
	if out.Result != nil {
		out.Result.RestoreElapsed()
	}
	return &out, nil
}

// Undo implements [Service].
func (r *Remote) Undo(ctx context.Context, opts service.UndoOptions) (*service.UndoOutcome, error) {
	req, err := r.req()
	if err != nil {
		return nil, err
	}
	p := undoParams{request: req, UndoOptions: opts}
	var out service.UndoOutcome
	if err := r.link.call(ctx, methodUndo, &p, &p.Token, &out, opts.Progress, false); err != nil {
		return nil, err
	}
	return &out, nil
}

// Tool implements [Service]. Tools write nothing, so a call interrupted by
// the daemon going away is asked again.
func (r *Remote) Tool(ctx context.Context, name string, args json.RawMessage, staged []changeset.Spec) (*service.ToolOutcome, error) {
	req, err := r.req()
	if err != nil {
		return nil, err
	}
	var out service.ToolOutcome
	params := toolParams{request: req, Name: name, Args: args, Staged: staged}
	if err := r.link.call(ctx, methodTool, &params, &params.Token, &out, nil, true); err != nil {
		return nil, err
	}
	return &out, nil
}

// Warm implements [Service]. It writes nothing: asked again after the
// daemon went away.
func (r *Remote) Warm(ctx context.Context, paths []string) error {
	req, err := r.req()
	if err != nil {
		return err
	}
	p := warmParams{request: req, Paths: paths}
	return r.link.call(ctx, methodWarm, &p, &p.Token, nil, nil, true)
}

// Tools implements [Service].
func (r *Remote) Tools(ctx context.Context) ([]service.ToolInfo, error) {
	req, err := r.req()
	if err != nil {
		return nil, err
	}
	var out []service.ToolInfo
	if err := r.link.call(ctx, methodTools, &req, &req.Token, &out, nil, true); err != nil {
		return nil, err
	}
	return out, nil
}

// connectionLost reports whether err is the socket's peer having gone
// (a write to a closed connection, or one it reset).
func connectionLost(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}
