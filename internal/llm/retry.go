package llm

import (
	"context"
	"errors"
	"time"
)

// ErrCutOff marks a response stream that ended before its message did (a
// dropped connection, a malformed event). Providers wrap it; RetryCutOff
// retries it.
var ErrCutOff = errors.New("the response stream was cut off")

// RetryCutOff runs once and, while it fails with [ErrCutOff], runs it again
// up to retries more times, waiting backoff(n) before the n-th retry and
// telling onDelta to drop the partial output. Other errors, and a cancelled
// ctx, end it at once. Providers use it for what their SDK's own request
// retries cannot cover: a stream that breaks after it began.
func RetryCutOff(ctx context.Context, retries int, backoff func(n int) time.Duration, onDelta func(Delta), once func() (*Response, error)) (*Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := once()
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil || !errors.Is(err, ErrCutOff) || attempt >= retries {
			return nil, err
		}
		onDelta(Delta{Kind: DeltaRetry})
		select {
		case <-time.After(backoff(attempt + 1)):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Backoff doubles from one second: 1s, 2s, 4s...
func Backoff(n int) time.Duration { return time.Second << (n - 1) }

// Retries is how a provider retries: its SDK's request retries (rate
// limits, overload, 5xx, honouring retry-after) and RetryCutOff's stream
// retries.
type Retries struct {
	// MaxRetries bounds the SDK's retries of a failed request; zero means 4.
	MaxRetries int
	// StreamRetries bounds retries of a stream cut off midway; zero means 2.
	StreamRetries int
	// Backoff is the wait before the n-th stream retry; nil means [Backoff].
	Backoff func(n int) time.Duration
}

// WithDefaults fills the zero fields.
func (r Retries) WithDefaults() Retries {
	if r.MaxRetries == 0 {
		r.MaxRetries = 4
	}
	if r.StreamRetries == 0 {
		r.StreamRetries = 2
	}
	if r.Backoff == nil {
		r.Backoff = Backoff
	}
	return r
}
