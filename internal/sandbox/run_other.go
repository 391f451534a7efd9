//go:build !linux

package sandbox

import (
	"context"
	"runtime"

	"github.com/anvil-dev/anvil/internal/proc"
)

// Main: the shadow tree's helper exists only on Linux.
func Main(getenv func(string) string) { proc.Main(getenv) }

// Run: shadow trees need Linux's namespaces and overlayfs.
func Run(context.Context, Spec) (*Result, error) {
	return nil, &UnavailableError{Reason: "shadow trees need Linux (this is " + runtime.GOOS + ")"}
}
