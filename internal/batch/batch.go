// Package batch checks a change set with the project's own batch checker
// (tsc, the pyright command line) run over a shadow tree that holds the
// change, beside the same checker's answer for the unchanged tree. For a
// change with many dependants a batch checker is the cheapest complete
// check: tsc spends about a millisecond per file where a server answers a
// file at a time in tens of milliseconds, and tsc's incremental state
// (kept outside the tree, one state per project) makes the run after a
// change re-check only what the change affects.
//
// The answer has the shape of a language server's (diagnostics by file,
// before and after), so the validator pairs it the same way; the verdict
// says which checker answered.
package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/depfile"
	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/sandbox"
)

// Kind is a batch checker's protocol.
type Kind string

const (
	// TSC is TypeScript's compiler: `tsc --noEmit -p CONFIG`, with
	// --incremental and a tsbuildinfo of Anvil's.
	TSC Kind = "tsc"
	// Pyright is the pyright command line: `pyright --outputjson`, which
	// reads the project's own configuration.
	Pyright Kind = "pyright"
	// Command is any checker: Argv as it is, run at the root, its output
	// read in Format.
	Command Kind = "command"
)

// Tool is one batch checker.
type Tool struct {
	Kind Kind
	// Argv starts it ("node", ".../tsc" or ".../pyright").
	Argv []string
	// Label names it in verdicts ("tsc 5.9.3").
	Label string
	// Format is how a Command's output reads.
	Format diagformat.Format
	// Env is set over the sealed environment the checker runs with.
	Env []string
	// CacheEnv names the variable that points a Command at a state
	// directory of Anvil's (CARGO_TARGET_DIR): one for the unchanged
	// tree, one for changed trees, so that each run starts from the
	// state of the run before it.
	CacheEnv string
	// SharedCache, when set, is the one directory CacheEnv names for
	// every run, of every workspace: a cache the tool itself keeps safe
	// for concurrent use and keys by content (the go build cache), so
	// that only Anvil's first run anywhere builds the standard library.
	SharedCache string
	// Overlay, if set, returns files laid over the tree (under the
	// change) for every run of a project: configuration rewritten for
	// this checker (TypeScript 7's reading of a project written for 6).
	Overlay func(config string) []Change
	// FreshBaselines: the tool's incremental state cannot follow a
	// change of the disk, so each disk state's run over the unchanged
	// tree starts from none (and writes the one the runs over its
	// changed trees start from). TypeScript 7.0.2's misses what a change
	// to a script's global breaks: after `var G: number` became `var G:
	// string` on disk, its incremental run reported nothing where a full
	// run finds TS2322 in every user of G (TypeScript 6's finds it too).
	FreshBaselines bool
	// DepInfo: the state directory holds make-style dependency files
	// (`*.d`, as cargo writes them) naming every source file the checker
	// read, which tells a file no target compiles from a clean one.
	DepInfo bool
}

// Change is one file of the change set.
type Change = sandbox.Change

// Result is a batch check's answer: every file's diagnostics before and
// after, by absolute path.
type Result struct {
	Before, After map[string][]lsp.Diagnostic
	// Elapsed is the run over the changed tree, or, with Both, the two
	// runs at once; Baseline whether the unchanged tree's answer had to
	// be computed (it is kept for the disk state).
	Elapsed time.Duration
	// Both: the changed tree's run ran beside the unchanged tree's, no
	// answer of which was kept or being computed (Elapsed covers both).
	Both     bool
	Baseline bool
	// Warm: the changed tree's run started from a state of Anvil's
	// (CacheEnv's directory held an earlier run's).
	Warm bool
	// Incomplete says why the checker stopped before checking every
	// file after the change ("" when it did not): its errors are real,
	// its silence is no evidence.
	Incomplete string
	// Read are the source files (absolute) the changed tree's run read,
	// from the tool's dependency files; nil when the tool writes none.
	Read map[string]bool
}

