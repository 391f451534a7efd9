// Command anvil is a terminal coding agent that validates every edit with
// real language servers before it touches your files.
//
// This package holds only the CLI wiring; services are built by
// internal/app.
package main

import (
	"os"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

func main() {
	// The binary is also the helper that makes shadow trees for the run
	// stage: it never returns when started as one.
	sandbox.Main(os.Getenv)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
