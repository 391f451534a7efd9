// Package testrun is the gate's run stage: after the language servers
// found nothing, it builds the project and runs its tests in a shadow
// tree (internal/sandbox) with the change set, beside the same run on the
// unchanged tree, and reports the failures the change introduces. Tests
// that already failed are reported, never blocking; a test that fails
// with the change is re-run once before it blocks. The user's tree is
// never written: every run happens in a shadow tree.
package testrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Options configure the stage.
type Options struct {
	// Build and Test override the detected commands (shell command lines,
	// run with sh -c); with Test set, pass or fail is the exit status.
	Build, Test string
	// Timeout bounds one run of the stage (the baseline and the change
	// each); zero means 10 minutes.
	Timeout time.Duration
	// Network lets the commands reach the network.
	Network bool
	// Env is the commands' environment; nil means this process's.
	Env []string
	// Importers finds the files that import a change, directly or not
	// (the validator's import graph), for runners that select tests by it
	// (pytest); nil runs every test.
	Importers ImporterFinder
}

// ImporterFinder finds every file that imports one of the changed files,
// directly or through others. Behaviour reaches through function bodies,
// so test selection follows every import, not only interface changes.
type ImporterFinder interface {
	Importers(ctx context.Context, snap *shadow.Snapshot, changes []*changeset.Change, limit int) (shadow.Dependants, error)
}

// Stage runs the stage for one workspace. It caches the unchanged tree's
// results by the tree's content, so a baseline runs once per state of
// the tree.
type Stage struct {
	root *workspace.Root
	opts Options

	mu        sync.Mutex
	baselines map[string]*outcome // by tree fingerprint and command
}

// New returns the stage for root.
func New(root *workspace.Root, opts Options) *Stage {
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	return &Stage{root: root, opts: opts, baselines: map[string]*outcome{}}
}

// outcome is one run of a runner: what passed and failed.
type outcome struct {
	failed map[string]bool
	output map[string]string // a failure's own output
	// retry holds, for each failure that can be re-run alone, what
	// selects it for the runner; the others (a build) are deterministic.
	retry map[string]string
}

func newOutcome() *outcome {
	return &outcome{failed: map[string]bool{}, output: map[string]string{}, retry: map[string]string{}}
}

// selector is a runner that can narrow its tests to those a change set
// can affect.
type selector interface {
	forChanges(ctx context.Context, s *Stage, set *changeset.Set) runner
}

// runner knows one ecosystem's build and tests.
type runner interface {
	// command is what the report names.
	command() string
	// run builds and tests the tree the sandbox holds (with changes);
	// with only set, it re-runs just those tests (outcome.retry values).
	run(ctx context.Context, s *Stage, changes []sandbox.Change, only []string) (*outcome, error)
}

