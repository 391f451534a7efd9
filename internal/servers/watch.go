package servers

import (
	"context"
	"fmt"
	"time"
)

// WatchProgress returns a context for a check on s that ends when the
// server has written nothing for idle (it is hung, not busy), or at the
// hard bound, whichever comes first; its cause then wraps
// context.DeadlineExceeded and says which. A server answering file after
// file keeps the check alive however long it takes, up to hard: a large
// check is slow, not hung.
func (s *Server) WatchProgress(parent context.Context, idle, hard time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	hctx, hcancel := context.WithTimeoutCause(ctx, hard, fmt.Errorf("%w: %s did not finish the check within %s", context.DeadlineExceeded, s.resolved.Spec.Name, hard))
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := min(idle/10, time.Second)
		t := time.NewTicker(tick)
		defer t.Stop()
		var last uint64
		var lastFrom backend
		quietSince := time.Now()
		for {
			select {
			case <-hctx.Done():
				return
			case now := <-t.C:
				c := s.current()
				var n uint64
				if c != nil {
					n = c.OutputBytes()
				}
				if c != lastFrom || n != last {
					last, lastFrom, quietSince = n, c, now
					continue
				}
				if now.Sub(quietSince) >= idle {
					cancel(fmt.Errorf("%w: %s wrote nothing for %s", context.DeadlineExceeded, s.resolved.Spec.Name, idle))
					return
				}
			}
		}
	}()
	return hctx, func() {
		hcancel()
		cancel(context.Canceled)
		<-done
	}
}
