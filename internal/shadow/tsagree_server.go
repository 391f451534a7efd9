package shadow

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// TypeScript 7's server where it agrees. The proof that lets TypeScript
// 7's tsc take a project's batch runs (tsagree.go) lets its server answer
// file by file too: on date-fns, tsserver of TypeScript 6 takes 25-40 ms
// to check an edited file and 20-50 ms to rebuild its program after each
// change, where TypeScript 7's server answers in a few milliseconds, and
// the pre-edit hook waits on that answer for every edit. The terms are
// the batch runs' (nativeFor), narrowed to what the server reads as tsc
// does:
//
//   - no configuration change, no created or deleted file: edits of
//     existing files only (a created file's project, which tsserver's
//     cycle carries it into, is the server's own choice);
//   - every file in the project its nearest tsconfig.json opens, the one
//     both servers take it into and the one the proof ran tsc -p on;
//   - no baseUrl: the batch runs read it as paths through an overlay of
//     the configuration (baseURLAsPaths), which the server, reading its
//     configuration from disk, would not have;
//   - never where the project's own compiler decides: a commit and the
//     end of a hooked agent's turn (checkWork.confirm) are tsserver's.

// nativeServer returns a checker of TypeScript 7's server for w in place
// of the project's tsserver, or nil where the project's own server
// checks.
func (v *Validator) nativeServer(w checkWork) checker {
	if w.confirm {
		return nil
	}
	srv, _, why := v.standIn(w)
	if srv == nil {
		return nil
	}
	return nativeServerChecker{serverChecker{v: v, srv: srv}, why}
}

// heldServer returns, for a check the project's own server decides (a
// commit, a turn's end) of a change TypeScript 7's server could have
// answered, own held to TypeScript 7's answer on the same change: the
// confirmation of the answers it gave at the edits. nil where TypeScript
// 7's server would not stand in.
func (v *Validator) heldServer(w checkWork, own serverChecker) checker {
	if !w.confirm {
		return nil
	}
	srv, configs, _ := v.standIn(w)
	if srv == nil {
		return nil
	}
	return heldServerChecker{own, serverChecker{v: v, srv: srv}, configs}
}

// standIn returns TypeScript 7's server where it may answer for w in
// place of the project's tsserver, the projects it answers for, and why
// it may; nil where it may not.
func (v *Validator) standIn(w checkWork) (*servers.Server, []string, string) {
	g := w.g
	if g.server.Spec().Mode != servers.ModeTSServer || len(w.req.Files) == 0 || !servers.EditsInPlace(w.req.Files) {
		return nil, nil, ""
	}
	own := v.batchFor(g.server)
	if own == nil || own.Tool().Kind != batch.TSC {
		return nil, nil, ""
	}
	files := batchFiles(w.req)
	configs, ok := v.nearestProjects(files)
	if !ok {
		return nil, nil, ""
	}
	for _, config := range configs {
		if len(v.baseURLAsPaths(config)) > 0 {
			return nil, nil, ""
		}
	}
	nc, why := v.nativeFor(own, w.snap, configs)
	if nc == nil {
		return nil, nil, ""
	}
	srv, ok := v.servers.NativeFor(g.lang)
	if !ok {
		return nil, nil, ""
	}
	if !srv.Prepared(files) {
		// Not started, or its projects not loaded (a restart, another
		// project): tsserver, which is, checks this change, and
		// TypeScript 7's server loads them meanwhile for the next.
		v.loadNative(w.snap, srv, files)
		return nil, nil, ""
	}
	return srv, configs, why
}

// loadNative has srv start and load the projects of files, in the
// background: the server's one job, cancelled by the next disk state.
func (v *Validator) loadNative(snap *Snapshot, srv *servers.Server, files []string) {
	if v.opts.OneRequest {
		return
	}
	name := srv.Spec().Name
	v.work.run(v.bg, name+" server", name, snap.Fingerprint, "its projects loaded, to answer for edits in place of tsserver", []string{v.root.Dir()}, v.opts.LoadTimeout, func(ctx context.Context, _ string) {
		_ = srv.Prepare(ctx, files, nil)
	})
}

