package testrun

import (
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/state"
)

// What no program Anvil starts may see holds the daemon's socket
// directory wherever its rule puts it: named, in the runtime directory,
// or the temporary directory's fallback (a server with a repository's
// plugin loaded could otherwise drive the daemon).
func TestHiddenHoldsTheDaemonDirectory(t *testing.T) {
	for _, vars := range []map[string]string{
		{"HOME": "/home/u", "ANVIL_DAEMON_DIR": "/srv/anvil-d"},
		{"HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/4242"},
		{"HOME": "/home/u", "TMPDIR": "/var/tmp/u"},
	} {
		getenv := func(k string) string { return vars[k] }
		if dir := state.DaemonDir(getenv); !slices.Contains(Hidden(getenv), dir) {
			t.Errorf("%v: %s is not hidden: %v", vars, dir, Hidden(getenv))
		}
	}
}
