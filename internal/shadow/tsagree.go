package shadow

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// TypeScript 7 where it agrees. A project that uses TypeScript 6 or older
// is checked by its own compiler: tsserver file by file, its tsc for a
// change with many dependants. TypeScript 7's tsc checks the same project
// several times faster (3.2-3.7x measured: docs/benchmarks.md), but it is another
// compiler, so it takes the project's batch runs only while its answer is
// the project's own:
//
//   - Proof: both compilers' answers for the unchanged tree of a project
//     are the same errors (file, line, code). The proof is made in the
//     background, at each disk state the batch baseline is warmed for
//     (the project's tsc runs there anyway; TypeScript 7's run is the
//     added cost), and holds for the configuration it was made under: a
//     change of a tsconfig, a package.json or the installed packages
//     waits for a new proof.
//   - A disagreement ever seen on a project (the unchanged tree's answers
//     differ, or a change's new errors differ at the end of a turn) keeps
//     the project's own compiler for good; it is kept on disk.
//   - The project's own compiler still decides where the two may differ,
//     configuration changes (configPlan: an option TypeScript 7 rejects),
//     and where a verdict is final: a commit (Scope.Confirm) and the end
//     of a hooked agent's turn (Scope.Complete). There TypeScript 7 runs
//     on the same change too: new errors that differ are reported and
//     switch the project back.
//
// The same proof lets TypeScript 7's server answer an edit file by file
// in place of tsserver (tsagree_server.go).

// nativeAgreement is one workspace's record of where TypeScript 7 agrees
// with the project's compiler.
type nativeAgreement struct {
	mu sync.Mutex
	// checker is TypeScript 7's batch checker for the workspace, built
	// once (nil when none applies: see servers.Registry.NativeCompiler).
	checker *batch.Checker
	looked  bool
	// proofs are the latest proof per project (a tsconfig.json).
	proofs map[string]agreementProof
	// disagreed holds, per project, what the compilers were seen to
	// differ on; read from and written to file.
	disagreed map[string]string
	file      string
}

// agreementProof is the comparison of the two compilers' answers for
// the unchanged tree of one project.
type agreementProof struct {
	diskState string
	// configKey digests the configuration the proof holds for.
	configKey string
	agreed    bool
}

// native returns TypeScript 7's batch checker for the workspace, or nil
// when the project's compiler must check alone: the option is off, the
// project is on TypeScript 7 or pins none, no TypeScript 7 is found.
func (v *Validator) native() *batch.Checker {
	a := &v.agree
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.looked {
		return a.checker
	}
	a.looked = true
	if !v.opts.NativeWhereAgrees || v.opts.BatchStateDir == "" {
		return nil
	}
	bc, ok := v.servers.Registry().NativeCompiler(v.root.Dir())
	if !ok {
		return nil
	}
	tool := batchToolOf(bc)
	tool.Overlay = v.baseURLAsPaths
	a.checker = batch.New(v.root.Dir(), tool,
		filepath.Join(v.opts.BatchStateDir, "tsgo-agreement"), v.opts.Policy)
	a.file = disagreementsFile(cmp.Or(v.opts.StateDir, v.opts.BatchStateDir), v.root.Dir())
	a.disagreed = readDisagreements(a.file)
	a.proofs = map[string]agreementProof{}
	return a.checker
}

// nativeFor returns TypeScript 7's batch checker to run configs at the
// disk state of snap instead of own (the project's tsc), and why it may;
// nil when the project's own compiler runs.
func (v *Validator) nativeFor(own *batch.Checker, snap *Snapshot, configs []string) (*batch.Checker, string) {
	if own == nil || own.Tool().Kind != batch.TSC {
		return nil, ""
	}
	nc := v.native()
	if nc == nil || slices.Equal(nc.Tool().Argv, own.Tool().Argv) {
		return nil, ""
	}
	key := agreementKey(snap)
	a := &v.agree
	a.mu.Lock()
	defer a.mu.Unlock()
	earlier := false
	for _, config := range configs {
		p, ok := a.proofs[config]
		if _, differs := a.disagreed[config]; differs || !ok || !p.agreed || p.configKey != key {
			return nil, ""
		}
		earlier = earlier || p.diskState != snap.Fingerprint
	}
	why := fmt.Sprintf("in place of the project's %s: the same answer for the unchanged tree", own.Tool().Label)
	if earlier {
		why += " of an earlier disk state of the same configuration (proven again in the background)"
	}
	if slices.ContainsFunc(configs, func(c string) bool { return len(v.baseURLAsPaths(c)) > 0 }) {
		why += "; reading baseUrl as paths"
	}
	return nc, why
}

