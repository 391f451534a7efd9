package daemon

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
)

func TestIdleToStop(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	spaces := []spaceMemory{
		{key: "/new", rssKiB: 300, last: t0.Add(3 * time.Minute)},
		{key: "/old", rssKiB: 200, last: t0},
		{key: "/busy", rssKiB: 900, busy: true, last: t0.Add(-time.Hour)},
		{key: "/mid", rssKiB: 100, last: t0.Add(time.Minute)},
	}
	for _, tc := range []struct {
		name         string
		total, bound int64
		want         []string
	}{
		{"under the bound, nothing", 1000, 1000, nil},
		{"the least recently used first", 1500, 1400, []string{"/old"}},
		{"as many as it takes, oldest first", 1500, 1150, []string{"/old", "/mid", "/new"}},
		{"never a busy workspace, even when the idle ones do not suffice", 1500, 10, []string{"/old", "/mid", "/new"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := idleToStop(spaces, tc.total, tc.bound); !slices.Equal(got, tc.want) {
				t.Errorf("idleToStop(total %d, bound %d) = %v, want %v", tc.total, tc.bound, got, tc.want)
			}
		})
	}
}

// syncLog is a daemon log tests read while the daemon writes it.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Over its memory bound, a daemon stops the servers of its idle
// workspaces, the least recently used first, and says so in its log and
// its status; a check in flight is never cut: it gets its verdict.
func TestMemoryBoundStopsIdleWorkspaces(t *testing.T) {
	e := newEnv(t)
	var log syncLog
	// A bound of one byte: every child is over it.
	d := e.serve(t, Options{Memory: 1, memoryTick: 20 * time.Millisecond, memoryMinIdle: time.Millisecond, Log: &log})
	if st := d.status(); st.MemoryBoundKiB != 0 || st.ChildrenKiB < 0 {
		t.Fatalf("status: bound %d KiB, children %d KiB", st.MemoryBoundKiB, st.ChildrenKiB)
	}
	older, newer := writeProject(t, mixedProject), writeProject(t, mixedProject)
	ctx := context.Background()
	for _, dir := range []string{older, newer} {
		ws, err := e.dial(t).Workspace(dir)
		if err != nil {
			t.Fatal(err)
		}
		// While the check runs its workspace is busy: its servers stay,
		// and the check ends with the verdict it would get unbounded.
		out, err := ws.Check(ctx, specs(conflicting[0]), service.GateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Result.Verdict != shadow.Rejected {
			t.Fatalf("%s: a check under the memory bound came back %s, not rejected:\n%s", dir, out.Result.Verdict, verdict(out.Result))
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(d.status().Workspaces) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("idle workspaces still held 30 s over the memory bound:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	text := log.String()
	i, j := strings.Index(text, older+" is the least recently used"), strings.Index(text, newer+" is the least recently used")
	if i < 0 || j < 0 || i > j {
		t.Errorf("the log does not say the older workspace was stopped first (at %d, the newer at %d):\n%s", i, j, text)
	}
}
