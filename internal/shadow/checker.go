package shadow

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// Every way a group is checked is a checker, and the validator decides
// everything around the check once, whatever ran (checkGroup): which
// checker (pick), what to do when it fails (a batch run that fails falls
// back to the server, where the server can answer), and how its answer
// becomes a verdict (judge: pairing, errors of no file, a run that did
// not finish or never read a changed file).
//
//	serverChecker   a language server, file by file, the change as overlays (for
//	                clangd, the compiler for the includers: cfamily.go); for a
//	                project on TypeScript 6 or older, TypeScript 7's server in
//	                tsserver's place where it agrees, or held to tsserver's
//	                answer at a commit and a turn's end (tsagree_server.go)
//	batchChecker    the project's batch checker (tsc, pyright) over a shadow tree (strategy.go)
//	projectChecker  the project's own checker ([check], cargo check) over a shadow tree (projectcheck.go)
//
// Each bounds its own waits below the context it is given, by the
// validator's Options, and says what it waited for when a bound cut it.
type checker interface {
	// label names what checks, in a verdict and in progress.
	label() string
	// check runs w past the checker. An *unverifiableError says why the
	// change cannot be checked, and no other checker is tried; another
	// error is the checker's failure, which a fallback may make up for.
	check(ctx context.Context, w checkWork) (evidence, error)
}

// checkWork is what a checker is asked about: a group's changes over a
// snapshot, as a server check's request (the changed files, and the
// dependants the validator found for a server that does not report
// them).
type checkWork struct {
	snap *Snapshot
	g    *group
	req  servers.CheckRequest
	// unimported are the deleted files (absolute) the request asks about
	// no dependant of: nothing the import graph knows reads them.
	unimported []string
	// recorded: the dependants come with TypeScript's own record of the
	// imports of every project (reach.Dependants.Recorded).
	recorded bool
	// coldPython: the dependants of a Python change are Anvil's reading
	// alone, pyright's record not made yet (reach.Dependants.PythonUnrecorded).
	coldPython bool
	// confirm: the project's own compiler decides (Scope.Confirm, or
	// Complete: the end of a hooked agent's turn).
	confirm bool
	// global: a changed file's effects travel outside its imports
	// (reach.Dependants.Global).
	global bool
}

// evidence is a checker's answer, in one form whatever ran.
type evidence struct {
	cr  servers.CheckResult
	via string
	// whole: the checker ran over every file of the group's projects and
	// finished, so its silence about a file is an answer: no error there.
	whole bool
	// incomplete says what a finished run left unchecked (cargo stops at
	// a crate that does not build): without a new error, unverified.
	incomplete string
	// unread are changed files (workspace-relative) the checker's own
	// record of what it read does not name: its silence about them is no
	// evidence.
	unread []string
	// stoodIn: TypeScript 7 answered in place of the project's compiler
	// (tsagree.go), whose answers alone a later check may reuse.
	stoodIn bool
}

// pick chooses the checker for w, and the one to fall back on if it
// fails; unverified says why no checker can check w.
func (v *Validator) pick(w checkWork) (chk, fallback checker, unverified string) {
	g := w.g
	if g.project != nil {
		return g.project, nil, ""
	}
	spec := g.server.Spec()
	if len(g.diskConfig) > 0 {
		// Configuration the server reads only from disk: only a run
		// that reads the changed tree can check it.
		plan, why := v.configPlan(w.snap, g, batchFiles(w.req))
		if plan == nil {
			return nil, nil, configUnverifiable(spec, g.diskConfig[0]) + ", and " + why
		}
		return batchChecker{v: v, plan: plan, files: batchFiles(w.req)}, nil, ""
	}
	server := serverChecker{v: v, srv: g.server}
	if spec.ReportsDependants {
		return server, nil, ""
	}
	// A server that resolves imports from disk cannot see a created or
	// deleted file take over (or give back) a name its dependants import.
	mustBatch := spec.ResolvesFromDisk && len(w.req.Dependants) > 0 && createsOrDeletes(g.changes)
	// pyright's server answers as the workspace root's project does; a
	// file of a nested pyright project (a folder configured on its own)
	// is its project's to judge, as `pyright -p` of it checks it.
	nested := v.inNestedPyrightProject(g.server, batchFiles(w.req))
	// A change whose effects travel outside its imports (declare global,
	// an augmentation, a script) may break an installed package's
	// declaration file, which the server is never asked about: only a
	// whole-program run of a project that checks libraries reports it
	// (measured: tsc placed TS2717 in node_modules/lib/index.d.ts alone,
	// the package coming after the changed file in the program).
	libs := w.global && v.checksLibraries(g.server, batchFiles(w.req))
	// A created file no module can carry into its project, tsserver
	// would check with default options, not its project's.
	unplaced := g.server.Unplaceable(w.req)
	mustBatch = mustBatch || nested || libs || len(unplaced) > 0
	// A deleted file nothing is seen to import: the import graph is
	// Anvil's reading, no evidence that nothing reads it, and the server
	// has no file left to report on. The project's batch checker decides.
	deleted := w.unimported
	if len(deleted) > 0 && !soleProject(w.snap) {
		// The batch checker runs the deleted file's own project: with
		// other projects beside it, an importer there the graph missed
		// would go unchecked.
		deleted = nil
	}
	files := batchFiles(w.req)
	// Before pyright's record of imports exists, an importer Anvil's
	// reading misses would go unchecked: the batch checker, which reads
	// the whole of every project, decides where it can (unless the
	// server is asked for by name: the per-file strategy).
	cold := w.coldPython && v.opts.Strategy != StrategyPerFile
	planned := append(slices.Clone(files), deleted...)
	if cold {
		// Every pyright project's: the importer it misses may lie in
		// another project than the changed file's.
		planned = append(planned, v.pythonProjectFiles(w.snap)...)
	}
	plan := v.chooseBatch(w, planned, mustBatch || len(deleted) > 0 || cold)
	switch {
	case plan == nil && nested:
		return nil, nil, fmt.Sprintf("%s answers as the workspace's root project does, and a file here belongs to a nested pyright project, which no batch checker can check here", spec.Name)
	case plan == nil && libs:
		return nil, nil, fmt.Sprintf("the change's effects travel outside its imports, so it may break an installed package's declaration file, which %s is not asked about and only the project's tsc reports, and no batch checker can check it here", spec.Name)
	case plan == nil && len(unplaced) > 0:
		first := slices.Sorted(maps.Keys(unplaced))[0]
		return nil, nil, (&servers.NotPlacedError{Path: first, Why: unplaced[first]}).Error() + ", and no batch checker can check it here"
	case plan == nil && mustBatch:
		return nil, nil, fmt.Sprintf("%s resolves imports from the files on disk, so the files that import a created or deleted file cannot be checked with it as an overlay, and no batch checker can check them here", spec.Name)
	case plan == nil:
		if native := v.nativeServer(w); native != nil {
			return native, server, ""
		}
		if held := v.heldServer(w, server); held != nil {
			return held, nil, ""
		}
		return server, nil, ""
	case mustBatch:
		return batchChecker{v: v, plan: plan, files: files}, nil, ""
	}
	return batchChecker{v: v, plan: plan, files: files}, server, ""
}

