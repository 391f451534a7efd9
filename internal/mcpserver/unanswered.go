package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// unanswered is the set of calls read from the client whose answer has not
// been written yet. A call counts from the moment its request is read, not
// from when its handler starts, and until its answer has left, not when
// its handler returns: a stop that waited only for the handlers would
// close the session between a handler's return and its answer's write,
// and the client would see the connection end instead of the answer.
type unanswered struct {
	mu      sync.Mutex
	ids     map[jsonrpc.ID]struct{}
	emptied chan struct{} // closed and replaced each time ids empties
}

func (u *unanswered) read(id jsonrpc.ID) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ids == nil {
		u.ids = map[jsonrpc.ID]struct{}{}
	}
	if u.emptied == nil {
		u.emptied = make(chan struct{})
	}
	u.ids[id] = struct{}{}
}

func (u *unanswered) answered(id jsonrpc.ID) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.ids[id]; !ok {
		return
	}
	delete(u.ids, id)
	if len(u.ids) == 0 && u.emptied != nil {
		close(u.emptied)
		u.emptied = nil
	}
}

// wait returns true once no call is unanswered, false if ctx ends first.
func (u *unanswered) wait(ctx context.Context) bool {
	for {
		u.mu.Lock()
		if len(u.ids) == 0 {
			u.mu.Unlock()
			return true
		}
		emptied := u.emptied
		u.mu.Unlock()
		select {
		case <-emptied:
		case <-ctx.Done():
			return false
		}
	}
}

// countingTransport records in calls each call read and each answer
// written on the connections it makes.
type countingTransport struct {
	mcp.Transport
	calls *unanswered
}

func (t *countingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Connection: c, calls: t.calls}, nil
}

type countingConn struct {
	mcp.Connection
	calls *unanswered
}

// Read also holds back the end of the input (the client closed stdin)
// until the calls read so far are answered, up to closeDrain: once the
// session sees the end it writes no more answers.
func (c *countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		wctx, cancel := context.WithTimeout(ctx, closeDrain)
		c.calls.wait(wctx)
		cancel()
		return msg, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.calls.read(req.ID)
	}
	return msg, err
}

// closeDrain bounds how long the end of a client's input waits for the
// answers of the calls in flight.
const closeDrain = 10 * time.Second

// Write counts an answer as given whether or not its write succeeded: a
// failed write is the client gone, and nothing is left to wait for.
func (c *countingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.calls.answered(resp.ID)
	}
	return err
}
