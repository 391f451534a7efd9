package shadow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/pyconfig"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// Strategy chooses how a server's share of a validation is checked.
type Strategy string

const (
	// StrategyAuto picks what should finish first: the server file by
	// file for a few files, the project's batch checker over a shadow
	// tree when the files are many (see chooseBatch).
	StrategyAuto Strategy = "auto"
	// StrategyPerFile always asks the server, file by file.
	StrategyPerFile Strategy = "per-file"
	// StrategyBatch uses the batch checker whenever it can check the
	// files at all (tests force it).
	StrategyBatch Strategy = "batch"
)

// costs learns how long checks take, per server: milliseconds per
// question asked of the server (one file's diagnostics at one state: an
// "after", or a "before" the server does not keep from an earlier check),
// and per batch run over a changed tree. The first figures are priors
// measured on real projects (docs/benchmarks.md); each check moves them.
//
// The unit is the question, not the file: a file the server is asked
// about costs one question or two, as its "before" is kept or not, and a
// check of one file (two questions, its import chain loaded) taught a
// cost per file twice the one its importers then cost, which sent rich's
// interface changes to the command line at twice the warm server's time.
type costs struct {
	mu          sync.Mutex
	perQuestion map[string]float64 // ms per question, by server
	batch       map[string]float64 // ms per run over a changed tree, by server
}

// Priors, measured warm on 2 cores: tsserver answers a question in
// 15-30 ms (tldraw's importers: 16 for a rename's, 30 for an interface
// change's), TypeScript 7's server in 1-2, pyright in about 110 (rich's
// importers: 95-135); TypeScript 6's tsc checks a 1,500-file project in
// about 2-3 s (less with its incremental state), TypeScript 7's in under
// 1 s, the pyright command line a small project in about 10 s.
var (
	perQuestionPrior = map[string]float64{"tsserver": 25, "tsgo": 2, "pyright": 110}
	batchPrior       = map[string]float64{"tsserver": 2500, "tsgo": 800, "pyright": 10000}
)

const ewma = 0.3

// minLearnQuestions is the least a check must ask of a server to teach
// its cost per question. A check of a file or two is mostly the file's
// own import chain loaded into the checker (rich: 130-280 ms a question
// for one file, 1.5 s on the server's first check, 95-125 ms for 61
// importers), and the choice the cost serves is only ever between many
// questions and a batch run.
const minLearnQuestions = 8

// perFileRun is the expected time of asking server questions questions.
func (c *costs) perFileRun(server string, questions int) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	pq, ok := c.perQuestion[server]
	if !ok {
		pq = perQuestionPrior[server]
		if pq == 0 {
			pq = 25
		}
	}
	return pq * float64(questions)
}

// batchRun is the expected time of one batch run of checker over a
// changed tree, with the unchanged tree's answer kept or not.
func (c *costs) batchRun(checker string, baselineKept bool) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.batch[checker]
	if !ok {
		b = batchPrior[checker]
	}
	if !baselineKept {
		b *= bothTrees
	}
	return b
}

// bothTrees is what a batch run costs beside the unchanged tree's, in
// runs of one: the two run at once, on Node, whose own threads take most
// of a second core, so two take about 1.7 times one.
const bothTrees = 1.7

// learnBatch learns checker's cost of one run over a changed tree from a
// run that took elapsed, beside the unchanged tree's (both) or not. Both
// count: a project whose unchanged tree's answer is never kept when the
// batch checker runs (the end of every turn of a hooked agent is on a new
// disk state) would otherwise keep the prior for ever, and date-fns' tsc,
// 10 s a run against a prior of 2.5, took every turn's end from tsserver's
// 1.4-2.2 s.
func (c *costs) learnBatch(checker string, elapsed time.Duration, both bool) {
	ms := float64(elapsed.Milliseconds())
	if both {
		ms /= bothTrees
	}
	c.learn(c.batch, checker, ms)
}

// learnQuestions learns server's cost per question from a check that
// asked it asked questions in elapsed, if it asked enough to tell.
func (c *costs) learnQuestions(server string, asked int, elapsed time.Duration) {
	if asked >= minLearnQuestions {
		c.learn(c.perQuestion, server, float64(elapsed.Milliseconds())/float64(asked))
	}
}

func (c *costs) learn(m map[string]float64, server string, v float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := m[server]; ok {
		v = old*(1-ewma) + v*ewma
	}
	m[server] = v
}

// batchFaster decides for the batch checker when its runs (one per
// project) are expected to finish before the server's questions: the
// smaller estimate wins. A margin for the server (it once had one of
// half as much again, for the fast rejection its estimate does not count)
// sent tldraw's later interface change, 608 importers, to tsserver for
// 37 s against the batch checker's 24 s in the same run.
func batchFaster(perFile, batchRun float64, runs int) bool {
	return batchRun*float64(runs) < perFile
}