// Checker runs one tool for one workspace, keeping each project's answer
// for the unchanged tree, by the disk's state, and tsc's incremental
// state.
type Checker struct {
	root     string
	tool     Tool
	stateDir string
	// policy seals every run: a batch checker runs the project's code
	// (tsc's plugins and type libraries, pyright's, build scripts), in a
	// trusted workspace too.
	policy *execpolicy.Policy

	mu        sync.Mutex
	baselines map[string]*baseline // by project; the latest disk state's
	warmed    map[string]bool      // the projects warmed once by this checker

	// changedMu serialises the runs over changed trees of a checker with
	// a CacheEnv: they share one state directory.
	changedMu sync.Mutex
	// written are the files whose build in the changed-tree state may
	// be of content other than the disk's (guarded by changedMu): cargo
	// decides what to rebuild by modification times, so such a file is
	// written again, with the disk's content and a newer time, by the
	// next run that does not change it, or cargo would take the earlier
	// change's build as current. A run that built every unit leaves
	// only its own changes here (see settle).
	written map[string]bool
}

type baseline struct {
	diskState string
	// started is set (under the checker's mu) by the caller that runs
	// the tool; done is closed once diags and err are set. Others wait on
	// done or their own context, whichever ends first.
	started bool
	done    chan struct{}
	diags   map[string][]lsp.Diagnostic
	err     error
	// state is tsc's incremental state after the unchanged tree, which
	// each run over a changed tree starts from (a copy of it).
	state string
	// ready: computed without error (guarded by the checker's mu).
	ready bool
	// elapsed is how long the run took, and whole whether it started
	// from no state of an earlier run (both set before done is closed).
	elapsed time.Duration
	whole   bool
	// answered: err is the checker's own answer for the disk state (it
	// stopped early), which another run would give again.
	answered bool
	// incomplete says why a project command's kept answer stopped early
	// ("" when it did not): it is ready all the same.
	incomplete string
}

// New returns a checker for the workspace at root. stateDir keeps tsc's
// incremental state (it is created; nothing in it is needed for
// correctness, only speed). policy seals each run.
func New(root string, tool Tool, stateDir string, policy *execpolicy.Policy) *Checker {
	return &Checker{root: root, tool: tool, stateDir: stateDir, policy: policy, baselines: map[string]*baseline{}, warmed: map[string]bool{}, written: map[string]bool{}}
}

// Tool returns the checker's tool.
func (c *Checker) Tool() Tool { return c.tool }

// Check runs the tool for the project whose configuration is config
// (absolute: a tsconfig.json for tsc, the directory pyright runs in for
// pyright) over the tree with changes, and over the unchanged tree unless
// its answer for diskState is kept. It fails when the tool cannot run or
// its output cannot be read: a batch check is complete or nothing.
//
// fresh runs the changed tree without the unchanged tree's incremental
// state: for a change whose effects travel outside the imports (a
// `declare global` block, an augmentation, a triple-slash directive),
// where TypeScript 7.0.2's incremental state misses the files it breaks
// (measured: a `declare global` variable retyped in a module file leaves
// its users' new errors to a full run).
func (c *Checker) Check(ctx context.Context, config, diskState string, changes []Change, fresh bool) (*Result, error) {
	if !c.kept(config, diskState) {
		return c.checkBoth(ctx, config, diskState, changes)
	}
	base, computed, err := c.baseline(ctx, config, diskState, false)
	if err != nil {
		return nil, fmt.Errorf("%s on the unchanged tree: %w", c.tool.Label, err)
	}
	start := time.Now()
	state := ""
	if base.state != "" && !fresh {
		// Each run starts from the unchanged tree's state, in a copy of
		// its own: concurrent checks never share one.
		state = base.state + fmt.Sprintf(".run-%d-%d", os.Getpid(), time.Now().UnixNano())
		if err := copyFile(base.state, state); err != nil {
			state = ""
		}
		defer os.Remove(state)
	}
	after, err := c.run(ctx, config, changes, state, false)
	if err != nil {
		return nil, fmt.Errorf("%s on the changed tree: %w", c.tool.Label, err)
	}
	return &Result{Before: base.diags, After: after.Files, Elapsed: time.Since(start), Baseline: computed, Warm: after.warm, Incomplete: after.Incomplete, Read: after.read}, nil
}

