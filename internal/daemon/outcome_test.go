package daemon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/anvil-dev/anvil/internal/service"
)

// A request that names no workspace, or a relative path, is refused with
// an error the caller can act on: resolved in the daemon, it would be the
// daemon's own directory (/), and the daemon would open it.
func TestRequestWithoutAWorkspaceIsRefused(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	c := e.dial(t)
	for _, dir := range []string{"", ".", "src"} {
		var out []service.ToolInfo
		err := c.call(t.Context(), methodTools, request{Workspace: dir}, &out)
		if !service.IsInput(err) || !strings.Contains(err.Error(), "names no workspace") {
			t.Errorf("workspace %q: %v (%d tools), want a refusal naming the missing workspace", dir, err, len(out))
		}
	}
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Workspaces) != 0 {
		t.Fatalf("the daemon opened %+v", st.Workspaces)
	}
}

// A commit or an undo whose daemon is lost once the request left is not
// asked again, and says that its outcome is not known and how to learn
// it (an [*OutcomeUnknownError], which the CLI gives its own exit
// status); a check is asked again.
func TestLostMidChangeIsOutcomeUnknown(t *testing.T) {
	dir := t.TempDir()
	remote := func() *Remote {
		c := &Client{progress: map[string]func(service.Progress){}}
		s := &peerGone{writeErr: fmt.Errorf("write unix @->/run/anvil/daemon.sock: %w", syscall.EPIPE), closed: make(chan struct{})}
		c.conn = jsonrpc2.NewConn(context.Background(), s, jsonrpc2.HandlerWithError(c.handle))
		t.Cleanup(func() { c.Close() })
		r, err := c.Workspace(dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		call    func(r *Remote) error
		unknown string // what the error says is not known; "" for a call asked again
	}{
		{"commit", func(r *Remote) error {
			_, err := r.Commit(t.Context(), specs(map[string]string{"a.txt": "x\n"}), "m", service.GateOptions{})
			return err
		}, "whether it was written is not known"},
		{"undo", func(r *Remote) error { _, err := r.Undo(t.Context(), service.UndoOptions{}); return err }, "whether it was made is not known"},
		{"check", func(r *Remote) error {
			_, err := r.Check(t.Context(), specs(map[string]string{"a.txt": "x\n"}), service.GateOptions{})
			return err
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(remote())
			var unknown *OutcomeUnknownError
			switch {
			case err == nil:
				t.Fatal("no error from a lost daemon")
			case tc.unknown == "" && errors.As(err, &unknown):
				t.Fatalf("a check, which writes nothing, reported as of unknown outcome: %v", err)
			case tc.unknown != "" && !errors.As(err, &unknown):
				t.Fatalf("%v (%T), want an OutcomeUnknownError", err, err)
			case tc.unknown != "" && (!strings.Contains(err.Error(), tc.unknown) || !strings.Contains(err.Error(), "settles it from the journal")):
				t.Fatalf("the error does not say what is known and how to learn the rest: %v", err)
			}
		})
	}
}
