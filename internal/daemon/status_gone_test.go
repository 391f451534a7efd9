package daemon

import (
	"os"
	"testing"
)

// A workspace whose directory was removed is not in the status a moment
// later, with or without the reaper's tick (the demo removes its example
// project as it ends, and 'anvil serve status' run next listed it, its
// servers still warm, for up to the reaper's 30 s).
func TestStatusForgetsAGoneWorkspace(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	c := e.dial(t)
	dir := writeProject(t, map[string]string{"notes.txt": "nothing to check\n"})
	ctx, cancel := untilDeadline(t)
	defer cancel()
	ws, err := c.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	listed := func() bool {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range st.Workspaces {
			if w.Dir == dir {
				return true
			}
		}
		return false
	}
	if !listed() {
		t.Fatalf("%s not listed after a request", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if listed() {
		t.Errorf("%s listed after its directory was removed", dir)
	}
}