// batchers keeps one batch checker per server of a validator.
type batchers struct {
	mu  sync.Mutex
	by  map[string]*batch.Checker
	dir string
	// projects are the project checkers ([check], cargo check), by kind.
	projects map[string]*projectChecker
}

// workspaceKey names a workspace's state in a directory Anvil shares
// between workspaces.
func workspaceKey(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:8])
}

// batchFor returns the batch checker for srv, or nil when it has none.
func (v *Validator) batchFor(srv *servers.Server) *batch.Checker {
	if v.opts.BatchStateDir == "" {
		return nil
	}
	tool, ok := v.batchTool(srv)
	if !ok {
		return nil
	}
	v.batch.mu.Lock()
	defer v.batch.mu.Unlock()
	name := srv.Spec().Name
	if c, ok := v.batch.by[name]; ok {
		return c
	}
	c := batch.New(v.root.Dir(), tool, filepath.Join(v.opts.BatchStateDir, name), v.opts.Policy)
	v.batch.by[name] = c
	return c
}

// batchTool is the batch checker of the same compiler as srv, if it has
// one: for Go's server, the go command's vet of the module at the root
// (gopls reports every dependant itself, so only what it reads from disk
// alone, go.sum, and the truth replay holds the gate to need it).
func (v *Validator) batchTool(srv *servers.Server) (batch.Tool, bool) {
	if bc, ok := srv.BatchCommand(); ok {
		return batchToolOf(bc), true
	}
	if slices.Contains(srv.Spec().Languages, "go") {
		if _, err := os.Stat(v.root.Abs("go.mod")); err == nil {
			return goVetTool(filepath.Join(v.opts.BatchStateDir, "go-build")), true
		}
	}
	return batch.Tool{}, false
}

// batchProject returns the project (a tsconfig.json for tsc, pyright's
// directory) whose run of a batch checker of kind checks the file abs;
// false when no run would: a file no tsconfig.json includes (tsc -p would
// not check it), a file pyright's configuration leaves out (the command
// line would skip it).
func (v *Validator) batchProject(projects *tsconfig.Projects, kind batch.Kind, abs string) (string, bool) {
	switch kind {
	case batch.TSC:
		owner := projects.Owner(abs)
		if owner == nil {
			return "", false
		}
		return owner.Path, true
	case batch.Command:
		// A command checks the whole workspace from its root.
		return v.root.Dir(), true
	case batch.Pyright:
		rel, err := v.root.Rel(abs)
		if err != nil {
			return "", false
		}
		cfg := pyconfig.Nearest(v.root.Dir(), rel)
		if !cfg.Covers(rel) {
			return "", false
		}
		return v.root.Abs(cfg.Dir), true
	}
	return "", false
}

// batchPlan is a batch check that can take a group: the projects to run
// the checker for.
type batchPlan struct {
	checker *batch.Checker
	// configs are the projects (a tsconfig.json, or pyright's directory).
	configs []string
	// native says why TypeScript 7's tsc runs in place of the project's
	// own (see tsagree.go); "" when the project's own checker runs.
	native string
	// holdNative: the project's own tsc runs (a commit, a turn's end), and
	// TypeScript 7, which agreed so far, is held to its answer.
	holdNative bool
	// costKey names the checker's costs (the server's name, or "tsgo"
	// for TypeScript 7 in place of tsserver's tsc).
	costKey string
}

// chooseBatch decides whether the batch checker checks files (the
// group's changed files and dependants, absolute) rather than the server:
// it must be able to check every one of them (each in a project it runs),
// and, under the auto strategy, be expected to finish first, unless only
// it can check them (must), whatever the strategy.
func (v *Validator) chooseBatch(w checkWork, files []string, must bool) *batchPlan {
	g := w.g
	if v.opts.Strategy == StrategyPerFile && !must {
		return nil
	}
	c := v.batchFor(g.server)
	if c == nil {
		return nil
	}
	plan := &batchPlan{checker: c, costKey: g.server.Spec().Name}
	seen := map[string]bool{}
	projects := tsconfig.NewProjects(v.root.Dir())
	for _, abs := range files {
		project, ok := v.batchProject(projects, c.Tool().Kind, abs)
		if !ok {
			return nil
		}
		if !seen[project] {
			seen[project] = true
			plan.configs = append(plan.configs, project)
		}
	}
	if len(plan.configs) == 0 {
		// No file to check (a group that only deletes, its deleted files
		// left to the server's verdict): no run would check anything,
		// and a run of nothing is no evidence.
		return nil
	}
	if nc, why := v.nativeFor(c, w.snap, plan.configs); nc != nil {
		if w.confirm {
			// The project's own compiler confirms a commit and the end
			// of a turn, and TypeScript 7 is held to its answer.
			plan.holdNative = true
		} else {
			plan.checker, plan.native, plan.costKey = nc, why, "tsgo"
		}
	}
	if v.opts.Strategy == StrategyBatch || must {
		return plan
	}
	perFile := v.costs.perFileRun(g.server.Spec().Name, g.server.Questions(w.req))
	kept := true
	for _, config := range plan.configs {
		kept = kept && plan.checker.Ready(config, w.snap.Fingerprint)
	}
	if !batchFaster(perFile, v.costs.batchRun(plan.costKey, kept), len(plan.configs)) {
		return nil
	}
	return plan
}

