package daemon

import (
	"context"
	"errors"
	"fmt"
	"github.com/anvil-dev/anvil/internal/service"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// Link is a client's way to the daemon that outlives a daemon: when the
// daemon went away (its idle exit, a replacement by another build, a
// kill), the next call connects again, starting one if need be, so a
// long-lived client (an MCP session) lives as long as its own client.
// A call the daemon never got is always sent again; one it may have
// acted on is sent again only when it is safe to repeat.
type Link struct {
	// opts reach and start the daemon; nil for a link that never
	// reconnects (one connection, made by the caller).
	opts *ConnectOptions

	mu sync.Mutex
	c  *Client
}

// NewLink connects to the daemon (starting it if need be) and returns a
// link that reconnects the same way.
func NewLink(ctx context.Context, o ConnectOptions) (*Link, error) {
	c, err := Connect(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Link{opts: &o, c: c}, nil
}

// Workspace returns the daemon's service for the workspace at dir, over
// the link.
func (l *Link) Workspace(dir string) (*Remote, error) {
	r, err := (&Client{}).Workspace(dir)
	if err != nil {
		return nil, err
	}
	r.link = l
	return r, nil
}

// Close ends the link's connection.
func (l *Link) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

// client returns a live connection, connecting again when the last one
// ended.
func (l *Link) client(ctx context.Context) (*Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		select {
		case <-l.c.Done():
		default:
			return l.c, nil
		}
	}
	if l.opts == nil {
		return nil, fmt.Errorf("the Anvil daemon went away: %w", jsonrpc2.ErrClosed)
	}
	c, err := Connect(ctx, *l.opts)
	if err != nil {
		return nil, fmt.Errorf("the Anvil daemon went away and could not be started again: %w", err)
	}
	l.c = c
	return c, nil
}

// forget closes c and drops it as the link's connection, if it still is.
func (l *Link) forget(c *Client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == c {
		_ = c.Close()
		l.c = nil
	}
}

// errGone marks a call whose connection ended; sent says whether the
// request may have reached the daemon.
type errGone struct {
	err  error
	sent bool
}

func (e *errGone) Error() string { return e.err.Error() }
func (e *errGone) Unwrap() error { return e.err }

// call sends one request (params, whose token field token points at, is
// filled per attempt) and decodes its result; the daemon's progress
// notices for it go to progress (nil: dropped). idempotent says the
// request may be sent again after the daemon went away while it ran.
func (l *Link) call(ctx context.Context, method string, params any, token *string, result any, progress func(service.Progress), idempotent bool) error {
	for attempt := 1; ; attempt++ {
		c, err := l.client(ctx)
		if err != nil {
			return err
		}
		t, done := c.track(ctx, progress)
		*token = t
		err = c.callOnce(ctx, method, params, result)
		done()
		var gone *errGone
		if !errors.As(err, &gone) {
			return err
		}
		// The connection is dead even where its reader has not seen the
		// end yet (a write found the socket gone first): the next attempt
		// must connect again, not reuse it.
		l.forget(c)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case gone.sent && !idempotent:
			return &OutcomeUnknownError{Method: method, Err: gone.err}
		case attempt == maxAttempts:
			return gone.err
		}
	}
}

// OutcomeUnknownError is a change to the workspace (a commit, an undo)
// whose daemon went away while it handled it: the change may or may not
// have been made, and it is not asked again. The journal settles it on
// the next request to the workspace.
type OutcomeUnknownError struct {
	Method string // methodCommit or methodUndo
	Err    error  // how the daemon was lost
}

func (e *OutcomeUnknownError) Error() string {
	what, done := "the commit", "written"
	if e.Method == methodUndo {
		what, done = "the undo", "made"
	}
	return fmt.Sprintf("the Anvil daemon went away while it handled %s, so whether it was %s is not known (%v). "+
		"The next request to this workspace (any 'anvil check', or the next MCP call) settles it from the journal: "+
		"an interrupted change is rolled back, or completed past its mark, and the request says which. "+
		"The files then show where it stands; 'anvil undo' reverts the last commit that was written", what, done, e.Err)
}

func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// OutcomeUnknown marks the error for front ends that do not import this
// package (the MCP server): the change may or may not have been made.
func (*OutcomeUnknownError) OutcomeUnknown() bool { return true }

// IsOutcomeUnknown reports whether err is an [*OutcomeUnknownError].
func IsOutcomeUnknown(err error) bool {
	var u *OutcomeUnknownError
	return errors.As(err, &u)
}

// maxAttempts bounds the connections one call tries: a daemon that dies
// on every request is reported, not retried for ever.
const maxAttempts = 3
