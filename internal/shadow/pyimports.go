package shadow

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/pyconfig"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
)

// pyImportsBound bounds one run of pyright's record of imports: a whole
// pyright run over the project, seconds on a real one.
const pyImportsBound = 2 * time.Minute

// PythonImports is pyright's record of the imports of the pyright
// projects given (workspace-relative directories), on the disk as it is
// (reach.PythonRecorder): the Python server's batch checker run in each,
// sealed like every batch run, each run bounded by pyImportsBound. The
// files no project's configuration covers are not recorded: for them
// Anvil's reading alone decides, as without a record. One project's run
// that fails fails the record.
func (v *Validator) PythonImports(ctx context.Context, projects []string) (map[string][]string, error) {
	srv, err := v.servers.ForLanguage("python")
	if err != nil {
		return nil, err
	}
	c := v.batchFor(srv)
	if c == nil || c.Tool().Kind != batch.Pyright {
		return nil, errors.New("no pyright command line to record the imports with")
	}
	all := map[string][]string{}
	for _, project := range projects {
		imports, err := v.projectImports(ctx, c, project)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", project, err)
		}
		for from, to := range imports {
			for _, t := range to {
				if !slices.Contains(all[from], t) {
					all[from] = append(all[from], t)
				}
			}
		}
	}
	return all, nil
}

// projectImports is one project's record, bounded by pyImportsBound.
func (v *Validator) projectImports(ctx context.Context, c *batch.Checker, project string) (map[string][]string, error) {
	ctx, cancel := context.WithTimeout(ctx, pyImportsBound)
	defer cancel()
	return c.Imports(ctx, v.root.Abs(project))
}

// pythonRefresher is a DependantFinder that keeps pyright's record of
// imports, made in the background (reach.Graph).
type pythonRefresher interface {
	PythonStale(files reach.Files) bool
	RefreshPython(ctx context.Context, files reach.Files)
}

// pyRecordJob names the background job that makes pyright's record.
const pyRecordJob = "pyright's record"

// inNestedPyrightProject reports whether srv is checked by pyright and a
// file of files (absolute) belongs to a pyright project other than the
// workspace root's: its nearest configuration is a folder's own. The
// language server reads the root's configuration alone (measured: for
// tools/uses.py, in a project of its own, the server kept a namespace
// package's text on disk where an overlay changed it, and answered
// clean where `pyright -p tools` finds the error).
func (v *Validator) inNestedPyrightProject(srv *servers.Server, files []string) bool {
	c := v.batchFor(srv)
	if c == nil || c.Tool().Kind != batch.Pyright {
		return false
	}
	asked := map[string]bool{} // directories whose project was looked for
	for _, abs := range files {
		rel, err := v.root.Rel(abs)
		if err != nil || reach.Family(rel) != "python" || asked[path.Dir(rel)] {
			continue
		}
		asked[path.Dir(rel)] = true
		if pyconfig.Nearest(v.root.Dir(), rel).Dir != "." {
			return true
		}
	}
	return false
}

// pythonProjectFiles returns one Python file (absolute) of each pyright
// project of snap, as the batch checker groups them: a cold start's
// batch run must reach every project, since an importer Anvil's reading
// misses can lie in any of them, and a project's run checks only its own
// files. Files no project's configuration covers are left out: no
// pyright run checks them.
func (v *Validator) pythonProjectFiles(snap *Snapshot) []string {
	var out []string
	for _, p := range reach.PythonProjects(v.root.Dir(), snap.Files) {
		if p.File != "" {
			out = append(out, v.root.Abs(p.File))
		}
	}
	return out
}