// serverChecker checks with a language server, file by file: the
// changed files as overlays, then their dependants. A server that reads
// included files from disk (clangd: ReadsDiskIncludes) checks the changed
// files it can see whole, and the compiler every translation unit that
// includes a changed file (see cfamily.go).
type serverChecker struct {
	v   *Validator
	srv *servers.Server
}

func (s serverChecker) label() string { return s.srv.Spec().Name }

func (s serverChecker) check(ctx context.Context, w checkWork) (evidence, error) {
	return s.v.withServer(ctx, s.srv, w, func(cctx context.Context) (servers.CheckResult, string, error) {
		spec := s.srv.Spec()
		switch {
		case spec.ReadsDiskIncludes:
			// The compiles are bounded by the load timeout below ctx,
			// not by the server's silence.
			return s.v.checkIncludes(cctx, ctx, w.snap, w.g, w.req)
		case spec.ReportsDependants:
			cr, err := s.srv.Check(cctx, w.req)
			return cr, "the server, which reports every affected file", err
		}
		cr, err := s.srv.Check(cctx, w.req)
		return cr, "the server, file by file", err
	})
}

// withServer runs a check with srv in two bounded parts: getting ready
// (starting the server and having it load the project) within the load
// timeout, then run within the validation timeout, which so starts when
// the server is ready for the files in question and stays a bound on a
// hung server. The validation timeout bounds the server's silence, not
// the check: a server answering file after file is slow, not hung; the
// load timeout bounds the whole check.
func (v *Validator) withServer(ctx context.Context, srv *servers.Server, w checkWork, run func(context.Context) (servers.CheckResult, string, error)) (evidence, error) {
	spec := srv.Spec()
	lctx, cancel := context.WithTimeout(ctx, v.opts.LoadTimeout)
	defer cancel()
	if err := v.prepare(lctx, srv, w.req, w.g.say); err != nil {
		return evidence{}, &unverifiableError{describeStartFailure(lctx, spec.Name, v.opts.LoadTimeout, err)}
	}
	cctx, cancelCheck := srv.WatchProgress(ctx, v.opts.Timeout, v.opts.LoadTimeout)
	defer cancelCheck()
	v.progress(w.g.say, Progress{Server: spec.Name, Stage: "checking", Files: len(w.req.Files) + len(w.req.Dependants)})
	start := time.Now()
	cr, via, err := run(cctx)
	if err != nil {
		return evidence{}, &unverifiableError{describeFailure(cctx, spec.Name, err)}
	}
	// The questions the server answered: the "after" of each file it
	// checked, and each "before" it was asked (not kept from before).
	v.costs.learnQuestions(spec.Name, len(cr.Checked)+len(cr.Before)-cr.Reused, time.Since(start))
	// The time until the next check pays for the unchanged tree's
	// answers, which a change with many dependants needs: the batch
	// checker's for a large project, the server's for a small one.
	v.warmBatch(w.snap, w.g)
	v.warmBaseline(w.snap, w.g)
	return evidence{cr: cr, via: via}, nil
}

// checksLibraries reports whether the batch checker of srv is tsc and a
// project owning one of files (absolute) checks declaration files (no
// skipLibCheck), an installed package's among them.
func (v *Validator) checksLibraries(srv *servers.Server, files []string) bool {
	c := v.batchFor(srv)
	if c == nil || c.Tool().Kind != batch.TSC {
		return false
	}
	projects := tsconfig.NewProjects(v.root.Dir())
	for _, abs := range files {
		if owner := projects.Owner(abs); owner != nil && !owner.SkipLibCheck {
			return true
		}
	}
	return false
}
