package lsp

import (
	"context"
	"strings"
)

// state is what the server has told the client. It is guarded by Client.mu.
type state struct {
	// published holds the latest publishDiagnostics per file path.
	published map[string]Published
	// publishSeq counts publishDiagnostics notifications.
	publishSeq uint64
	// progress titles of work that has begun but not ended, by token.
	activeWork map[string]string
	// workBegun counts work-done progress begins, by title prefix word
	// ("diagnosing", "Loading", ...).
	workBegun map[string]int
	// registrations holds dynamic capability registrations by method.
	registrations map[string]Registration
}

func newState() state {
	return state{
		published:     map[string]Published{},
		activeWork:    map[string]string{},
		workBegun:     map[string]int{},
		registrations: map[string]Registration{},
	}
}

// Published is one publishDiagnostics notification as recorded.
type Published struct {
	URI         DocumentURI
	Version     *int // the document version it describes, if the server said
	Diagnostics []Diagnostic
	Seq         uint64 // position in the stream of publishes
}

func (c *Client) recordPublish(p PublishDiagnosticsParams) {
	c.mu.Lock()
	c.state.publishSeq++
	c.state.published[p.URI.Path()] = Published{URI: p.URI, Version: p.Version, Diagnostics: p.Diagnostics, Seq: c.state.publishSeq}
	c.mu.Unlock()
	c.broadcast()
}

func (c *Client) recordProgress(p ProgressParams) {
	token := string(p.Token)
	c.mu.Lock()
	switch p.Value.Kind {
	case "begin":
		c.state.activeWork[token] = p.Value.Title
		c.state.workBegun[firstWord(p.Value.Title)]++
	case "end":
		delete(c.state.activeWork, token)
	}
	c.mu.Unlock()
	c.broadcast()
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// PublishSeq returns the number of publishDiagnostics notifications so far,
// a mark to wait from.
func (c *Client) PublishSeq() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.publishSeq
}

// Published returns the latest diagnostics pushed for path, if any.
func (c *Client) Published(path string) (Published, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.state.published[path]
	return p, ok
}

// PublishedAll returns the latest pushed diagnostics of every file that has
// any record, by path.
func (c *Client) PublishedAll() map[string]Published {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]Published, len(c.state.published))
	for k, v := range c.state.published {
		out[k] = v
	}
	return out
}

// WaitPublished blocks until the server has published diagnostics for path
// that satisfy ok (given the publish; e.g. a version match or a Seq past a
// mark).
func (c *Client) WaitPublished(ctx context.Context, path string, ok func(Published) bool) (Published, error) {
	var got Published
	err := c.waitFor(ctx, func() bool {
		p, found := c.state.published[path]
		if found && ok(p) {
			got = p
			return true
		}
		return false
	})
	return got, err
}

// WaitWorkDone blocks until at least total progress reports whose title
// starts with word have begun, and none of them is still running.
//
// gopls, with verboseWorkDoneProgress, wraps its initial diagnosis and the
// diagnosis that follows each didOpen, didChange, didClose and
// didChangeConfiguration in such a report ("diagnosing didChange"), and ends
// it only after publishing every diagnostic that change caused, in any
// file. Its begin notification can arrive well after the change that
// caused it, so the caller counts reports against the notifications it has
// sent ([Client.Modifications]) rather than against what has arrived.
func (c *Client) WaitWorkDone(ctx context.Context, word string, total int) error {
	return c.waitFor(ctx, func() bool {
		if c.state.workBegun[word] < total {
			return false
		}
		for _, title := range c.state.activeWork {
			if firstWord(title) == word {
				return false
			}
		}
		return true
	})
}

// WaitRegistered blocks until the server has registered method.
func (c *Client) WaitRegistered(ctx context.Context, method string) error {
	return c.waitFor(ctx, func() bool {
		_, ok := c.state.registrations[method]
		return ok
	})
}
