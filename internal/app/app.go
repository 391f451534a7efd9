// Package app is Anvil's composition root: it builds the services one run
// needs (workspace, tools, and later language servers, agents and the
// session) from the options the CLI parsed, and owns their shutdown. No other
// package constructs services; cmd/anvil only parses flags and calls here.
package app

import (
	"github.com/anvil-dev/anvil/internal/tools"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Options configure one run.
type Options struct {
	// Dir is the workspace root.
	Dir string
}

// App holds the services of one run. Close releases them.
type App struct {
	Root  *workspace.Root
	Tools *tools.Set
}

// New builds the services for opts.
func New(opts Options) (*App, error) {
	root, err := workspace.New(opts.Dir)
	if err != nil {
		return nil, err
	}
	a := &App{Root: root}
	a.Tools = tools.NewSet(
		tools.Adapt(tools.NewReadFile(root)),
		tools.Adapt(tools.NewListFiles(root)),
	)
	return a, nil
}

// Close releases the services. It is safe to call more than once.
func (a *App) Close() error { return nil }
