package shadow

import (
	"os"
	"testing"

	"github.com/anvil-dev/anvil/internal/lsp/lspfake"
	"github.com/anvil-dev/anvil/internal/sandbox"
)

// TestMain lets the test binary serve as the shadow tree's helper, which
// the batch checkers run in, and as a fake language server.
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	lspfake.Main(os.Getenv)
	os.Exit(m.Run())
}
