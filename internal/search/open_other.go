//go:build !unix

package search

import (
	"io"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// openFile opens a file for the Go engine to read once, start to end,
// confined to the root.
func openFile(root *workspace.Root, rel string) (io.ReadCloser, error) { return root.OpenFile(rel) }
