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
	"errors"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/state"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Options configure the stage.
type Options struct {
	// Build and Test override the detected commands (shell command lines,
	// run with sh -c).
	Build, Test string
	// Report is where the configured commands leave per-test results:
	// "junit:PATH", PATH relative to the workspace. Without it, a
	// configured command's result is its exit status alone.
	Report string
	// Timeout bounds one run of the stage (the baseline and the change
	// each); zero means 10 minutes.
	Timeout time.Duration
	// Network lets the commands reach the network. Only the user's own
	// configuration may set it, never a project's file.
	Network bool
	// NetworkAsked says the project's own file asks for the network,
	// which is not granted: the report says so.
	NetworkAsked bool
	// Policy seals every command the stage runs (the environment, the
	// places hidden, the toolchains shown); nothing runs without one.
	Policy *execpolicy.Policy
	// CacheDir holds the caches the runners keep between runs (Go's build
	// cache, cargo's target directory): Anvil's own, never the user's, as
	// code under test may write them. Empty: the user cache directory's
	// "anvil".
	CacheDir string
	// Limits bound each command ([run] memory, tmp_size, processes,
	// file_size); zero fields take sandbox.DefaultLimits.
	Limits sandbox.Limits
	// Importers finds the files that import a change, directly or not
	// (the validator's import graph), for runners that select tests by it
	// (pytest, unittest); nil runs every test.
	Importers ImporterFinder
}

// ImporterFinder finds every file that imports one of the changed files,
// directly or through others. Behaviour reaches through function bodies,
// so test selection follows every import, not only interface changes.
type ImporterFinder interface {
	Importers(ctx context.Context, files reach.Files, changes []*changeset.Change, limit int) (reach.Dependants, error)
}

// Stage runs the stage for one workspace. It caches the unchanged tree's
// results by the tree's state (its files, its installed dependencies),
// the command and its environment, so a baseline runs once per state of
// the tree, however many ask for it at once.
type Stage struct {
	root *workspace.Root
	opts Options
	env  []string // the commands' environment, as the policy seals it

	mu        sync.Mutex
	baselines map[string]*outcome    // by baselineKey
	inflight  map[string]*inflight   // baselines being run
	probes    map[string]probeResult // interpreter checks, by path and mtime
	// baselineRuns counts the baselines run (not taken from the cache).
	baselineRuns atomic.Int64
}

// inflight is a baseline one caller runs and others wait for.
type inflight struct {
	done chan struct{}
	o    *outcome
	err  error
}

// New returns the stage for root.
func New(root *workspace.Root, opts Options) *Stage {
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.CacheDir == "" {
		// Never a fixed place in /tmp: another user could make it first
		// and plant build results in it. Without a policy's environment,
		// the home the user database gives.
		getenv := func(string) string { return "" }
		if opts.Policy != nil {
			getenv = opts.Policy.Getenv
		}
		opts.CacheDir = state.CacheDir(getenv)
	}
	var env []string
	if opts.Policy != nil {
		env = opts.Policy.SealedEnv()
	}
	return &Stage{root: root, opts: opts, env: env,
		baselines: map[string]*outcome{}, inflight: map[string]*inflight{}, probes: map[string]probeResult{}}
}

// outcome is one run of a runner: what passed and failed.
type outcome struct {
	failed map[string]bool
	output map[string]string // a failure's own output
	// retry holds, for each failure that can be re-run alone, what
	// selects it for the runner; the others (a build) are deterministic.
	retry map[string]string
	// tests counts the tests that ran (passed or failed); -1 when the
	// runner cannot tell (a configured command without a report).
	tests int
	// opaque is set when the failures are not per test: the command's
	// exit status is all there is.
	opaque bool
	// note says something the report should carry (what was selected).
	note string
}

func newOutcome() *outcome {
	return &outcome{failed: map[string]bool{}, output: map[string]string{}, retry: map[string]string{}}
}

// selector is a runner that can narrow its tests to those a change set
// can affect.
type selector interface {
	forChanges(ctx context.Context, s *call, set *changeset.Set) runner
}

// runner knows one ecosystem's build and tests.
type runner interface {
	// command is what the report names; it keys the baselines.
	command() string
	// run builds and tests the tree the sandbox holds (with changes);
	// with only set, it re-runs just those tests (outcome.retry values).
	run(ctx context.Context, s *call, changes []sandbox.Change, only []string) (*outcome, error)
}