// batchChecker checks a group with the batch checker over a shadow tree:
// every file of the projects of plan, which hold files (the changed files
// and dependants the server would have been asked about, absolute).
type batchChecker struct {
	v     *Validator
	plan  *batchPlan
	files []string
}

func (b batchChecker) label() string { return b.plan.checker.Tool().Label }

// check runs the plan, bounded by the load timeout. A run the bound cut
// is unverified; any other failure may be made up for by the server.
func (b batchChecker) check(ctx context.Context, w checkWork) (evidence, error) {
	if len(b.plan.configs) == 0 {
		// Its silence would read as an answer about every file (whole).
		return evidence{}, &unverifiableError{b.label() + " had no project to run for these files"}
	}
	ctx, cancel := context.WithTimeout(ctx, b.v.opts.LoadTimeout)
	defer cancel()
	b.v.progress(w.g.say, Progress{Server: b.label(), Stage: "checking", Files: len(b.files)})
	cr, via, incomplete, err := b.v.batchCheck(ctx, w.snap, w.g, b.plan, b.files)
	if err != nil {
		if ctx.Err() != nil {
			return evidence{}, &unverifiableError{describeFailure(ctx, b.label(), err)}
		}
		return evidence{}, err
	}
	if b.plan.native == "" {
		// The project's tsc answered for the unchanged tree: TypeScript
		// 7's proof needs only its own run now (a project below the size
		// warmed ahead is proven here).
		b.v.proveAfter(w.snap, w.g, b.plan)
	}
	return evidence{cr: cr, via: via, whole: true, incomplete: incomplete, stoodIn: b.plan.native != ""}, nil
}

// batchCheck checks the group with the batch checker over a shadow tree,
// and answers in a server check's form. files are the changed files and
// dependants (absolute) the server would have been asked about; the
// checker checks them all, and every other file of the projects.
// incomplete says why a run over the changed tree stopped short of
// checking every file (tsc at a syntax error: its silence is then no
// evidence), "" when none did.
func (v *Validator) batchCheck(ctx context.Context, snap *Snapshot, g *group, plan *batchPlan, files []string) (cr servers.CheckResult, via, incomplete string, err error) {
	var changes []batch.Change
	fresh := false
	for _, c := range g.changes {
		changes = append(changes, batch.Change{Path: c.Path, Content: c.Content, Delete: c.Delete})
		// A configuration file changes how everything is checked: no
		// incremental state of the unchanged tree applies.
		fresh = fresh || reach.Global(c) || servers.LanguageOf(c.Path) == ""
	}
	cr = servers.CheckResult{Before: map[string][]lsp.Diagnostic{}, After: map[string][]lsp.Diagnostic{}}
	var notes, stopped []string
	held := map[string]*batch.Result{} // the project's answers TypeScript 7 is held to
	start := time.Now()
	ready := true // every project's answer for the unchanged tree was kept
	for _, config := range plan.configs {
		res, err := plan.checker.Check(ctx, config, snap.Fingerprint, changes, fresh)
		if err != nil {
			return cr, "", "", err
		}
		if res.Incomplete != "" {
			stopped = append(stopped, res.Incomplete)
		}
		ready = ready && !res.Baseline
		v.costs.learnBatch(plan.costKey, res.Elapsed, res.Both)
		if plan.holdNative {
			held[config] = res
		}
		for p, d := range res.Before {
			cr.Before[p] = append(cr.Before[p], d...)
		}
		for p, d := range res.After {
			cr.After[p] = append(cr.After[p], d...)
		}
	}
	// Once every project's answer is in: TypeScript 7's runs on the
	// change only say whether it agreed, and cannot cost the verdict.
	for _, config := range plan.configs {
		if res := held[config]; res != nil {
			if note := v.holdNative(ctx, plan.checker.Tool().Label, config, snap, changes, fresh, res); note != "" {
				notes = append(notes, note)
			}
		}
	}
	markChecked(&cr, files, len(stopped) == 0)
	label := plan.checker.Tool().Label
	if plan.native != "" {
		label += " (" + plan.native + ")"
	}
	via = fmt.Sprintf("batch: %s over the whole of %d %s in a shadow tree, %s", label, len(plan.configs), plural(len(plan.configs), "project", "projects"), time.Since(start).Round(time.Millisecond))
	if ready {
		via += "; the unchanged tree's answer was ready"
	}
	for _, n := range notes {
		via += "; " + n
	}
	return cr, via, strings.Join(stopped, "; "), nil
}