// baseURLAsPaths is TypeScript 7's overlay for the project at config:
// the workspace's files of it that set baseUrl, which 7 removed, written
// as the paths 7 reads (tsconfig.WithoutBaseURL). The proof holds 7's
// answer under them to the project's compiler's, so a rewrite that
// changes what the project means is a disagreement, never a verdict.
func (v *Validator) baseURLAsPaths(config string) []batch.Change {
	files, ok := tsconfig.WithoutBaseURL(config)
	if !ok {
		return nil
	}
	var out []batch.Change
	for _, abs := range slices.Sorted(maps.Keys(files)) {
		if rel, err := v.root.Rel(abs); err == nil {
			out = append(out, batch.Change{Path: rel, Content: files[abs]})
		}
	}
	return out
}

// prove compares both compilers' answers for the unchanged tree of
// config at state, computing each where it is not kept: a background
// job's work (see warmBatch). A project ever seen to disagree is not
// proven again.
func (v *Validator) prove(ctx context.Context, own *batch.Checker, snap *Snapshot, config string) {
	nc := v.native()
	if nc == nil || v.agreementDisagreed(config) || v.agreementProven(config, snap.Fingerprint) {
		return
	}
	nc.Warm(ctx, config, snap.Fingerprint)
	ownDiags, ownStopped, ok := own.Answer(config, snap.Fingerprint)
	nativeDiags, nativeStopped, nok := nc.Answer(config, snap.Fingerprint)
	if !ok || !nok {
		return // a run failed or was cancelled: nothing is proven
	}
	differ := answersDiffer(ownDiags, nativeDiags)
	if differ == "" && (ownStopped != "" || nativeStopped != "") {
		// The same errors, but a compiler that stopped on them (a
		// syntax or options error) left its type checker's answer
		// unsaid: no proof either way.
		return
	}
	a := &v.agree
	a.mu.Lock()
	defer a.mu.Unlock()
	a.proofs[config] = agreementProof{diskState: snap.Fingerprint, configKey: agreementKey(snap), agreed: differ == ""}
	if differ != "" {
		v.recordDisagreementLocked(config, fmt.Sprintf("on the unchanged tree, %s and %s differ: %s", own.Tool().Label, nc.Tool().Label, differ))
	}
}

// recordDisagreementLocked keeps config's disagreement, on disk too.
func (v *Validator) recordDisagreementLocked(config, why string) {
	a := &v.agree
	if a.disagreed == nil {
		a.disagreed = map[string]string{}
	}
	a.disagreed[config] = why
	if a.file == "" {
		return
	}
	_ = os.MkdirAll(filepath.Dir(a.file), 0o700)
	if data, err := json.MarshalIndent(a.disagreed, "", "  "); err == nil {
		tmp := a.file + ".tmp"
		if os.WriteFile(tmp, data, 0o600) == nil {
			_ = os.Rename(tmp, a.file)
		}
	}
}

// proveAfter starts, in the background, TypeScript 7's proof for the
// projects of plan, whose own checker (the project's tsc) has just kept
// its answer for the unchanged tree of snap: one job per checker, as the
// batch baseline's warm-up (see background.go).
func (v *Validator) proveAfter(snap *Snapshot, g *group, plan *batchPlan) {
	if v.opts.OneRequest {
		return
	}
	own := plan.checker
	var configs []string
	for _, config := range plan.configs {
		if v.wantsProof(own, config, snap) && own.Ready(config, snap.Fingerprint) {
			configs = append(configs, config)
		}
	}
	if len(configs) == 0 {
		return
	}
	nc := v.native()
	v.work.run(v.bg, g.server.Spec().Name, nc.Tool().Label, snap.Fingerprint,
		fmt.Sprintf("whether %s gives %s's answer, to take the project's batch runs where it does", nc.Tool().Label, own.Tool().Label),
		configs, v.opts.LoadTimeout, v.warmAndProve(own, snap, g.server))
}

// wantsProof reports whether TypeScript 7's agreement with own (the
// project's tsc) on config is still to be proven at snap's disk state.
func (v *Validator) wantsProof(own *batch.Checker, config string, snap *Snapshot) bool {
	if own.Tool().Kind != batch.TSC || v.native() == nil {
		return false
	}
	return !v.agreementDisagreed(config) && !v.agreementProven(config, snap.Fingerprint)
}

func (v *Validator) agreementDisagreed(config string) bool {
	v.agree.mu.Lock()
	defer v.agree.mu.Unlock()
	_, ok := v.agree.disagreed[config]
	return ok
}

func (v *Validator) agreementProven(config, state string) bool {
	v.agree.mu.Lock()
	defer v.agree.mu.Unlock()
	p, ok := v.agree.proofs[config]
	return ok && p.diskState == state
}

// Disagreements returns, per project, what TypeScript 7 and the
// project's compiler were seen to differ on (for 'anvil doctor').
func (v *Validator) Disagreements() map[string]string {
	v.native()
	v.agree.mu.Lock()
	defer v.agree.mu.Unlock()
	return maps.Clone(v.agree.disagreed)
}

// disagreementsFile is where the disagreements seen on the workspace at
// root are kept, in dir.
func disagreementsFile(dir, root string) string {
	return filepath.Join(dir, "typescript-7-disagreements-"+workspaceKey(root)+".json")
}

