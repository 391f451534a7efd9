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

// StagedReader is a tool that can read a change set staged elsewhere (an
// Executor's, asking a daemon's tool) instead of the disk for those
// files: WithStaged returns the tool for one call over specs, which it
// reads but never stages into.
type StagedReader interface {
	WithStaged(specs []changeset.Spec) Tool
}

// staging is a typed tool that can read a change set staged elsewhere.
type staging[P any] interface {
	withStaged(st Stager) Typed[P]
}

// WithStaged implements [StagedReader] for the typed tools that read a
// change set staged elsewhere; the others read the disk, as before.
func (a *adapted[P]) WithStaged(specs []changeset.Spec) Tool {
	s, ok := a.typed.(staging[P])
	if !ok {
		return a
	}
	return &adapted[P]{typed: s.withStaged(readOnlyStage(specs)), schema: a.schema, raw: a.raw}
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
