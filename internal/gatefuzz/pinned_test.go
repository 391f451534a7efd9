package gatefuzz_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/gatefuzz"
	"github.com/anvil-dev/anvil/internal/service"
)

// A workspace pinned to an older TypeScript is checked by TypeScript 6's
// tsserver and tsc, and by TypeScript 7 in their place once a proof holds
// that the two compilers agree on the unchanged tree: its server answers
// the pre-edit hook, and is held to tsserver's answer at the end of a
// turn (internal/shadow/tsagree_server.go). The fuzzer's projects pin no
// TypeScript, so these trials pin one in the workspace's package.json and
// rehearse each edit (HookGate.AwaitQuiet): the proof and TypeScript 7's
// loading of the project are done in the background before the edit is
// made, as they are for a model's third edit of a file, and every
// project is proven however small (app.Options.WarmBatchFiles).

// pinnedTypeScript is the version the trials pin: TypeScript 5, which
// the tests' machines do not install, so Anvil checks with its own 6.
const pinnedTypeScript = "5.9.3"

// settleBound bounds the wait for one edit's background work: a proof
// (both compilers over one small project) and a project loaded.
const settleBound = 2 * time.Minute

// answerers counts the checks of a campaign by who answered them.
type answerers struct {
	mu sync.Mutex
	n  map[string]int
}

func (a *answerers) add(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == nil {
		a.n = map[string]int{}
	}
	a.n[key]++
}

func (a *answerers) count(key string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n[key]
}

func (a *answerers) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a.n)) {
		parts = append(parts, fmt.Sprintf("%d× %s", a.n[k], k))
	}
	return strings.Join(parts, ", ")
}

// The kinds of answer the pinned trials count.
const (
	editByNative  = "pre-edit: TypeScript 7's server"
	endHeldAgreed = "turn's end: TypeScript 7 held and agreed"
)

// recordAnswerers is a workspace's Service that counts who answered its
// TypeScript checks.
type recordAnswerers struct {
	service.Service
	seen *answerers
}

func (r recordAnswerers) Check(ctx context.Context, specs []changeset.Spec, opts service.GateOptions) (*service.Outcome, error) {
	out, err := r.Service.Check(ctx, specs, opts)
	if out == nil || out.Result == nil {
		return out, err
	}
	for _, s := range out.Result.Servers {
		held := strings.Index(s.Via, "TypeScript 7's server, held")
		switch {
		case !opts.Complete && strings.HasPrefix(s.Via, "TypeScript 7's server"):
			r.seen.add(editByNative)
		case !opts.Complete:
			r.seen.add("pre-edit: " + s.Name)
		case strings.Contains(s.Via, "held to its answer, agreed"):
			r.seen.add(endHeldAgreed)
		case held >= 0:
			r.seen.add("turn's end: " + s.Via[held:])
		default:
			r.seen.add("turn's end: " + s.Name + " alone")
		}
	}
	return out, err
}

// throughPinnedHooks is throughHooks for a pinned workspace: each edit
// rehearsed, and the background work it started awaited, before it is
// made; seen counts who answered. Every project, however small, gets
// its proof.
func throughPinnedHooks(t *testing.T, seen *answerers) gatefuzz.OpenGate {
	return hooksGate(t, app.Options{WarmBatchFiles: 1}, func(a *app.App, g *gatefuzz.HookGate) {
		g.Gate.Open = func(context.Context, string) (service.Service, func(), error) {
			return recordAnswerers{a.Service(), seen}, func() {}, nil
		}
		g.AwaitQuiet = func(ctx context.Context) error { return awaitQuiet(ctx, a) }
	})
}

// awaitQuiet waits, at most settleBound, until a's validator runs no
// background job.
func awaitQuiet(ctx context.Context, a *app.App) error {
	deadline := time.Now().Add(settleBound)
	for len(a.Validator.Background()) > 0 && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// pinnedSampleTrials is the pinned sample CI runs (about 5 s a trial at
// a load near 2: a proof and a project loaded for each).
const pinnedSampleTrials = 16

// TestGateFuzzSamplePinned holds TypeScript 7's server, standing in for
// a pinned project's tsserver, to the batch checker: no false clean on a
// fixed-seed sample, and the sample must have reached it (TypeScript 7
// answering pre-edit checks, and held to tsserver's answer at turns'
// ends), or it tests nothing of it.
func TestGateFuzzSamplePinned(t *testing.T) {
	ts := languages(t)["ts"].(gatefuzz.TS)
	ts.Pin = pinnedTypeScript
	var seen answerers
	runSample(t, ts, pinnedSampleTrials, throughPinnedHooks(t, &seen))
	t.Logf("answered by: %s", &seen)
	if n := seen.count(editByNative); n < pinnedSampleTrials/2 {
		t.Errorf("TypeScript 7's server answered %d pre-edit checks of %d trials, want at least %d: %s", n, pinnedSampleTrials, pinnedSampleTrials/2, &seen)
	}
	if seen.count(endHeldAgreed) == 0 {
		t.Errorf("no turn's end held TypeScript 7's server to tsserver's answer: %s", &seen)
	}
}
