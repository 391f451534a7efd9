package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anvil-dev/anvil/internal/service"
)

// progressBacklog bounds the notices waiting for a client that reads
// slowly; later ones are dropped, the check never waits for the client.
const progressBacklog = 32

// relayProgress sends a client that put a progress token on its call the
// gate's progress as MCP progress notifications: first that the call
// started, then what the gate does ("tsserver: checking 12 files…"),
// through the sink it returns (nil when the client asked for none).
// Clients show them, and some restart their call timeout on each, which
// a long batch check needs. stop ends the relay before the answer leaves,
// as the protocol requires, once the notices already queued are sent.
func relayProgress(ctx context.Context, req *mcp.CallToolRequest) (_ func(service.Progress), stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil, func() {}
	}
	var (
		mu     sync.Mutex
		closed bool
		queue  = make(chan string, progressBacklog)
		sent   = make(chan struct{})
	)
	go func() {
		defer close(sent)
		n := 0
		for msg := range queue {
			n++
			// An error is the client gone: the call's answer fails too.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
		}
	}()
	// say may be called from the gate's goroutines after the call ended
	// (a background warm-up still holding the context): the flag keeps
	// it from sending on a closed queue.
	say := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		select {
		case queue <- msg:
		default:
		}
	}
	say(req.Params.Name + " started")
	return func(p service.Progress) { say(p.Message) }, func() {
		mu.Lock()
		closed = true
		close(queue)
		mu.Unlock()
		<-sent
	}
}
