package replay_test

import (
	"os"
	"testing"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// TestMain lets the test binary serve as the shadow tree's helper, which
// the batch checkers run in.
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	os.Exit(m.Run())
}
