//go:build !unix

package search

import (
	"io"
	"os"
)

// openFile opens a file for the Go engine to read once, start to end.
func openFile(path string) (io.ReadCloser, error) { return os.Open(path) }