// Warm computes the unchanged tree's answer for config at diskState in
// the background (at a low priority), unless it is kept already: the
// first check of a change then runs the checker once, not twice. The
// answer is dropped when the disk changes; ctx cancels the run.
//
// It returns how long the run took when this call ran it from no state
// of an earlier run and it succeeded (0 otherwise): a whole run of the
// checker over the project, which is what a change that reaches most of
// it costs, so its caller learns the checker's cost before the first
// change that weighs it. A run from an earlier disk state's incremental
// state re-checks only what changed since, and would teach a cost far
// below a wide change's.
func (c *Checker) Warm(ctx context.Context, config, diskState string) time.Duration {
	if c.kept(config, diskState) {
		return 0
	}
	if c.tool.Kind == TSC && c.firstWarm(config) {
		// The state an earlier process left would make this run a
		// partial one, and no cost of a whole run known; the process's
		// first warm-up, in the background, pays for it once.
		_ = os.Remove(c.stateFile(config))
	}
	b, computed, err := c.baseline(ctx, config, diskState, true)
	if err != nil || !computed || !b.whole {
		return 0
	}
	return b.elapsed
}

// firstWarm reports whether this is the checker's first warm-up of
// config.
func (c *Checker) firstWarm(config string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warmed[config] {
		return false
	}
	c.warmed[config] = true
	return true
}

// Ready reports whether the unchanged tree's answer for config at
// diskState is computed and kept.
func (c *Checker) Ready(config, diskState string) bool {
	_, ok := c.Baseline(config, diskState)
	return ok
}

// Baseline returns the unchanged tree's answer for config at diskState,
// when it is computed and kept (see Ready).
func (c *Checker) Baseline(config, diskState string) (map[string][]lsp.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.baselines[config]
	if !ok || b.diskState != diskState || !b.ready {
		return nil, false
	}
	return b.diags, true
}

// Answer returns the unchanged tree's kept answer for config at
// diskState with why the checker stopped early ("" when it checked every
// file), where Baseline returns tsc's and pyright's whole answers only
// (a project command's stopped answer is its baseline too): errors one compiler
// stops on and another does not are a difference between them, but a
// stopped run's silence proves nothing. ok is false while none is kept.
func (c *Checker) Answer(config, diskState string) (diags map[string][]lsp.Diagnostic, incomplete string, ok bool) {
	c.mu.Lock()
	b, found := c.baselines[config]
	c.mu.Unlock()
	if !found || b.diskState != diskState {
		return nil, "", false
	}
	select {
	case <-b.done: // diags, err and answered are set before done closes
	default:
		return nil, "", false
	}
	switch {
	case b.err == nil:
		return b.diags, b.incomplete, true
	case b.answered:
		return b.diags, b.err.Error(), true
	}
	return nil, "", false
}

// AnyReady reports whether the unchanged tree's answer of any project at
// diskState is computed and kept.
func (c *Checker) AnyReady(diskState string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.baselines {
		if b.diskState == diskState && b.ready {
			return true
		}
	}
	return false
}

// kept reports whether the unchanged tree's answer for config at
// diskState is kept or being computed.
func (c *Checker) kept(config, diskState string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.baselines[config]
	return ok && b.diskState == diskState
}

