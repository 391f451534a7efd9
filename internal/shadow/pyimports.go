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
