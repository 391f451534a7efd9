package shadow

import (
	"context"
	"errors"
	"slices"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// maxWarm bounds the files one [Validator.Warm] asks about: a plan's
// files, not a project (a large project's baseline is the batch
// checker's, warmed on its own).
const maxWarm = 16

// Warm asks the servers about files (workspace-relative) as they are on
// disk, starting the servers and loading the projects first if need be, so
// that the first check of a change to them asks about the change alone:
// a plan's files, while its user reads the plan. Nothing depends on it:
// the answers are kept under the disk's fingerprint, as every check's
// "before" is, and a check after the disk changed asks again. Each
// server's part is bounded by the load timeout.
func (v *Validator) Warm(ctx context.Context, rels []string) error {
	if len(rels) > maxWarm {
		rels = rels[:maxWarm]
	}
	snap, err := v.syncDisk(ctx)
	if err != nil {
		return err
	}
	bySrv := map[*servers.Server][]string{}
	var order []*servers.Server
	serverOf := v.serverOf()
	for _, rel := range rels {
		if _, ok := snap.Files[rel]; !ok {
			continue // to be created, or not a file the scan covers
		}
		srv, err := serverOf(rel)
		if err != nil {
			continue // no server: its check says so
		}
		if bySrv[srv] == nil {
			order = append(order, srv)
		}
		bySrv[srv] = append(bySrv[srv], v.root.Abs(rel))
	}
	var errs []error
	for _, srv := range order {
		errs = append(errs, v.warmServer(ctx, snap, srv, bySrv[srv]))
	}
	return errors.Join(errs...)
}

func (v *Validator) warmServer(ctx context.Context, snap *Snapshot, srv *servers.Server, files []string) error {
	ctx, cancel := context.WithTimeout(ctx, v.opts.LoadTimeout)
	defer cancel()
	if err := v.prepare(ctx, srv, servers.CheckRequest{Dependants: files}, nil); err != nil {
		return err
	}
	return srv.Warm(ctx, snap.Fingerprint, files)
}

// warmChunk is how many files one background question to a server takes
// at a time: the server's turn is taken once per chunk, and a check that
// finds the server busy with it takes the turn (Server.Warm yields), so
// the chunk it cut is asked again after the check.
const warmChunk = 4

// warmBaseline asks, in the background, the server of g for every file of
// g's language at snap's disk state, when the server computes a file's
// answer only when asked (servers.Spec.PullOpen: pyright) and the project
// is below the size whose unchanged tree the batch checker answers ahead
// (warmBatch). The answers are the "before" of the next check's
// dependants at this disk state: without them, a change that reaches
// most of a project asks every question twice (rich's first interface
// change: 15 s file by file, against 6 s with the "before" known, and
// 10-12 s for the pyright command line over the whole project). As every
// "before", they are kept under the disk's fingerprint; the job is the
// server's one background job, and a new disk state cancels it.
func (v *Validator) warmBaseline(snap *Snapshot, g *group) {
	spec := g.server.Spec()
	if !spec.PullOpen || !v.opts.WarmBatch || v.opts.OneRequest || v.opts.Strategy == StrategyBatch {
		return
	}
	// After every check this server answered: the walk stops at the
	// size the batch checker takes over from.
	var files []string
	for rel := range snap.Files {
		if servers.LanguageOf(rel) != g.lang {
			continue
		}
		if files = append(files, v.root.Abs(rel)); len(files) >= v.opts.WarmBatchFiles {
			return
		}
	}
	if len(files) == 0 || g.server.BaselineHolds(snap.Fingerprint, files) == len(files) {
		return
	}
	slices.Sort(files)
	srv := g.server
	why := "the unchanged tree's answers from the server, the \"before\" of the next check's dependants"
	v.work.run(v.bg, spec.Name+" server", spec.Name, snap.Fingerprint, why, []string{v.root.Dir()}, v.opts.LoadTimeout, func(ctx context.Context, _ string) {
		askAhead(ctx, srv, snap.Fingerprint, files)
	})
}

// askAhead asks srv about files at the disk state key, a chunk at a
// time, giving the server up to every check that wants it; it stops at
// the first failure (the next check asks for itself).
func askAhead(ctx context.Context, srv *servers.Server, key string, files []string) {
	for i := 0; i < len(files) && ctx.Err() == nil; {
		chunk := files[i:min(i+warmChunk, len(files))]
		if srv.BaselineHolds(key, chunk) == len(chunk) {
			i += len(chunk)
			continue
		}
		switch err := srv.Warm(ctx, key, chunk); {
		case err == nil:
			i += len(chunk)
		case ctx.Err() == nil && errors.Is(err, context.Canceled):
			// It yielded the server to a check: asked again after it.
		default:
			return
		}
	}
}

// maxErrorFilesAhead bounds the files with errors asked ahead after a
// batch run (askErrorFilesAhead).
const maxErrorFilesAhead = 64

// askErrorFilesAhead asks srv, at the disk state the batch checker just
// answered for, about the files that answer has errors in: the server
// spares the "before" only of the files it found clean
// (servers.CheckRequest.CleanAtDisk), and the others' would be asked
// before the next change, on a program whose type information the
// server has to build again (tldraw, 27 errors before any change: its
// first interface change took 33 s through tsserver, the next, with
// those answers kept, 20.6 s).
//
// Only the sources of the server's languages that config's project owns
// are asked: a configuration file is no question for the server, and a
// file another tsconfig.json owns would have tsserver build that
// project's checker in the background.
func (v *Validator) askErrorFilesAhead(ctx context.Context, srv *servers.Server, config string, diags map[string][]lsp.Diagnostic, key string) {
	projects := tsconfig.NewProjects(v.root.Dir())
	var files []string
	for abs, ds := range diags {
		rel, err := v.root.Rel(abs)
		if abs == "" || err != nil || v.root.InDependencyDir(rel) || !hasError(ds) || !slices.Contains(srv.Spec().Languages, servers.LanguageOf(rel)) {
			continue
		}
		if owner := projects.Owner(abs); owner == nil || owner.Path != config {
			continue
		}
		files = append(files, abs)
	}
	slices.Sort(files)
	askAhead(ctx, srv, key, files[:min(len(files), maxErrorFilesAhead)])
}

// settleShown settles the servers chk showed w's change to, answered or
// not: each was put back to the disk after it (see settle). Only pull
// servers are settled.
func (v *Validator) settleShown(w checkWork, chk checker) {
	switch c := chk.(type) {
	case serverChecker:
		v.settle(w, c.srv)
	case heldServerChecker:
		v.settle(w, c.native.srv)
	}
}

// settle asks srv, in the background, about the changed files of w as
// they are on disk, after a check that showed it the change (a commit, a
// turn's end): closing what such a check opened and sent leaves a pull
// server to bring its program back to the disk at its next question,
// which cost the next edit's check on date-fns 90-220 ms instead of
// 16-60 (TypeScript 7's server, the edit after each turn's end). The
// model's pause before that edit pays for it instead. The job is the
// server's one background job (the one that loads it), cancelled by the
// next disk state, and it yields to any check.
func (v *Validator) settle(w checkWork, srv *servers.Server) {
	spec := srv.Spec()
	if v.opts.OneRequest || spec.Mode != servers.ModePull || spec.LazyOpen {
		return
	}
	var files []string
	for _, f := range w.req.Files {
		if rel, err := v.root.Rel(f.Path); err == nil && !f.Config {
			if _, onDisk := w.snap.Files[rel]; onDisk {
				files = append(files, f.Path)
			}
		}
	}
	if len(files) == 0 {
		return
	}
	v.work.run(v.bg, spec.Name+" server", spec.Name, w.snap.Fingerprint, "the changed files asked about as on disk after a check that showed it the change, so that the next check does not wait for its program to come back to the disk", []string{v.root.Dir()}, v.opts.LoadTimeout,
		func(ctx context.Context, _ string) {
			_ = srv.Settle(ctx, files)
		})
}