// checkBoth runs the tool over the unchanged tree and the changed one at
// once: with no answer kept for the unchanged tree, the changed tree's
// run cannot start from its incremental state anyway, and two runs on two
// cores take the time of one, where one after the other took twice the
// batch checker's own time.
func (c *Checker) checkBoth(ctx context.Context, config, diskState string, changes []Change) (*Result, error) {
	start := time.Now()
	var after report
	var afterErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		after, afterErr = c.run(ctx, config, changes, "", false)
	}()
	base, _, err := c.baseline(ctx, config, diskState, false)
	<-done
	if err != nil {
		return nil, fmt.Errorf("%s on the unchanged tree: %w", c.tool.Label, err)
	}
	if afterErr != nil {
		return nil, fmt.Errorf("%s on the changed tree: %w", c.tool.Label, afterErr)
	}
	return &Result{Before: base.diags, After: after.Files, Elapsed: time.Since(start), Baseline: true, Both: true, Warm: after.warm, Incomplete: after.Incomplete, Read: after.read}, nil
}

// baseline returns the unchanged tree's answer for config at diskState,
// computing it once: a caller that finds it being computed (the
// background warm-up's run) waits for it within its own context.
// background runs it at a low priority (work ahead of need).
func (c *Checker) baseline(ctx context.Context, config, diskState string, background bool) (*baseline, bool, error) {
	for {
		b, computed, err := c.baselineOnce(ctx, config, diskState, background)
		if err != nil && !computed && ctx.Err() == nil && errors.Is(err, context.Canceled) {
			// The run waited for was cancelled by its own caller (a
			// background warm-up superseded): this caller still wants
			// the answer, and computes it.
			continue
		}
		return b, computed, err
	}
}

func (c *Checker) baselineOnce(ctx context.Context, config, diskState string, background bool) (*baseline, bool, error) {
	if err := ctx.Err(); err != nil {
		// A cancelled job (its disk state gone, the daemon stopping)
		// starts nothing: not even the state directory it would write.
		return nil, false, err
	}
	c.mu.Lock()
	b, ok := c.baselines[config]
	if !ok || b.diskState != diskState {
		// Only the current disk state's answer is worth keeping.
		b = &baseline{diskState: diskState, done: make(chan struct{})}
		c.baselines[config] = b
	}
	computed := !b.started
	b.started = true
	c.mu.Unlock()
	if computed {
		stateBefore := false
		if c.tool.Kind == TSC {
			b.state = c.statePath(config)
			if c.tool.FreshBaselines {
				_ = os.Remove(b.state)
			}
			_, err := os.Stat(b.state)
			stateBefore = err == nil
		}
		var r report
		start := time.Now()
		r, b.err = c.run(ctx, config, nil, b.state, background)
		b.elapsed = time.Since(start)
		b.whole = !r.warm && !stateBefore
		switch {
		case b.err != nil || r.Incomplete == "":
		case c.tool.Kind == Command:
			// A project command's stopped answer (cargo at a unit that
			// failed, go vet at a type error, mypy) is kept as the
			// answer to pair with: no server can check its files
			// instead, the changed tree's own run says whether it
			// stopped too, and an error it hid that the change uncovers
			// reads as new: a false reject, never a false clean.
			b.incomplete = r.Incomplete
		default:
			// tsc's or pyright's: errors the unchanged tree hides behind
			// others would be counted as the change's, and the server
			// can check the files instead. The checker's answer for this
			// disk state, not a failure to retry: kept as it is, so that
			// no warm-up runs the checker again for the same state.
			b.err = errors.New(r.Incomplete)
			b.answered = true
		}
		b.diags = r.Files
		c.mu.Lock()
		b.ready = b.err == nil
		c.mu.Unlock()
		close(b.done)
	} else {
		select {
		case <-b.done:
		case <-ctx.Done():
			return nil, false, fmt.Errorf("waiting for the unchanged tree's run: %w", ctx.Err())
		}
	}
	if b.err != nil && !b.answered {
		c.mu.Lock()
		if c.baselines[config] == b {
			delete(c.baselines, config) // a cancelled or failed run is not kept
		}
		c.mu.Unlock()
	}
	return b, computed, b.err
}

// statePath is where tsc keeps its incremental state for config; its
// directory is made.
func (c *Checker) statePath(config string) string {
	p := c.stateFile(config)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return ""
	}
	return p
}

