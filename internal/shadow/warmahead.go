package shadow

import (
	"context"
	"maps"
	"slices"

	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
)

// preparer is a DependantFinder that can do ahead of need what the
// first check would wait for (reach.Graph: TypeScript's record of the
// projects' imports for the disk as it is).
type preparer interface {
	Prepare(ctx context.Context, files reach.Files)
}

// warmAheadJob names the background job of WarmAhead.
const warmAheadJob = "warm ahead"

// WarmAhead starts, in the background, what a session's first check
// would otherwise wait for: each language server of the workspace's
// languages started and loading its project (asked about one file of its
// language, as on disk), and the dependant finder's records for the disk
// as it is. It returns once the disk is scanned. The job is one of the
// validator's background jobs: bounded by the load timeout per part,
// superseded by the next disk state's work, shown by 'anvil serve
// status', and stopped with the validator.
func (v *Validator) WarmAhead(ctx context.Context) error {
	snap, err := v.syncDisk(ctx)
	if err != nil {
		return err
	}
	type part struct {
		srv  *servers.Server
		file string
	}
	parts := map[string]part{}
	seen := map[string]bool{}
	for _, rel := range snap.Sorted() {
		lang := servers.LanguageOf(rel)
		if lang == "" || seen[lang] {
			continue
		}
		seen[lang] = true
		srv, err := v.servers.ForFile(rel)
		if err != nil {
			continue // no server: its check says so
		}
		if _, ok := parts[srv.Spec().Name]; !ok {
			parts[srv.Spec().Name] = part{srv, v.root.Abs(rel)}
		}
	}
	names := slices.Sorted(maps.Keys(parts))
	const records = "the dependants' records"
	if _, ok := v.deps.(preparer); ok {
		names = append(names, records)
	}
	if len(names) == 0 {
		return nil
	}
	v.work.run(v.bg, warmAheadJob, "servers", snap.Fingerprint, "the session's first check: servers started, projects loaded", names, v.opts.LoadTimeout,
		func(ctx context.Context, name string) {
			if name == records {
				v.deps.(preparer).Prepare(ctx, snap.Files)
				return
			}
			p := parts[name]
			_ = v.warmServer(ctx, snap, p.srv, []string{p.file})
		})
	return nil
}