// warmBatchFiles is the project size from which the batch checker's
// answer for the unchanged tree is computed ahead of need (unless
// Options.WarmBatchFiles says otherwise): projects where a change with
// many dependants goes to the batch checker, which would otherwise run
// twice for its first check (the unchanged tree, then the change).
const warmBatchFiles = 400

// warmBatch starts, in the background and at a low priority, the batch
// checker's run over the unchanged tree for the projects of g's files,
// when the project is large: the time between checks (the model thinking,
// the user reading) pays for it.
func (v *Validator) warmBatch(snap *Snapshot, g *group) {
	if !v.opts.WarmBatch || v.opts.OneRequest || v.opts.Strategy == StrategyPerFile {
		return
	}
	c := v.batchFor(g.server)
	if c == nil {
		return
	}
	n := 0
	for rel := range snap.Files {
		if servers.LanguageOf(rel) == g.lang {
			n++
		}
	}
	if n < v.opts.WarmBatchFiles {
		return
	}
	projects := tsconfig.NewProjects(v.root.Dir())
	var configs []string
	for _, ch := range g.changes {
		var config string
		switch c.Tool().Kind {
		case batch.TSC:
			if owner := projects.Owner(v.root.Abs(ch.Path)); owner != nil {
				config = owner.Path
			}
		case batch.Pyright:
			config = v.root.Abs(pyconfig.Nearest(v.root.Dir(), ch.Path).Dir)
		}
		if config != "" && !slices.Contains(configs, config) && (!c.Ready(config, snap.Fingerprint) || v.wantsProof(c, config, snap)) {
			configs = append(configs, config)
		}
	}
	if len(configs) == 0 {
		return
	}
	why := "the unchanged tree's answer, for the next check of a change with many dependants"
	if nc := v.native(); nc != nil && c.Tool().Kind == batch.TSC {
		why += fmt.Sprintf(", by %s and by %s, which takes the project's batch runs where the two agree", c.Tool().Label, nc.Tool().Label)
	}
	// One job per checker, cancelled by the next disk state (see
	// background.go); each project's run bounded like any batch run. A
	// check waiting for the answer waits within its own context.
	v.work.run(v.bg, g.server.Spec().Name, c.Tool().Label, snap.Fingerprint, why, configs, v.opts.LoadTimeout, v.warmAndProve(c, snap, g.server))
}

// warmAndProve is the work of a checker's background job for a project
// at snap's disk state: its answer for the unchanged tree (and, from a
// whole run, the checker's cost), tsserver's answers for the files that
// answer has errors in (askErrorFilesAhead), then, for the project's
// tsc, TypeScript 7's proof. One function for every job of the
// checker, since a job for the same state takes the projects another
// caller asks for.
func (v *Validator) warmAndProve(c *batch.Checker, snap *Snapshot, srv *servers.Server) func(ctx context.Context, config string) {
	costKey := srv.Spec().Name
	return func(ctx context.Context, config string) {
		ran := c.Warm(ctx, config, snap.Fingerprint)
		if ran > 0 {
			// A whole run over the project (Warm reports no other): what
			// a change that reaches most of it costs, known before the
			// first change that weighs it (the prior, 2.5 s, sent
			// tldraw's first interface change to a 25 s tsc where
			// tsserver takes 17-21 s).
			v.costs.learnBatch(costKey, ran, false)
		}
		if spec := srv.Spec(); spec.Mode == servers.ModeTSServer && !spec.ReportsDependants {
			if diags, ok := c.Baseline(config, snap.Fingerprint); ok {
				v.askErrorFilesAhead(ctx, srv, config, diags, snap.Fingerprint)
			}
		}
		if c.Tool().Kind == batch.TSC {
			v.prove(ctx, c, snap, config)
		}
	}
}

// batchToolOf is the batch checker that runs a server's compiler.
func batchToolOf(bc servers.BatchCompiler) batch.Tool {
	return batch.Tool{Kind: batch.Kind(bc.Kind), Argv: bc.Argv, Label: bc.Label, FreshBaselines: bc.FreshState}
}