// stateFile names tsc's incremental state for config.
func (c *Checker) stateFile(config string) string {
	sum := sha256.Sum256([]byte(c.tool.Label + "\x00" + config))
	return filepath.Join(c.stateDir, hex.EncodeToString(sum[:8]), "base.tsbuildinfo")
}

// report is one run's answer.
type report struct {
	diagformat.Report
	warm bool
	read map[string]bool
}

// run runs the tool over the tree with changes (nil: the unchanged
// tree) and reads its answer; background runs it at a low priority.
func (c *Checker) run(ctx context.Context, config string, changes []Change, state string, background bool) (report, error) {
	if err := ctx.Err(); err != nil {
		return report{}, err
	}
	argv, dir := c.command(config, state)
	if c.policy == nil {
		return report{}, errors.New("no execution policy to run " + c.tool.Label + " with")
	}
	spec := c.policy.Sealed(sandbox.Spec{Root: c.root, Changes: c.overlaid(config, changes), Argv: argv, Dir: dir, Env: slices.Clone(c.tool.Env), OutputLimit: 64 << 20, Background: background})
	if state != "" {
		// tsc writes its incremental state there; the rest of the host is
		// read-only to it.
		spec.Writable = []string{filepath.Dir(state)}
	}
	warm := false
	settled := false
	if c.tool.CacheEnv != "" {
		name := "base"
		if changes != nil {
			name = "change"
			c.changedMu.Lock()
			defer c.changedMu.Unlock()
			spec.Changes = c.rewritten(changes)
			// Until the run is known to have built every unit, what it
			// rewrote may still be built from an earlier change.
			defer func() { c.settle(changes, settled) }()
		}
		cache := filepath.Join(c.stateDir, name)
		if c.tool.SharedCache != "" {
			cache = c.tool.SharedCache
		}
		if err := os.MkdirAll(cache, 0o700); err != nil {
			return report{}, err
		}
		entries, _ := os.ReadDir(cache)
		warm = len(entries) > 0
		spec.Env = append(spec.Env, c.tool.CacheEnv+"="+cache)
		spec.Writable = []string{cache}
	}
	res, err := sandbox.Run(ctx, spec)
	if err != nil {
		return report{}, err
	}
	if res.Killed {
		if err := ctx.Err(); err != nil {
			return report{}, err
		}
		return report{}, errors.New("killed")
	}
	if res.Truncated {
		return report{}, fmt.Errorf("its output passed %d MiB", 64)
	}
	in := diagformat.Input{Root: c.root, Dir: dir, Exit: res.ExitCode, Output: res.Output}
	var r diagformat.Report
	switch c.tool.Kind {
	case TSC:
		r, err = diagformat.Parse(diagformat.TSC, in)
	case Pyright:
		r.Files, err = ParsePyright(res.ExitCode, res.Output)
	case Command:
		r, err = diagformat.Parse(c.tool.Format, in)
	default:
		err = fmt.Errorf("unknown batch checker %q", c.tool.Kind)
	}
	if err != nil {
		return report{}, err
	}
	if c.tool.Kind != Command {
		// An error of no file (a type library not found, a bad option)
		// means the checker did not build the program the project's own
		// build does: its silence about the files is no evidence, even
		// where both sides agree. One on the changed tree that names a
		// changed file (a deleted file a tsconfig's "files" lists:
		// "File '…/listed.ts' not found") is the change's own, since the
		// unchanged tree's run had none: kept under "" as a new error,
		// which blocks. Any other (the checker's trouble writing its
		// state, say) is no evidence either way.
		for _, d := range r.Files[""] {
			if d.IsError() && !namesChangedFile(d.Message, c.root, changes) {
				return report{}, fmt.Errorf("it reported an error of no file, so it did not check the project as its build does: %s", firstLine(d.Message))
			}
		}
	}
	settled = r.Incomplete == ""
	rep := report{Report: r, warm: warm}
	if c.tool.DepInfo && c.tool.CacheEnv != "" {
		rep.read = depInfoFiles(filepath.Join(c.stateDir, map[bool]string{true: "change", false: "base"}[changes != nil]), filepath.Join(c.root, dir))
	}
	return rep, nil
}

