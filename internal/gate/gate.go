// Package gate is the one place that decides whether a change set reaches
// the user's files: it validates it in the shadow workspace and, only if
// the verdict is clean, commits it through the journal, holding the
// workspace's lock from the validation to the end of the commit so that
// nothing another Anvil run does falls between the two. The CLI's
// 'anvil check --commit' and the Executor's commit both go through here.
package gate

import (
	"context"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Gate validates and commits change sets for one workspace.
type Gate struct {
	validator *shadow.Validator
	journal   *journal.Journal
	run       RunStage
	running   bool
}

// RunStage builds a change set and runs its tests in a shadow tree
// (internal/testrun).
type RunStage interface {
	Run(ctx context.Context, set *changeset.Set) *shadow.RunReport
}

// New returns a gate over a workspace's validator and journal; run may be
// nil (no run stage).
func New(v *shadow.Validator, j *journal.Journal, run RunStage) *Gate {
	return &Gate{validator: v, journal: j, run: run}
}

// Running returns a gate whose checks and commits also run the run stage
// once the language servers found the change clean: a change that makes a
// build or a test fail is then rejected, and one the stage could not run
// is unverified.
func (g *Gate) Running() *Gate {
	c := *g
	c.running = g.run != nil
	return &c
}

// Plain returns a gate that does not run the run stage.
func (g *Gate) Plain() *Gate {
	c := *g
	c.running = false
	return &c
}

// RunTests runs the run stage alone on set (the Executor's run_tests):
// nil when the gate has none.
func (g *Gate) RunTests(ctx context.Context, set *changeset.Set) *shadow.RunReport {
	if g.run == nil {
		return nil
	}
	return g.runStage(ctx, set, false)
}

// runStage runs the run stage on set. Its shadow tree lies over the
// workspace, so the workspace must not change under it: unless the caller
// holds the workspace's lock already (a commit), the stage takes it for
// its run, and another Anvil commit waits; an edit by anyone else is
// caught by the stage (the run is then unverified).
func (g *Gate) runStage(ctx context.Context, set *changeset.Set, locked bool) *shadow.RunReport {
	if !locked {
		lock, err := g.journal.Lock(ctx, nil)
		if err != nil {
			return &shadow.RunReport{Status: shadow.RunError, Reason: "waiting for the workspace's lock to hold it still for the run: " + err.Error()}
		}
		defer lock.Unlock()
	}
	return g.run.Run(ctx, set)
}

// Check validates set within scope and writes nothing. attempt numbers
// the try for the shadow log; progress (nil for none) is told what the
// check is doing.
func (g *Gate) Check(ctx context.Context, set *changeset.Set, attempt int, scope shadow.Scope, progress func(shadow.Progress)) (*shadow.Result, error) {
	return g.validate(ctx, set, attempt, scope, progress, false)
}

// validate checks set with the servers and, on a running gate, then with
// the run stage: passed keeps the verdict clean, failed rejects, and any
// other status (no test ran, nothing to run, a baseline that already
// fails without per-test results, a stage that could not run) is no
// evidence, so the verdict is unverified. locked says the caller holds
// the workspace's lock.
func (g *Gate) validate(ctx context.Context, set *changeset.Set, attempt int, scope shadow.Scope, progress func(shadow.Progress), locked bool) (*shadow.Result, error) {
	res, err := g.validator.Validate(ctx, set, attempt, scope, progress)
	if err != nil || !g.running || res.Verdict != shadow.Clean {
		return res, err
	}
	rep := g.runStage(ctx, set, locked)
	res.Run = rep
	switch rep.Status {
	case shadow.RunPassed:
	case shadow.RunFailed:
		res.Verdict = shadow.Rejected
	default:
		res.Verdict = shadow.Unverified
		res.Unverified = append(res.Unverified, shadow.Skipped{Path: "(run stage)", Reason: rep.Status + ": " + rep.Reason})
	}
	return res, nil
}

// Outcome is what Commit did.
type Outcome struct {
	// Result is the validation's verdict, nil if the lock was never taken.
	Result *shadow.Result
	// Entry is the commit, nil unless the verdict was clean and the commit
	// went through.
	Entry *journal.Entry
}

// Commit takes the workspace's lock (waiting, if set, is told who holds
// it while Commit waits), validates set (telling progress, if set, what
// the check is doing) and, if the verdict is clean,
// commits it with message before releasing the lock. A verdict that is
// not clean writes nothing and is no error: the outcome carries it. The
// error is the journal's: a [*journal.ConflictError] when a file changed
// since the change set was read, [journal.ErrNothingToCommit], or a
// failure.
func (g *Gate) Commit(ctx context.Context, set *changeset.Set, attempt int, message string, progress func(shadow.Progress), waiting func(holder string)) (Outcome, error) {
	lock, err := g.journal.Lock(ctx, waiting)
	if err != nil {
		return Outcome{}, err
	}
	defer lock.Unlock()
	// A commit's check is never narrowed, and the project's own
	// compilers decide it.
	res, err := g.validate(ctx, set, attempt, shadow.Scope{Confirm: true}, progress, true)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Result: res}
	if res.Verdict != shadow.Clean {
		return out, nil
	}
	out.Entry, err = g.journal.Commit(ctx, lock, set, message)
	return out, err
}