// NativeDisagreements returns what TypeScript 7 and the project's own
// compiler were seen to differ on, per project of the workspace at root,
// as kept in stateDir (Options.StateDir): for 'anvil doctor'.
func NativeDisagreements(stateDir, root string) map[string]string {
	return readDisagreements(disagreementsFile(stateDir, root))
}

// readDisagreements reads the kept disagreements; a file that cannot be
// read is none (the worst it costs is a proof that fails again).
func readDisagreements(file string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	if json.Unmarshal(data, &out) != nil {
		return map[string]string{}
	}
	return out
}

// agreementKey digests what a proof holds for beside the sources: every
// JSON file of the workspace (the tsconfigs and jsconfigs, whatever the
// name of a base one extends; the package.json files; data code
// imports), each by size, time and digest (a full scan leaves the digest
// empty: the stat tells a change), and the installed packages, manifests
// and lock files (the snapshot's ecma dependencies).
func agreementKey(snap *Snapshot) string {
	h := sha256.New()
	fmt.Fprintf(h, "deps=%s\x00", snap.Deps["ecma"])
	for _, rel := range snap.Files.Sorted() {
		if path.Ext(rel) == ".json" {
			st := snap.Files[rel]
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00", rel, st.Size, st.ModTime, st.Digest)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// errorKey is what the two compilers must agree on for one error: its
// file, line and code. Their messages' words may differ between
// versions; the columns of the same error too.
type errorKey struct {
	file string
	line int
	code string
}

// answersDiffer compares two answers' errors by errorKey, counting
// repeats; "" when they agree, else the first difference.
func answersDiffer(a, b map[string][]lsp.Diagnostic) string {
	count := func(m map[string][]lsp.Diagnostic) map[errorKey]int {
		out := map[errorKey]int{}
		for file, diags := range m {
			for _, d := range diags {
				if d.IsError() {
					out[errorKey{file, d.Range.Start.Line, d.CodeString()}]++
				}
			}
		}
		return out
	}
	ca, cb := count(a), count(b)
	var diffs []string
	for k, n := range ca {
		if cb[k] != n {
			diffs = append(diffs, fmt.Sprintf("%s:%d TS%s (%d against %d)", k.file, k.line+1, k.code, n, cb[k]))
		}
	}
	for k, n := range cb {
		if _, ok := ca[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s:%d TS%s (0 against %d)", k.file, k.line+1, k.code, n))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	slices.Sort(diffs)
	if len(diffs) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(diffs[:3], ", "), len(diffs)-3)
	}
	return strings.Join(diffs, ", ")
}

// newErrorsOf returns the errors of a batch result's changed tree that
// its unchanged tree did not have (same file and code, counted).
func newErrorsOf(r *batch.Result) map[string][]lsp.Diagnostic {
	out := map[string][]lsp.Diagnostic{}
	for file, after := range r.After {
		before := map[string]int{}
		for _, d := range r.Before[file] {
			if d.IsError() {
				before[d.CodeString()+"\x00"+d.Message]++
			}
		}
		for _, d := range after {
			if !d.IsError() {
				continue
			}
			k := d.CodeString() + "\x00" + d.Message
			if before[k] > 0 {
				before[k]--
				continue
			}
			out[file] = append(out[file], d)
		}
	}
	return out
}

// confirm holds TypeScript 7 to the project's compiler on a change both
// checked (a commit, the end of a turn), whose answers cover configs (a
// batch run's project, or a server's, file by file): when their new
// errors differ, each project keeps its own compiler from now on, and
// the returned note says why.
func (v *Validator) confirm(configs []string, ownLabel, nativeLabel string, own, native *batch.Result) string {
	differ := answersDiffer(newErrorsOf(own), newErrorsOf(native))
	if differ == "" {
		return ""
	}
	why := fmt.Sprintf("on this change, %s and %s find different new errors: %s", ownLabel, nativeLabel, differ)
	a := &v.agree
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, config := range configs {
		v.recordDisagreementLocked(config, why)
	}
	return fmt.Sprintf("%s: %s; %s checks %s from now on", strings.Join(configs, ", "), why, ownLabel, plural(len(configs), "the project", "the projects"))
}

// holdNative runs TypeScript 7 over the change a confirming check ran the
// project's tsc for (own is that run's answer for config) and holds its
// new errors to the project's compiler's: a note when they differ. A run
// of TypeScript 7 that fails holds it to nothing; the verdict is the
// project's compiler's either way.
func (v *Validator) holdNative(ctx context.Context, ownLabel, config string, snap *Snapshot, changes []batch.Change, fresh bool, own *batch.Result) string {
	nc := v.native()
	if nc == nil {
		return ""
	}
	res, err := nc.Check(ctx, config, snap.Fingerprint, changes, fresh)
	if err != nil {
		return ""
	}
	return v.confirm([]string{config}, ownLabel, nc.Tool().Label, own, res)
}