// overlaid returns changes under the tool's overlay for config: a file
// the change holds is the change's.
func (c *Checker) overlaid(config string, changes []Change) []Change {
	if c.tool.Overlay == nil {
		return changes
	}
	out := slices.Clone(changes)
	for _, o := range c.tool.Overlay(config) {
		if !slices.ContainsFunc(changes, func(ch Change) bool { return ch.Path == o.Path }) {
			out = append(out, o)
		}
	}
	return out
}

// namesChangedFile reports whether msg names one of changes by its
// absolute path (as tsc and pyright name files in their own errors).
func namesChangedFile(msg, root string, changes []Change) bool {
	for _, ch := range changes {
		if strings.Contains(msg, filepath.Join(root, ch.Path)) {
			return true
		}
	}
	return false
}

// depInfoFiles returns every file the make-style dependency files under
// dir name as a prerequisite (cargo's target/*/deps/*.d and
// target/*/*.d; package depfile), relative ones (cargo
// names a workspace's own files relative to where it ran) made absolute
// from base.
func depInfoFiles(dir, base string) map[string]bool {
	read := map[string]bool{}
	for _, pattern := range []string{"*/deps/*.d", "*/*.d", "*/*/deps/*.d"} {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				continue
			}
			rules, err := depfile.Parse(data)
			if err != nil {
				continue // not cargo's: what it names is no record of a read
			}
			for _, f := range depfile.Prereqs(rules) {
				if !filepath.IsAbs(f) {
					f = filepath.Join(base, f)
				}
				read[f] = true
			}
		}
	}
	return read
}

// rewritten returns changes with every file an earlier changed-tree run
// wrote and this one does not, at its content on disk (see written;
// c.changedMu held).
func (c *Checker) rewritten(changes []Change) []Change {
	out := append([]Change(nil), changes...)
	mine := map[string]bool{}
	for _, ch := range changes {
		mine[ch.Path] = true
	}
	for p := range c.written {
		if mine[p] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(p)))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // gone from the disk too: nothing of it to build
			}
			// Unreadable: forget nothing, and have cargo see a change.
			out = append(out, Change{Path: p, Delete: true})
			continue
		}
		out = append(out, Change{Path: p, Content: data})
	}
	return out
}

// settle records what a changed-tree run leaves built from other than
// the disk (c.changedMu held). A run that built every unit (complete:
// the tool answered and stopped nowhere) rebuilt each file it rewrote
// from the disk's content, so only its own changes remain; one that
// stopped, failed or was killed may have left any unit as it was, so
// every file stays. Without this, every file any run ever changed
// would be rewritten, and its crate rebuilt, by every later run of the
// session.
func (c *Checker) settle(changes []Change, complete bool) {
	if complete {
		clear(c.written)
	}
	for _, ch := range changes {
		c.written[ch.Path] = true
	}
}

// command returns the tool's arguments for config, and the directory
// (relative to the root) to run it in.
func (c *Checker) command(config, state string) ([]string, string) {
	argv := append([]string(nil), c.tool.Argv...)
	switch c.tool.Kind {
	case TSC:
		argv = append(argv, "--noEmit", "--pretty", "false", "-p", config)
		if state != "" {
			argv = append(argv, "--incremental", "--tsBuildInfoFile", state)
		}
		dir, _ := filepath.Rel(c.root, filepath.Dir(config))
		return argv, filepath.ToSlash(dir)
	case Command:
		// In its project's directory: the root, or a module below it
		// for the go command, whose ./... is the module it runs in.
		dir, err := filepath.Rel(c.root, config)
		if err != nil || dir == "." {
			dir = ""
		}
		return argv, filepath.ToSlash(dir)
	default:
		argv = append(argv, "--outputjson")
		dir, _ := filepath.Rel(c.root, config)
		return argv, filepath.ToSlash(dir)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