// Run runs the stage for set: nil when nothing applies to the project.
func (s *Stage) Run(ctx context.Context, set *changeset.Set) *shadow.RunReport {
	start := time.Now()
	r := s.detect()
	if r == nil {
		return &shadow.RunReport{Status: shadow.RunSkipped, Reason: "no build or test command found for this project (set [run] test in .anvil/config.toml)"}
	}
	changes := toSandbox(set)
	if sel, ok := r.(selector); ok {
		r = sel.forChanges(ctx, s, set)
	}
	rep := &shadow.RunReport{Command: r.command()}
	defer func() { rep.ElapsedMS = time.Since(start).Milliseconds() }()
	fail := func(err error) *shadow.RunReport {
		rep.Status, rep.Reason = shadow.RunError, err.Error()
		return rep
	}
	ctx, cancel := context.WithTimeout(ctx, 2*s.opts.Timeout)
	defer cancel()
	base, err := s.baseline(ctx, r)
	if err != nil {
		return fail(fmt.Errorf("on the unchanged tree: %w", err))
	}
	now, err := s.bounded(ctx, func(ctx context.Context) (*outcome, error) { return r.run(ctx, s, changes, nil) })
	if err != nil {
		return fail(err)
	}
	var fresh []string
	for name := range now.failed {
		if base.failed[name] {
			rep.Preexisting = append(rep.Preexisting, name)
		} else {
			fresh = append(fresh, name)
		}
	}
	slices.Sort(fresh)
	slices.Sort(rep.Preexisting)
	// A new failure blocks only if it fails again: a build failure is
	// not re-run (it is deterministic), a test is, once.
	var retry []string
	for _, name := range fresh {
		if sel, ok := now.retry[name]; ok && !slices.Contains(retry, sel) {
			retry = append(retry, sel)
		}
	}
	var again *outcome
	if len(retry) > 0 {
		if again, err = s.bounded(ctx, func(ctx context.Context) (*outcome, error) { return r.run(ctx, s, changes, retry) }); err != nil {
			return fail(err)
		}
	}
	var out strings.Builder
	for _, name := range fresh {
		if _, retried := now.retry[name]; retried && again != nil && !again.failed[name] {
			rep.Flaky = append(rep.Flaky, name)
			continue
		}
		rep.Failed = append(rep.Failed, name)
		if o := now.output[name]; o != "" && out.Len() < 8<<10 {
			fmt.Fprintf(&out, "--- %s\n%s\n", name, trimOutput(o, 40))
		}
	}
	rep.Output = out.String()
	rep.Status = shadow.RunPassed
	if len(rep.Failed) > 0 {
		rep.Status = shadow.RunFailed
	}
	return rep
}

// bounded runs fn within the stage's timeout, saying so when it is hit.
func (s *Stage) bounded(ctx context.Context, fn func(context.Context) (*outcome, error)) (*outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	o, err := fn(ctx)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("did not finish within the run timeout (%s); fix: raise it ([run] timeout in .anvil/config.toml)", s.opts.Timeout)
	}
	return o, err
}

// baseline returns the unchanged tree's outcome, from the cache when the
// tree has not changed since it was run.
func (s *Stage) baseline(ctx context.Context, r runner) (*outcome, error) {
	key, err := s.fingerprint(ctx, r.command())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	o := s.baselines[key]
	s.mu.Unlock()
	if o != nil {
		return o, nil
	}
	o, err = s.bounded(ctx, func(ctx context.Context) (*outcome, error) { return r.run(ctx, s, nil, nil) })
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.baselines[key] = o
	s.mu.Unlock()
	return o, nil
}

// fingerprint keys the tree's state: the path, size and modification
// time of every file the ignore rules keep, and the command. Ignored
// directories (node_modules, build outputs) are left out, as walking them
// would cost more than the check: a dependency update is noticed through
// the lock file or manifest that comes with it.
func (s *Stage) fingerprint(ctx context.Context, command string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", command)
	start, err := s.root.Resolve(".")
	if err != nil {
		return "", err
	}
	err = s.root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
		if info, err := os.Lstat(e.Abs); err == nil && !e.IsDir() {
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", e.Rel, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// run runs argv in a shadow tree holding changes.
func (s *Stage) exec(ctx context.Context, changes []sandbox.Change, argv ...string) (*sandbox.Result, error) {
	res, err := sandbox.Run(ctx, sandbox.Spec{Root: s.root.Dir(), Changes: changes, Argv: argv, Env: s.opts.Env, Network: s.opts.Network})
	if err != nil {
		return nil, err
	}
	if res.Killed && ctx.Err() != nil {
		return res, nil // the caller reports the timeout
	}
	return res, nil
}

func toSandbox(set *changeset.Set) []sandbox.Change {
	var out []sandbox.Change
	for _, c := range set.Changes() {
		out = append(out, sandbox.Change{Path: c.Path, Content: c.Content, Delete: c.Delete})
	}
	return out
}

// trimOutput keeps the last n lines of a failure's output.
func trimOutput(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[%d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
