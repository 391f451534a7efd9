//go:build !linux

package sandbox

import (
	"context"
	"runtime"
)

// Main: the helper exists only on Linux.
func Main(func(string) string) {}

// Run: shadow trees need Linux's namespaces and overlayfs.
func Run(context.Context, Spec) (*Result, error) {
	return nil, &UnavailableError{Reason: "shadow trees need Linux (this is " + runtime.GOOS + ")"}
}
