package hooks

import (
	"context"
	"errors"
	"testing"

	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// warmRecorder is a service that records the warm-ups it is asked for.
type warmRecorder struct {
	service.Service
	warmed [][]string
}

func (w *warmRecorder) Warm(_ context.Context, paths []string) error {
	w.warmed = append(w.warmed, paths)
	return nil
}

// A session's start warms the workspace only through a service that
// outlives the hook (the daemon's): a service of the hook's own process
// would start the servers and stop them as the hook exits, at every
// session start without a daemon. It never opens the hook's own service.
func TestSessionStartWarmsOnlyASharedService(t *testing.T) {
	for _, tc := range []struct {
		name       string
		shared     error // OpenShared's error; nil: it serves
		noShared   bool  // no OpenShared at all
		wantWarmed bool
	}{
		{name: "the daemon serves", wantWarmed: true},
		{name: "the daemon is turned off", shared: errors.New("the Anvil daemon is turned off")},
		{name: "no shared service", noShared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.ts": "export const a = 1;\n"})
			shared := &warmRecorder{}
			g := &Gate{Client: Claude, Getenv: func(string) string { return "" },
				Open: func(context.Context, string) (service.Service, func(), error) {
					t.Error("the session's start opened the hook's own service")
					return nil, nil, errors.New("not here")
				}}
			if !tc.noShared {
				g.OpenShared = func(context.Context, string) (service.Service, func(), error) {
					if tc.shared != nil {
						return nil, nil, tc.shared
					}
					return shared, func() {}, nil
				}
			}
			if a := g.SessionStart(context.Background(), Input{SessionID: "s1", Cwd: dir}); a.Deny || a.Message != "" {
				t.Fatalf("session start: %+v", a)
			}
			if got := len(shared.warmed) == 1 && shared.warmed[0] == nil; got != tc.wantWarmed {
				t.Errorf("warmed ahead = %v (%v), want %v", got, shared.warmed, tc.wantWarmed)
			}
		})
	}
}