// nearestProjects returns the projects (tsconfig.json) of files, false
// when a file's project is not the nearest configuration above it: a
// file some other project includes, or none.
func (v *Validator) nearestProjects(files []string) ([]string, bool) {
	projects := tsconfig.NewProjects(v.root.Dir())
	var configs []string
	for _, abs := range files {
		owner := projects.Owner(abs)
		if owner == nil || owner.Path != tsconfig.Nearest(v.root.Dir(), filepath.Dir(abs)) {
			return nil, false
		}
		if !slices.Contains(configs, owner.Path) {
			configs = append(configs, owner.Path)
		}
	}
	return configs, len(configs) > 0
}

// nativeServerChecker is TypeScript 7's server checking in place of the
// project's tsserver. Its answers are TypeScript 7's, so they are never
// kept as the project's compiler's (evidence.stoodIn), and a failure of
// it is no verdict: the project's own server checks instead.
type nativeServerChecker struct {
	serverChecker
	// why says why it may: the proof it rests on.
	why string
}

func (n nativeServerChecker) check(ctx context.Context, w checkWork) (evidence, error) {
	ev, err := n.serverChecker.check(ctx, w)
	if u := new(unverifiableError); errors.As(err, &u) {
		// The project's own server, the fallback, may still answer.
		return evidence{}, errors.New(u.reason)
	}
	if err != nil {
		return evidence{}, err
	}
	ev.via = "TypeScript 7's server, file by file, " + n.why
	ev.stoodIn = true
	return ev, nil
}

// heldServerChecker is the project's own server deciding, and TypeScript
// 7's server held to its answer on the same change: new errors that
// differ switch the projects back to their own compiler for good (as a
// batch run's do: holdNative). TypeScript 7's check only says whether
// it agreed; it cannot cost the verdict.
type heldServerChecker struct {
	serverChecker
	native  serverChecker
	configs []string
}

func (h heldServerChecker) check(ctx context.Context, w checkWork) (evidence, error) {
	// The two servers are two processes: asked at once, the turn's end
	// waits for the slower, not for both (date-fns: 2.9 s p50 one after
	// the other, against 2.0 s for tsserver alone), and for TypeScript
	// 7's at most heldGrace longer than for tsserver's: its answer
	// cannot cost the verdict its time either. The cut is a cancellation,
	// which leaves the server running on the disk.
	nctx, cut := context.WithCancel(ctx)
	defer cut()
	nw := w
	nw.req.OnWait, nw.req.AfterOverlay = nil, nil // tsserver's
	var nev evidence
	var nerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		nev, nerr = h.native.check(nctx, nw)
	}()
	ev, err := h.serverChecker.check(ctx, w)
	if err != nil {
		cut()
	}
	select {
	case <-done:
	case <-time.After(heldGrace):
		cut()
		<-done
	}
	if err != nil || nerr != nil {
		return ev, err
	}
	own, native, ok := bothWhole(ev.cr, nev.cr)
	if !ok {
		ev.via += "; TypeScript 7's server, held to its answer, stopped short of the files tsserver checked: not compared"
		return ev, nil
	}
	if note := h.v.confirm(h.configs, h.label(), "TypeScript 7's server", own, native); note != "" {
		ev.via += "; " + note
	} else {
		ev.via += "; TypeScript 7's server, held to its answer, agreed"
	}
	return ev, nil
}

// heldGrace is how much longer than tsserver TypeScript 7's server may
// take to answer a confirming check before it is cut (and not compared).
const heldGrace = 2 * time.Second

// bothWhole returns the two servers' answers for the files they both
// checked after the change, false unless each checked the same files
// whole: a pull server stops at the direct importers once they have new
// errors, and the files it left would read as errors only the other
// found.
func bothWhole(own, native servers.CheckResult) (*batch.Result, *batch.Result, bool) {
	if own.Skipped > 0 || native.Skipped > 0 || !slices.Equal(sortedCopy(own.Checked), sortedCopy(native.Checked)) {
		return nil, nil, false
	}
	result := func(cr servers.CheckResult) *batch.Result {
		return &batch.Result{Before: cr.Before, After: cr.After}
	}
	return result(own), result(native), true
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