// Run runs the stage for set. A report that is not "passed" or "failed"
// is no evidence either way: the gate takes it as unverified.
func (s *Stage) Run(ctx context.Context, set *changeset.Set) *shadow.RunReport {
	start := time.Now()
	rep := &shadow.RunReport{}
	hit := &boundsHit{}
	c := &call{Stage: s, hit: hit}
	defer func() {
		rep.ElapsedMS = time.Since(start).Milliseconds()
		hit.state(rep)
	}()
	fail := func(err error) *shadow.RunReport {
		rep.Status, rep.Reason = shadow.RunError, err.Error()
		return rep
	}
	unverified := func(reason string) *shadow.RunReport {
		rep.Status, rep.Reason = shadow.RunUnverified, reason
		return rep
	}
	ctx, cancel := context.WithTimeout(ctx, 3*s.opts.Timeout)
	defer cancel()
	r, err := c.detect(ctx)
	if err != nil {
		return fail(err)
	}
	if r == nil {
		rep.Status, rep.Reason = shadow.RunSkipped, "no build or test command found for this project (set [run] test in .anvil/config.toml)"
		return rep
	}
	changes := toSandbox(set)
	if sel, ok := r.(selector); ok {
		r = sel.forChanges(ctx, c, set)
	}
	rep.Command = r.command()
	rep.Over = "the workspace, which Anvil's commits leave alone while the stage runs; an edit made meanwhile makes the run unverified"
	key, err := s.baselineKey(ctx, r)
	if err != nil {
		return fail(err)
	}
	base, err := c.baseline(ctx, r, key)
	if err != nil {
		return fail(fmt.Errorf("on the unchanged tree: %w", err))
	}
	now, err := s.bounded(ctx, func(ctx context.Context) (*outcome, error) { return r.run(ctx, c, changes, nil) })
	if err != nil {
		return fail(err)
	}
	// The shadow tree's lower layer is the workspace itself: a run over a
	// tree that changed under it proves nothing about either state.
	if after, err := s.baselineKey(ctx, r); err != nil {
		return fail(err)
	} else if after != key {
		return unverified("the workspace changed while the tests ran (an edit, an install); run the stage again")
	}
	rep.Note = now.note
	if s.opts.NetworkAsked {
		rep.Note = strings.TrimSpace(rep.Note + "\nthe project's .anvil/config.toml asks for the network, which only your own configuration can allow ([run] network = true there); the commands ran without it")
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
	if now.opaque && len(base.failed) > 0 && len(now.failed) > 0 {
		// One bit on each side: a new failure cannot be told from the old.
		return unverified(fmt.Sprintf("the unchanged tree already fails (%s), and the command gives no per-test results, so what the change breaks cannot be told apart; fix: have the command write a JUnit XML report and set [run] report = \"junit:PATH\", or fix the failing tests first", strings.Join(slices.Sorted(maps.Keys(base.failed)), ", ")))
	}
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
		if again, err = s.bounded(ctx, func(ctx context.Context) (*outcome, error) { return r.run(ctx, c, changes, retry) }); err != nil {
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
	rep.Tests = now.tests
	switch {
	case len(rep.Failed) > 0:
		rep.Status = shadow.RunFailed
	case now.tests == 0:
		why := "no test ran"
		if now.note != "" {
			why += " (" + now.note + ")"
		}
		return unverified(why + ": nothing checked the change's behaviour")
	default:
		rep.Status = shadow.RunPassed
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

// baseline returns the unchanged tree's outcome: from the cache when the
// tree, its dependencies, the command and its environment are as they
// were; else run once however many ask at once, and each failure re-run
// alone before it counts as pre-existing (a flake in the baseline would
// otherwise excuse a real break of the same test for as long as the tree
// stays as it is).
func (s *call) baseline(ctx context.Context, r runner, key string) (*outcome, error) {
	for {
		s.mu.Lock()
		if o := s.baselines[key]; o != nil {
			s.mu.Unlock()
			return o, nil
		}
		if c := s.inflight[key]; c != nil {
			s.mu.Unlock()
			select {
			case <-c.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if c.err != nil && ctx.Err() == nil && errors.Is(c.err, context.Canceled) {
				continue // the runner's caller left; this one runs it
			}
			return c.o, c.err
		}
		c := &inflight{done: make(chan struct{})}
		s.inflight[key] = c
		s.mu.Unlock()
		c.o, c.err = s.runBaseline(ctx, r)
		s.mu.Lock()
		delete(s.inflight, key)
		if c.err == nil {
			s.baselines[key] = c.o
		}
		s.mu.Unlock()
		close(c.done)
		return c.o, c.err
	}
}

func (s *call) runBaseline(ctx context.Context, r runner) (*outcome, error) {
	s.baselineRuns.Add(1)
	o, err := s.bounded(ctx, func(ctx context.Context) (*outcome, error) { return r.run(ctx, s, nil, nil) })
	if err != nil {
		return nil, err
	}
	var retry []string
	for name := range o.failed {
		if sel, ok := o.retry[name]; ok && !slices.Contains(retry, sel) {
			retry = append(retry, sel)
		}
	}
	if len(retry) == 0 {
		return o, nil
	}
	again, err := s.bounded(ctx, func(ctx context.Context) (*outcome, error) { return r.run(ctx, s, nil, retry) })
	if err != nil {
		return nil, err
	}
	for name := range o.failed {
		if _, ok := o.retry[name]; ok && !again.failed[name] {
			delete(o.failed, name) // failed once, not again: not pre-existing
		}
	}
	return o, nil
}

// baselineKey names the unchanged tree's state for r: the files the
// ignore rules keep and the installed dependencies (shadow.Scan's
// fingerprint covers lock files, manifests, node_modules, virtual
// environments), the command and the commands' environment.
func (s *Stage) baselineKey(ctx context.Context, r runner) (string, error) {
	snap, err := shadow.Scan(ctx, s.root)
	if err != nil {
		return "", err
	}
	return r.command() + "\x00" + envDigest(s.env) + "\x00" + snap.Fingerprint, nil
}

// execSpec is one command of a runner in a shadow tree.
type execSpec struct {
	argv    []string
	env     []string // added to the stage's
	cache   string   // a subdirectory of the cache directory to bind writable
	reports bool     // a report directory at sandbox.ReportDir
	// parsed: the results are read from the output (go test -json,
	// cargo), so an output cut short is no evidence: an error.
	parsed bool
}

// outputLimit bounds the output a runner's command keeps: room for a
// large go test -json, whose results are read from it.
const outputLimit = 64 << 20

// exec runs a command in a sealed shadow tree holding changes.
func (s *call) exec(ctx context.Context, changes []sandbox.Change, e execSpec) (*sandbox.Result, error) {
	if s.opts.Policy == nil {
		return nil, errors.New("no execution policy to run the project's commands with")
	}
	spec := s.opts.Policy.Sealed(sandbox.Spec{Root: s.root.Dir(), Changes: changes, Argv: e.argv, Env: slices.Clone(e.env),
		Network: s.opts.Network, Reports: e.reports, OutputLimit: outputLimit, Limits: s.opts.Limits})
	if e.cache != "" {
		dir := filepath.Join(s.opts.CacheDir, e.cache)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("the runner's cache: %w", err)
		}
		spec.Writable = append(spec.Writable, dir)
	}
	res, err := sandbox.Run(ctx, spec)
	if err == nil && s.hit != nil {
		s.hit.add(res)
	}
	if err == nil && e.parsed && res.Truncated {
		return nil, fmt.Errorf("%s wrote more than %d MiB; its results cannot be read whole", e.argv[0], outputLimit>>20)
	}
	return res, err
}

// runFailed records a run that failed as a whole (it wrote no report, or
// failed with no test failing) as "<tool> (exit status N)", which a
// baseline that failed the same way has too.
func runFailed(o *outcome, tool string, res *sandbox.Result, why string) {
	name := fmt.Sprintf("%s (exit status %d)", tool, res.ExitCode)
	o.failed[name] = true
	o.output[name] = strings.TrimSpace(why + "\n" + trimOutput(string(res.Output), 40))
}

// execTests runs a test command that writes its report to the report
// directory: argv, then only (a re-run) or selected. The outcome is empty
// and done when the bound killed it.
func (s *call) execTests(ctx context.Context, changes []sandbox.Change, argv, selected, only []string, note string) (*sandbox.Result, *outcome, bool, error) {
	if only != nil {
		argv = append(argv, only...)
	} else {
		argv = append(argv, selected...)
	}
	res, err := s.exec(ctx, changes, execSpec{argv: argv, reports: true, env: []string{"PYTHONDONTWRITEBYTECODE=1"}})
	if err != nil {
		return nil, nil, false, err
	}
	o := newOutcome()
	o.note = note
	return res, o, res.Killed, nil
}

// cachePath is a runner's cache directory (bound writable by exec).
func (s *Stage) cachePath(name string) string { return filepath.Join(s.opts.CacheDir, name) }

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

// call is one Run of the stage: the stage, and the record of the bounds
// its commands reached (whichever runner ran them; nil keeps none). A
// baseline one call computes for others records its bounds in that
// call's report.
type call struct {
	*Stage
	hit *boundsHit
}

// boundsHit is what the commands of one stage run showed of the bounds:
// each reached, with its value, as [run] writes it.
type boundsHit struct {
	mu  sync.Mutex
	hit []string // "memory = 4G"
}

func (b *boundsHit) add(res *sandbox.Result) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, name := range res.Hit {
		v := ""
		switch name {
		case sandbox.BoundMemory:
			v = config.Size(res.Limits.Memory).String()
		case sandbox.BoundTmp:
			v = config.Size(res.Limits.Tmp).String()
		case sandbox.BoundFileSize:
			v = config.Size(res.Limits.FileSize).String()
		case sandbox.BoundProcesses:
			v = fmt.Sprint(res.Limits.Processes)
		}
		if s := name + " = " + v; !slices.Contains(b.hit, s) {
			b.hit = append(b.hit, s)
		}
	}
}

// state says in rep which bounds were reached: in the reason when there
// is one (a verdict the bound may have made), else in the note.
func (b *boundsHit) state(rep *shadow.RunReport) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.hit) == 0 {
		return
	}
	slices.Sort(b.hit)
	var what []string
	for _, h := range b.hit {
		what = append(what, "[run] "+h)
	}
	s := "the run hit " + strings.Join(what, ", ") + " (the commands' output says so; raise it in your own config.toml's [run] if the tests need more)"
	if rep.Reason != "" {
		rep.Reason += "; " + s
	} else {
		rep.Note = strings.TrimSpace(rep.Note + "\n" + s)
	}
}
