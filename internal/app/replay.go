package app

import (
	"context"
	"os"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/replay"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Replay replays the workspace's recent commits (see [replay.Run]): each
// scratch tree of it is served by an App of this process, never the
// daemon, whose workspaces outlive the scratch trees.
func Replay(ctx context.Context, opts replay.Options, getenv func(string) string) (*replay.Report, error) {
	opts.Open = func(ctx context.Context, dir string) (*replay.Tree, error) {
		a, err := New(Options{Dir: dir, Getenv: getenv})
		if err != nil {
			return nil, err
		}
		return &replay.Tree{Gate: a.Service(), Runs: a.Validator, Policy: a.Policy, Close: func() { a.Close() }}, nil
	}
	// git runs in the workspace itself, as its policy allows: the
	// repository's own programs (filters) only once trusted, contained.
	root, err := workspace.New(opts.Dir)
	if err != nil {
		return nil, err
	}
	layers, err := config.ReadLayers(config.DefaultPaths(root.Dir(), getenv))
	if err != nil {
		return nil, err
	}
	helper, _ := os.Executable()
	policy := Policy(root.Dir(), layers, getenv, nil, helper)
	if opts.Env == nil {
		opts.Env = policy.Env()
	}
	opts.Untrusted, opts.Contain = !policy.Trusted(), policy.RepositoryContainment()
	return replay.Run(ctx, opts)
}
