package mcpserver

import (
	"os"
	"testing"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// The test binary contains the servers the app it builds starts.
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	os.Exit(m.Run())
}
