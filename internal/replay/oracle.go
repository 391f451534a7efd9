package replay

import (
	"context"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Runs chooses the batch checker runs that check files: a workspace's
// [shadow.Validator].
type Runs interface {
	BatchRuns(rels []string) ([]*shadow.BatchRun, []shadow.Skipped)
}

// oracle is the project's own batch checker, the truth a case's gate
// verdict is held to: each run over the whole project, before and after
// the change, and the errors after that were not there before.
type oracle struct {
	root     string
	stateDir string
	policy   *execpolicy.Policy
	// checkers are by tool label: each keeps its answer for the
	// unchanged tree while the cases of one commit ask.
	checkers map[string]*batch.Checker
}

// answer is the checker's verdict on one case.
type answer struct {
	verdict Verdict
	// errors are the new errors ("file: code: message"); reason says why
	// there is no verdict.
	errors []string
	reason string
	took   time.Duration
}

// check answers for the change set specs over the tree identified by
// state (the parent's tree object).
func (o *oracle) check(ctx context.Context, runs Runs, state string, specs []changeset.Spec) answer {
	start := time.Now()
	a := o.answer(ctx, runs, state, specs)
	a.took = time.Since(start)
	return a
}

func (o *oracle) answer(ctx context.Context, runs Runs, state string, specs []changeset.Spec) answer {
	var rels []string
	var changes []batch.Change
	for _, s := range specs {
		rels = append(rels, s.Path)
		c := batch.Change{Path: s.Path, Delete: s.Delete}
		if s.Content != nil {
			c.Content = []byte(*s.Content)
		}
		changes = append(changes, c)
	}
	list, uncovered := runs.BatchRuns(rels)
	var reasons []string
	for _, u := range uncovered {
		reasons = append(reasons, u.Path+": "+u.Reason)
	}
	var found []string
	for _, run := range list {
		c := o.checker(run.Tool)
		// fresh: a full run over the changed tree, as the project's own
		// build runs it, never a state the incremental checker kept.
		res, err := c.Check(ctx, run.Config, state, changes, true)
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		errs := newErrors(o.root, res.Before, res.After)
		if res.Incomplete != "" && len(errs) == 0 {
			reasons = append(reasons, run.Tool.Label+" stopped early: "+res.Incomplete)
		}
		found = append(found, errs...)
	}
	switch {
	case len(found) > 0:
		return answer{verdict: Rejected, errors: found}
	case len(reasons) > 0:
		return answer{verdict: Unverified, reason: strings.Join(reasons, "; ")}
	}
	return answer{verdict: Clean}
}

func (o *oracle) checker(tool batch.Tool) *batch.Checker {
	if c, ok := o.checkers[tool.Label]; ok {
		return c
	}
	c := batch.New(o.root, tool, filepath.Join(o.stateDir, fmt.Sprint(len(o.checkers))), o.policy)
	o.checkers[tool.Label] = c
	return c
}

// newErrors returns the errors of after that before does not have
// ([batch.NewErrors]), as "file: code: message" relative to root.
func newErrors(root string, before, after map[string][]lsp.Diagnostic) []string {
	out := batch.NewErrors(errorKeys(root, before), errorKeys(root, after))
	sort.Strings(out)
	return out
}

// errorKeys lists the errors of diags as "file: code: message".
func errorKeys(root string, diags map[string][]lsp.Diagnostic) []string {
	var keys []string
	for abs, ds := range diags {
		rel, err := filepath.Rel(root, abs)
		if err != nil || abs == "" {
			rel = "."
		}
		for _, d := range ds {
			if d.IsError() {
				keys = append(keys, filepath.ToSlash(rel)+": "+d.CodeString()+": "+d.Message)
			}
		}
	}
	return keys
}
