package tools

import (
	"context"
	"slices"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/workspace"
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

var errNotStaging = errorString("no change set to stage into here")

type errorString string

func (e errorString) Error() string { return string(e) }

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

type stagedKey struct{}

// WithStaged returns a context in which the tools read specs' contents
// instead of the disk's for those files: a change set staged elsewhere
// (an Executor's, asking a daemon's tool), which the tools see but never
// stage into.
func WithStaged(ctx context.Context, specs []changeset.Spec) context.Context {
	return context.WithValue(ctx, stagedKey{}, readOnlyStage(specs))
}

// stagedFrom returns the change set a context carries, or nil.
func stagedFrom(ctx context.Context) Stager {
	if st, ok := ctx.Value(stagedKey{}).(readOnlyStage); ok {
		return st
	}
	return nil
}

// readOnlyStage is a change set to read, never to stage into.
type readOnlyStage []changeset.Spec

func (r readOnlyStage) Staged(path string) ([]byte, bool, bool) {
	for _, s := range r {
		if s.Path == path {
			if s.Delete || s.Content == nil {
				return nil, true, true
			}
			return []byte(*s.Content), false, true
		}
	}
	return nil, false, false
}

func (r readOnlyStage) Paths() []string {
	var out []string
	for _, s := range r {
		out = append(out, s.Path)
	}
	slices.Sort(out)
	return out
}

func (r readOnlyStage) Stage(context.Context, []changeset.Spec) (string, error) {
	return "", errNotStaging
}
