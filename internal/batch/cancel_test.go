package batch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/anvil-dev/anvil/internal/execpolicy"
)

// A job cancelled before its run (its disk state gone, the daemon
// stopping) starts nothing and writes nothing: a daemon that was told to
// stop once left a state directory behind it in a home being removed.
func TestACancelledRunStartsNothing(t *testing.T) {
	ws, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	marker := filepath.Join(t.TempDir(), "ran")
	policy := execpolicy.New(execpolicy.Options{Root: ws, Trusted: true, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	for _, kind := range []Kind{TSC, Pyright} {
		c := New(ws, Tool{Kind: kind, Argv: []string{"touch", marker}, Label: "touch"}, state, policy)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c.Warm(ctx, filepath.Join(ws, "tsconfig.json"), "disk-1")
		if _, err := c.Check(ctx, filepath.Join(ws, "tsconfig.json"), "disk-1", nil, false); err == nil {
			t.Errorf("%s: a check with its context cancelled answered", kind)
		}
		if c.Ready(filepath.Join(ws, "tsconfig.json"), "disk-1") {
			t.Errorf("%s: a cancelled warm-up was kept as the unchanged tree's answer", kind)
		}
	}
	for _, p := range []string{state, marker} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after cancelled runs (%v)", p, err)
		}
	}
}
