package gitcommit

import (
	"os"
	"testing"

	"github.com/anvil-dev/anvil/internal/proc"
)

// TestMain lets the test binary be the helper that contains a program,
// as the anvil binary is.
func TestMain(m *testing.M) {
	proc.Main(os.Getenv)
	os.Exit(m.Run())
}
