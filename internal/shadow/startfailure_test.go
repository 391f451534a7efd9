package shadow

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp/lspfake"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A server that exits as it starts is said to have exited, with its last
// output, never to be loading slowly (a repository's tsserver that exited
// at once was reported as "not ready within the load timeout (5m0s) …
// raise load_timeout"); one still loading at the bound is.
func TestServerThatExitsAtStartIsSaidToHaveExited(t *testing.T) {
	for _, tc := range []struct {
		mode      servers.Mode
		behaviour string
		want      []string
		notWant   string
	}{
		{servers.ModePull, "pull,exit-at-start", []string{"exited as it started", "exit status 3", "the project needs node 99"}, "load_timeout"},
		{servers.ModePushProgress, "progress,load=1h", []string{"not ready within the load timeout", "load_timeout"}, "exited"},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			dir := testfs.Tree(t, map[string]string{"lib.rs": "fn lib() {}\n"})
			reg := servers.NewRegistry(servers.RegistryOptions{LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Overrides: []servers.Spec{{
				Name: "fake", Command: os.Args[0], Languages: []string{"rust"}, Mode: tc.mode, Env: []string{lspfake.Env(tc.behaviour)},
			}}})
			mgr := servers.NewManager(dir, reg, servers.ManagerOptions{StartTimeout: 10 * time.Second})
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				mgr.Shutdown(ctx)
			})
			srv, err := mgr.ForLanguage("rust")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			err = srv.Prepare(ctx, []string{"lib.rs"}, nil)
			if err == nil {
				t.Fatal("a server that cannot start was prepared")
			}
			got := describeStartFailure(ctx, "fake", 3*time.Second, err)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the reason lacks %q: %s", w, got)
				}
			}
			if strings.Contains(got, tc.notWant) {
				t.Errorf("the reason says %q: %s", tc.notWant, got)
			}
		})
	}
}
