package shadow

import (
	"context"
	"errors"

	"github.com/anvil-dev/anvil/internal/servers"
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
