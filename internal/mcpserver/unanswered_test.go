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
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("the wait failed")
		}
	case <-time.After(10 * time.Second):
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
