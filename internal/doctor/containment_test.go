package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// doctor says whether the language servers run contained, by starting a
// program as they start: with the binary as the helper, a mount namespace
// of their own (this machine allows one); without a helper, a warning.
func TestContainmentIsReported(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		helper string
		status Status
		detail string
	}{
		{exe, OK, "mount namespace of their own"},
		{"", Warn, "uncontained"},
	} {
		dir := testfs.Tree(t, map[string]string{"ws/README.md": "x\n", "home/.ssh/id_rsa": "k\n"})
		r, err := Run(context.Background(), Options{
			Dir:      filepath.Join(dir, "ws"),
			Getenv:   env(map[string]string{"HOME": filepath.Join(dir, "home"), "ANVIL_TOOLS_DIR": filepath.Join(dir, "tools"), "ANVIL_SESSION_DIR": filepath.Join(dir, "sessions")}),
			LookPath: noTools, Helper: tc.helper,
		})
		if err != nil {
			t.Fatal(err)
		}
		c := find(t, r, GroupServer, "containment")
		if c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) {
			t.Errorf("helper %q: %s %q, want %s containing %q", tc.helper, c.Status, c.Detail, tc.status, tc.detail)
		}
	}
}
