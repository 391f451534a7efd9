package proc

import "sync"

// Tail keeps the last bytes written to it: a process's stderr, to quote
// when the process dies.
type Tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

// NewTail returns a Tail keeping n bytes.
func NewTail(n int) *Tail { return &Tail{n: n} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

// String returns the last 2,000 bytes kept, enough for an error message.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}
