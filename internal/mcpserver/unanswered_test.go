package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func id(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	i, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// A stop waits for the answers of the calls read, not for their handlers:
// the wait ends when the last answer has been written, and only then.
func TestUnansweredWaitsForTheLastAnswer(t *testing.T) {
	var u unanswered
	short := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		return u.wait(ctx)
	}
	if !short() {
		t.Fatal("waited with no call read")
	}
	u.read(id(t, float64(1)))
	u.read(id(t, "two"))
	u.answered(id(t, float64(7))) // an answer to nothing read: ignored
	u.answered(id(t, float64(1)))
	if short() {
		t.Fatal("the wait ended with a call unanswered")
	}
	done := make(chan bool)
	go func() { done <- u.wait(context.Background()) }()
	time.Sleep(10 * time.Millisecond)
	u.answered(id(t, "two"))
	ctx, cancel := untilDeadline(t)
	defer cancel()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("the wait failed")
		}
	case <-ctx.Done():
		t.Fatal("the wait did not end when the last answer was written")
	}
	// The set is usable again after it emptied.
	u.read(id(t, float64(3)))
	if short() {
		t.Fatal("a call read after the set emptied was not waited for")
	}
	u.answered(id(t, float64(3)))
	if !short() {
		t.Fatal("waited after every call was answered")
	}
}

// untilDeadline is a context for the waits of a test: it ends shortly
// before the test binary's deadline (go test -timeout), so a wait that
// never ends fails with its message, and sets no wall-clock bound of its
// own, which a loaded machine would overrun. Usable in cleanups.
func untilDeadline(t *testing.T) (context.Context, context.CancelFunc) {
	d, ok := t.Deadline()
	if !ok {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), d.Add(-deadlineMargin))
}

// deadlineMargin is the time left, after a wait gives up, to report it.
const deadlineMargin = 10 * time.Second
