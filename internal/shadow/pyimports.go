package shadow

import (
	"context"
	"errors"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/reach"
)

// pyImportsBound bounds one run of pyright's record of imports: a whole
// pyright run over the project, seconds on a real one.
const pyImportsBound = 2 * time.Minute

// PythonImports is pyright's record of the imports of the workspace's
// root project, on the disk as it is (reach.PythonRecorder): the Python
// server's batch checker, sealed like every batch run. The files the root
// project's configuration leaves out are not recorded: for them Anvil's
// reading alone decides, as without a record.
func (v *Validator) PythonImports(ctx context.Context) (map[string][]string, error) {
	srv, err := v.servers.ForLanguage("python")
	if err != nil {
		return nil, err
	}
	c := v.batchFor(srv)
	if c == nil || c.Tool().Kind != batch.Pyright {
		return nil, errors.New("no pyright command line to record the imports with")
	}
	ctx, cancel := context.WithTimeout(ctx, pyImportsBound)
	defer cancel()
	return c.Imports(ctx, v.root.Dir())
}

// pythonRefresher is a DependantFinder that keeps pyright's record of
// imports, made in the background (reach.Graph).
type pythonRefresher interface {
	PythonStale(files reach.Files) bool
	RefreshPython(ctx context.Context, files reach.Files)
}

// pyRecordJob names the background job that makes pyright's record.
const pyRecordJob = "pyright's record"

// refreshRecords starts, in the background, pyright's record of imports
// for the disk as snap saw it, unless the one kept is of its shape: the
// next check's dependants take it (no check waits for a whole pyright
// run). One job, superseded by the next disk state's, shown by 'anvil
// serve status'.
func (v *Validator) refreshRecords(snap *Snapshot) {
	r, ok := v.deps.(pythonRefresher)
	if !ok || v.opts.OneRequest || !r.PythonStale(snap.Files) {
		return
	}
	v.work.run(v.bg, pyRecordJob, "pyright --dependencies", snap.Fingerprint, "pyright's record of imports, for the next check's dependants", []string{"."}, pyImportsBound,
		func(ctx context.Context, _ string) { r.RefreshPython(ctx, snap.Files) })
}
