package daemon

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A session's start asks the daemon to warm the workspace ahead (Warm
// with no files): it answers at once, and the server of the project's
// language starts and loads in the daemon meanwhile, so the session's
// first edit does not wait for it (every first edit of a session on a
// large project ran into the hook's bound).
func TestWarmAheadStartsTheServersInTheBackground(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	c := e.dial(t)
	dir := writeProject(t, freshProject)
	ws, err := c.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	if err := ws.Warm(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the warm-up was waited for: %s", took)
	}
	for {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range st.Workspaces {
			for _, s := range w.Servers {
				if s.PID > 0 {
					t.Logf("%s running after %s", s.Name, time.Since(start))
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no server started after the warm-up: %+v", st.Workspaces)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Shared serves only from the daemon: with the daemon turned off it
// answers ErrNoDaemon, never a service of the caller's own process
// (which would start servers only to stop them as the caller exits).
func TestSharedNeverServesInTheCallersProcess(t *testing.T) {
	dir := writeProject(t, freshProject)
	for _, tc := range []struct {
		name string
		o    OpenOptions
	}{
		{"ANVIL_DAEMON=off", OpenOptions{Dir: dir, Getenv: func(k string) string {
			if k == "ANVIL_DAEMON" {
				return "off"
			}
			return ""
		}}},
		{"NoDaemon", OpenOptions{Dir: dir, NoDaemon: true, Getenv: func(string) string { return "" }}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, closeSvc, err := Shared(context.Background(), tc.o)
			if !errors.Is(err, ErrNoDaemon) {
				if closeSvc != nil {
					closeSvc()
				}
				t.Fatalf("Shared = %v, %v; want ErrNoDaemon", svc, err)
			}
		})
	}
}
