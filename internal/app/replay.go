package app

import (
	"context"

	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/replay"
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
	if opts.Env == nil {
		opts.Env = execpolicy.EnvironOf(getenv, nil)
	}
	return replay.Run(ctx, opts)
}
