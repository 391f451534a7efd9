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
// answer the background warm-up keeps for a large project (warmBatch).
// The server then spares their "before" (servers.CheckRequest.CleanAtDisk:
// tsserver asks it only where the "after" has an error), so a change that
// reaches most of a project costs one question a file, not two, and stays
// with the server where that is the faster: tldraw's interface change,
// 608 files, 17-21 s through tsserver against 22-30 s for tsc over the
// changed tree (docs/benchmarks.md).
//
// Sound whichever way it errs: an empty "before" can only have a file's
// old errors read as new ones, never hide a new one. A file counts only
// where the run's answer covers it: its project is the one the run built
// (tsconfig ownership, pyright's configuration covering it), and the run
// was whole (batch.Checker keeps no answer of a run that reported an
// error of no file, or whose checker stopped early: tsc at a syntax
// error, after which it checks no types anywhere).
func (v *Validator) cleanAtDisk(w checkWork) map[string]bool {
	if w.g.server == nil || w.req.BaselineKey == "" {
		return nil
	}
	c := v.batchFor(w.g.server)
	if c == nil || (c.Tool().Kind != batch.TSC && c.Tool().Kind != batch.Pyright) || !c.AnyReady(w.req.BaselineKey) {
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
			a = answer{diags: d, usable: ok}
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
