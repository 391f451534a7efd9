package proc

import "sync"

// Tail keeps the last bytes written to it: a process's stderr, to quote
// when the process dies, or a command's output, to show its end.
type Tail struct {
	mu      sync.Mutex
	n       int
	buf     []byte
	written int64
}

// NewTail returns a Tail keeping n bytes.
func NewTail(n int) *Tail { return &Tail{n: n} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.written += int64(len(p))
	t.buf = append(t.buf, p...)
	// Trimmed only past twice the bound, so a stream of small writes
	// costs amortized constant time per byte.
	if len(t.buf) > 2*t.n {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

// Bytes returns the last n bytes written.
func (t *Tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.n {
		b = b[len(b)-t.n:]
	}
	return append([]byte(nil), b...)
}

// Truncated reports whether more was written than is kept.
func (t *Tail) Truncated() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written > int64(t.n)
}

// String returns the last 2,000 bytes kept, enough for an error message.
func (t *Tail) String() string {
	s := string(t.Bytes())
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}
