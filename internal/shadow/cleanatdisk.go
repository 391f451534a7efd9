package shadow

import (
	"slices"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// cleanAtDisk names the files of w's request (changed and dependants,
// absolute) that the project's own batch checker, the server's compiler,
// found without an error at the disk state the check compares with: the
// answer the background warm-up keeps for a large project
// (warmBatch). Their "before" need not be asked of the server
// (servers.CheckRequest.CleanAtDisk), so a change that reaches most of a
// project costs the server one question a file, not two, and stays with
// the server where it is the faster: tldraw's interface change, 608
// files, 17 s through tsserver's "after" answers alone against 24-30 s
// for tsc over the changed tree (docs/benchmarks.md).
//
// Sound whichever way it errs: an empty "before" can only have a file's
// old errors read as new ones, never hide a new one. So a file counts
// only where the run said something about the file's project as a whole:
// its project is the one the run checked (tsconfig ownership, pyright's
// configuration covering it), and the run reported no error of no file
// (a configuration the checker could not read).
func (v *Validator) cleanAtDisk(w checkWork) map[string]bool {
	if w.g.server == nil || w.req.BaselineKey == "" {
		return nil
	}
	c := v.batchFor(w.g.server)
	if c == nil || (c.Tool().Kind != batch.TSC && c.Tool().Kind != batch.Pyright) {
		return nil
	}
	projects := tsconfig.NewProjects(v.root.Dir())
	type answer struct {
		diags  map[string][]lsp.Diagnostic
		usable bool
	}
	answers := map[string]answer{} // by project
	clean := map[string]bool{}
	files := slices.Clone(w.req.Dependants)
	for _, f := range w.req.Files {
		if f.OldExists && !f.Config {
			files = append(files, f.Path)
		}
	}
	for _, abs := range files {
		project, ok := v.batchProject(projects, c.Tool().Kind, abs)
		if !ok {
			continue
		}
		a, seen := answers[project]
		if !seen {
			d, ok := c.Baseline(project, w.req.BaselineKey)
			a = answer{diags: d, usable: ok && !hasError(d[""])}
			answers[project] = a
		}
		if a.usable && !hasError(a.diags[abs]) {
			clean[abs] = true
		}
	}
	if len(clean) == 0 {
		return nil
	}
	return clean
}
