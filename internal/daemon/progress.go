package daemon

import (
	"context"
	"fmt"

	"github.com/anvil-dev/anvil/internal/shadow"
)

// Progress is what the gate is doing for a request while it runs.
type Progress struct {
	Message string `json:"message"`
	// Notice marks what the user should see even off a terminal (a wait
	// for another run's lock), not only on a status line.
	Notice bool `json:"notice,omitempty"`
}

type progressKey struct{}

// WithProgress returns a context whose requests tell fn what the gate is
// doing ("gopls: checking 3 files…"), in this process or, through the
// daemon, in its. fn must not block.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	ctx = context.WithValue(ctx, progressKey{}, fn)
	return shadow.WithProgress(ctx, func(p shadow.Progress) { fn(Progress{Message: p.String()}) })
}

// progressOf returns the context's progress sink, or one that drops.
func progressOf(ctx context.Context) func(Progress) {
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok {
		return fn
	}
	return func(Progress) {}
}

// waitingFor says a commit is waiting for another run's workspace lock.
func waitingFor(ctx context.Context) func(holder string) {
	say := progressOf(ctx)
	return func(holder string) {
		say(Progress{Message: fmt.Sprintf("waiting for another Anvil run committing in this workspace (%s)…", holder), Notice: true})
	}
}
