package daemon

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/anvil-dev/anvil/internal/service"
)

// peerGone is a connection whose peer was killed: the read side has not
// noticed yet, and a write finds the socket closed (EPIPE), or reset.
type peerGone struct {
	writeErr error
	closed   chan struct{}
}

func (s *peerGone) WriteObject(any) error { return s.writeErr }
func (s *peerGone) ReadObject(any) error {
	<-s.closed
	return errors.New("closed")
}
func (s *peerGone) Close() error {
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	return nil
}

// A daemon killed between two calls is found gone by the next write: the
// call says the daemon went away (which a Link answers by reconnecting),
// not a protocol error the caller cannot tell from a bad request.
func TestWriteToAKilledDaemonIsGone(t *testing.T) {
	for _, werr := range []error{
		fmt.Errorf("write unix @->/run/anvil/daemon.sock: %w", syscall.EPIPE),
		fmt.Errorf("write unix @->/run/anvil/daemon.sock: %w", syscall.ECONNRESET),
	} {
		t.Run(werr.Error(), func(t *testing.T) {
			c := &Client{progress: map[string]func(service.Progress){}}
			s := &peerGone{writeErr: werr, closed: make(chan struct{})}
			c.conn = jsonrpc2.NewConn(context.Background(), s, jsonrpc2.HandlerWithError(c.handle))
			defer c.Close()
			err := c.callOnce(context.Background(), methodStatus, struct{}{}, nil)
			var gone *errGone
			if !errors.As(err, &gone) {
				t.Fatalf("callOnce: %v (%T), want the daemon gone", err, err)
			}
			if !gone.sent {
				t.Error("a failed write may have sent part of the request: it must count as sent")
			}
		})
	}
	// The caller's own cancellation is not the daemon going away.
	c := &Client{progress: map[string]func(service.Progress){}}
	s := &peerGone{writeErr: context.Canceled, closed: make(chan struct{})}
	c.conn = jsonrpc2.NewConn(context.Background(), s, jsonrpc2.HandlerWithError(c.handle))
	defer c.Close()
	var gone *errGone
	if err := c.callOnce(context.Background(), methodStatus, struct{}{}, nil); errors.As(err, &gone) {
		t.Fatalf("a write error other than a lost connection: %v, counted as the daemon gone", err)
	}
}
