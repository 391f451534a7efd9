package tools

import (
	"github.com/anvil-dev/anvil/internal/workspace"

	"context"

	"github.com/anvil-dev/anvil/internal/changeset"
)

// Stager holds the change set an Executor builds up: edits are staged into
// it, never written, and each staging answers with the set's state after
// validation, so the model sees what its edit broke before it commits.
type Stager interface {
	// Staged returns the staged content of path: its new content, or
	// deleted, and whether the set has a change for it at all.
	Staged(path string) (content []byte, deleted bool, ok bool)
	// Paths returns the staged paths.
	Paths() []string
	// Stage adds changes (replacing earlier ones for the same paths) and
	// returns a report of the change set's state for the model.
	Stage(ctx context.Context, changes []changeset.Spec) (string, error)
}

// currentContent returns what path holds from the model's point of view:
// its staged content if the stager has one, else the file on disk.
func currentContent(st Stager, root *workspace.Root, rel string) ([]byte, bool, error) {
	if st != nil {
		if content, deleted, ok := st.Staged(rel); ok {
			return content, !deleted, nil
		}
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}
