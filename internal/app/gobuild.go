package app

import (
	"cmp"
	"go/build"
	"runtime"
)

// goBuildContext is the platform the go command builds for under the
// environment getenv reads (GOOS, GOARCH, CGO_ENABLED over this
// toolchain's defaults): what the sealed `go vet` builds, which the gate
// must know to tell whose files vet's silence answers for.
func goBuildContext(getenv func(string) string) *build.Context {
	c := build.Default
	c.GOOS = cmp.Or(getenv("GOOS"), runtime.GOOS)
	c.GOARCH = cmp.Or(getenv("GOARCH"), runtime.GOARCH)
	switch getenv("CGO_ENABLED") {
	case "0":
		c.CgoEnabled = false
	case "1":
		c.CgoEnabled = true
	}
	return &c
}
