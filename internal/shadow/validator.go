// Package shadow is Anvil's shadow workspace: it validates a change set
// with real language servers before any byte reaches the user's files.
//
// The proposed contents are shown to the servers as overlays on the real
// files' URIs (didOpen/didChange, never written to disk). Each server is
// asked for the diagnostics of the changed files and of the files that
// depend on them, before and after; only errors the change introduces
// block it. A file no server could check makes the verdict unverified,
// never clean. Every cycle is appended to the session's shadow.log.
package shadow

import (
	"context"
	"errors"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"go/build"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsserver"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// DependantFinder finds the files of a snapshot that depend on (import,
// directly or through other files) the given ones, and why (package
// reach). Paths are workspace-relative.
type DependantFinder interface {
	Dependants(ctx context.Context, files reach.Files, changes []*changeset.Change, limit int) (reach.Dependants, error)
}

// interfaceKeeper is a DependantFinder that can tell, without finding
// the dependants, that changes have none (reach.Graph.InterfacesKept).
type interfaceKeeper interface {
	InterfacesKept(ctx context.Context, files reach.Files, changes []*changeset.Change) bool
}

// Options configure a Validator.
type Options struct {
	// Timeout bounds how long a server may write nothing during a check:
	// a server that stays silent that long is hung, and the files it has
	// not answered for make the verdict unverified. A server answering
	// file after file keeps going, up to LoadTimeout. Zero means 30 s.
	Timeout time.Duration
	// MaxDependants bounds the dependants one server checks for a change;
	// a change with more is unverified, never clean. Zero means 5,000.
	MaxDependants int
	// Log, if set, receives one NDJSON record per validation.
	Log *Log
	// Clock returns the time; nil means time.Now.
	Clock func() time.Time
	// LoadTimeout bounds what comes before a check: starting a server,
	// having it load the project, finding the dependants. Zero means
	// 5 minutes: a first check of a large project is slow, not hung.
	LoadTimeout time.Duration
	// Progress, if set, is told what a validation is doing while it runs
	// (for a terminal's status line; it must not block).
	Progress func(Progress)
	// AfterOverlay, if set, runs once a server has been handed the change;
	// tests use it to crash a server in the middle of a validation.
	AfterOverlay func(server *servers.Server)
	// Exhaustive checks every dependant even when the nearer files
	// already have new errors (which rejects the change either way);
	// tests compare the files checked with the batch checker's.
	Exhaustive bool
	// Strategy chooses between the servers, file by file, and the
	// projects' batch checkers (see StrategyAuto); "" means auto.
	Strategy Strategy
	// BatchStateDir keeps the batch checkers' incremental state; empty
	// disables them.
	BatchStateDir string
	// Policy decides which programs run and seals every command in a
	// shadow tree (batch checkers, cargo check, [check], compile
	// commands); without one nothing runs there.
	Policy *execpolicy.Policy
	// WarmBatch computes the unchanged tree's answers in the background
	// after a check: a large project's batch baseline (see warmBatch), a
	// small one's from a server that answers only when asked (see
	// warmBaseline).
	WarmBatch bool
	// WarmBatchFiles is the number of a language's files from which
	// WarmBatch applies; zero means 400.
	WarmBatchFiles int
	// Check is the project's own checker ([check]), nil for none: it
	// checks the files it covers instead of any server (see
	// projectcheck.go).
	Check *ProjectCheck
	// CargoNetwork lets cargo check reach the network; without it cargo
	// runs --offline.
	CargoNetwork bool
	// OneRequest: the validator serves one request in a process that
	// exits after it (a one-shot 'anvil check', a hook without the
	// daemon). It starts no work ahead of need (a batch baseline,
	// pyright's record, TypeScript 7's proof), which that exit would
	// cancel, and wait for.
	OneRequest bool
	// NativeWhereAgrees lets TypeScript 7's tsc take the batch runs of a
	// project on TypeScript 6 or older while its answers are the
	// project's compiler's (see tsagree.go).
	NativeWhereAgrees bool
	// StateDir keeps what must outlive the cache (where TypeScript 7
	// was seen to disagree); "" keeps it in BatchStateDir.
	StateDir string
	// GoBuild is the platform the go command builds for in its sealed
	// runs (GOOS, GOARCH, CGO_ENABLED, as the composition root read them):
	// which Go files `go vet` builds, and so whose embedded files its
	// silence answers for. Nil: not known, and such a file is unverified.
	GoBuild *build.Context
}

// Progress is one step of a validation in progress.
type Progress struct {
	Server string
	// Stage is "starting", "loading" (the project, on a first check),
	// "waiting" (for the server's turn, Message says why) or "checking".
	Stage string
	// Files is how many files the check asks about (checking).
	Files int
	// Message says what a wait is for.
	Message string
}

func (p Progress) String() string {
	switch p.Stage {
	case "waiting":
		return p.Message
	case "starting":
		return "starting " + p.Server + "…"
	case "loading":
		return p.Server + ": loading the project…"
	}
	return fmt.Sprintf("%s: checking %d %s…", p.Server, p.Files, plural(p.Files, "file", "files"))
}

// Scope is how far past the changed files a validation looks. The zero
// Scope is a commit's: every dependant, stopping once the nearer files
// have new errors (a rejection needs no more of them).
type Scope struct {
	// Staging is a check made while a change is being built: with early
	// cut-off, a change to an interface is checked in the changed files
	// and the files that use them directly, and the verdict says how many
	// further dependants the complete check would add.
	Staging bool
	// ChangedOnly checks the changed files alone: no dependant is asked
	// about, and the verdict says when there were any to leave
	// (Result.DependantsLeft, by the early cut-off alone). Only a caller
	// that checks them later may ask for it (the pre-edit hook, whose end
	// of the turn checks every dependant).
	ChangedOnly bool
	// DependantsWithin, when set, bounds what asking about the dependants
	// is expected to cost (the server's learned cost per question): past
	// it they are left out as with ChangedOnly. Only a caller that checks
	// them later may set it (the pre-edit hook: an agent waits on every
	// edit, and a hub's importers take it seconds).
	DependantsWithin time.Duration
	// NewOnly: the caller reads only the errors the change introduces,
	// not those it resolves (the pre-edit hook). A server that can asks
	// the "before" only of the files with an error after the change
	// (servers.CheckRequest.NewErrorsOnly), so Resolved may miss some;
	// such answers are not kept for a later check of the same state.
	NewOnly bool
	// Complete checks every dependant even once the nearer files have
	// new errors, so that every error the change resolves is reported too.
	// The project's own compiler decides it (see Confirm).
	Complete bool
	// Confirm has the project's own compiler decide where a faster one
	// stands in for it elsewhere (TypeScript 7 where it agrees: see
	// tsagree.go): a commit, which writes the user's files.
	Confirm bool
}

// progress tells the validator's sink and the request's (say, nil for
// none) what a validation is doing.
func (v *Validator) progress(say func(Progress), p Progress) {
	if v.opts.Progress != nil {
		v.opts.Progress(p)
	}
	if say != nil {
		say(p)
	}
}

// Validator checks change sets against a workspace's language servers.
type Validator struct {
	root    *workspace.Root
	servers *servers.Manager
	deps    DependantFinder
	opts    Options
	disk    *diskWatcher
	// syncing is held from a disk scan until the servers have been told
	// what it found: a validation running beside another (a daemon's
	// clients) must not check before the servers know the disk it saw.
	syncing sync.Mutex
	// stamps are the dependency stamps of the last scan (guarded by
	// syncing).
	stamps map[string]string
	costs  costs
	batch  batchers
	reuse  reuse
	cbase  compileBaselineCache
	// agree is where TypeScript 7 agrees with the project's compiler.
	agree nativeAgreement
	// cargoMeta is what cargo metadata said cargo check would run.
	cargoMeta cargoMetaCache
	// bg bounds the work done ahead of need (warming batch baselines);
	// Close cancels it. work is that work, one job per checker.
	bg       context.Context
	cancelBg context.CancelFunc
	work     background
}

// New returns a validator. deps may be nil, in which case only the changed
// files are checked with servers that do not report dependants themselves.
func New(root *workspace.Root, mgr *servers.Manager, deps DependantFinder, opts Options) *Validator {
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.MaxDependants == 0 {
		opts.MaxDependants = 5000
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.LoadTimeout == 0 {
		opts.LoadTimeout = 5 * time.Minute
	}
	if opts.WarmBatchFiles == 0 {
		opts.WarmBatchFiles = warmBatchFiles
	}
	bg, cancel := context.WithCancel(context.Background())
	return &Validator{root: root, servers: mgr, deps: deps, opts: opts, disk: &diskWatcher{root: root, notify: true},
		costs: costs{perQuestion: map[string]float64{}, batch: map[string]float64{}}, batch: batchers{by: map[string]*batch.Checker{}},
		bg: bg, cancelBg: cancel}
}

// Close releases what the validator holds of the system (its file-system
// notifications); the servers are the manager's.
func (v *Validator) Close() {
	v.cancelBg()
	v.work.wait(closeWait)
	v.disk.close()
}

// closeWait bounds how long Close waits for the background jobs it
// cancelled to end (their processes killed and reaped: sandbox.Run's own
// bound is 2 s after the kill).
const closeWait = 5 * time.Second

// Background returns the work the validator does ahead of need, now.
func (v *Validator) Background() []BackgroundJob {
	return v.work.list()
}

// CancelBackground cancels the work the validator does ahead of need
// (a daemon over its memory bound sheds it first: no check waits on it)
// and returns how many jobs it cancelled. Their processes are killed and
// reaped within sandbox.Run's bound; a later check may start new work.
func (v *Validator) CancelBackground() int {
	return v.work.cancelAll()
}

// group is the part of a change set one server checks.
type group struct {
	server  *servers.Server
	changes []*changeset.Change
	lang    string
	// config: the changes include a configuration file (go.mod,
	// tsconfig.json), so every file of its project depends on them.
	config bool
	// diskConfig are the group's configuration files (workspace-relative)
	// its server reads only from disk (and the go command's module
	// files): a batch run of the projects they reach checks the group
	// (see configPlan).
	diskConfig []string
	// inferred: a file of diskConfig also governs the files no project
	// includes (a package.json, imported data), which no batch run checks.
	inferred bool
	// data are the files of diskConfig that are data code imports.
	data []string
	// project, when set, checks the group instead of a server: the
	// project's own checker ([check], cargo check; see projectcheck.go).
	project *projectChecker
	// say is the request's progress sink (nil for none).
	say func(Progress)
}

// groups are a validation's groups by what checks them, in the order
// first met.
type groups struct {
	by    map[string]*group
	order []string
}

// add puts c in the group of srv (made for lang if new); config says c is
// a configuration file the server's projects read.
func (gs *groups) add(srv *servers.Server, lang string, c *changeset.Change, config bool) *group {
	name := srv.Spec().Name
	g, ok := gs.by[name]
	if !ok {
		g = &group{server: srv, lang: lang}
		gs.by[name] = g
		gs.order = append(gs.order, name)
	}
	g.changes = append(g.changes, c)
	g.config = g.config || config
	return g
}

// moduleFile reports whether p is one of the go command's module files.
// gopls takes go.mod and go.work as overlays but reads go.sum only from
// disk, and what a go.mod requires loads only as far as go.sum's entries
// allow: gopls checked a bumped requirement against the old module and
// found nothing (a real history: a go.mod applied alone that breaks
// command.go passed; go.mod and go.sum together were refused for errors
// of the old module). So any of them goes to the go command itself, over
// the changed tree, where it can run.
func moduleFile(p string) bool {
	switch path.Base(p) {
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return true
	}
	return false
}

// addConfig puts c, a configuration file srv's projects read, in srv's
// group. One srv reads only from disk goes to the batch checker, which
// reads it in a shadow tree (see configPlan); with no batch checker it is
// unverified, and the reason is returned. why prefixes the reason;
// data says c is data code imports (whose importers the import graph
// finds), not a configuration.
func (v *Validator) addConfig(gs *groups, srv *servers.Server, lang string, c *changeset.Change, why string, data bool) (unverified string) {
	if srv.Spec().TakesConfig(c.Path) && !(moduleFile(c.Path) && v.batchFor(srv) != nil) {
		gs.add(srv, lang, c, true)
		return ""
	}
	if v.batchFor(srv) == nil {
		return why + configUnverifiable(srv.Spec(), c.Path)
	}
	g := gs.add(srv, lang, c, true)
	g.diskConfig = append(g.diskConfig, c.Path)
	// A package.json and imported data also govern the files no project
	// includes (their module format, their importers' types).
	g.inferred = g.inferred || data || path.Base(c.Path) == "package.json"
	if data {
		g.data = append(g.data, c.Path)
	}
	return ""
}

// name is what checks the group.
func (g *group) name() string {
	if g.project != nil {
		return g.project.name
	}
	return g.server.Spec().Name
}

// Validate checks set and returns the verdict with the diagnostics behind
// it. attempt numbers the try for the log. The user's files are never
// written. An error is returned only for a bad change set; server trouble
// becomes an unverified verdict. progress, when set, is told what the
// validation is doing ("gopls: checking 3 files…"); it must not block.
func (v *Validator) Validate(ctx context.Context, set *changeset.Set, attempt int, scope Scope, progress func(Progress)) (*Result, error) {
	// The workspace is its directory: one replaced at the same path (a
	// fresh clone) is not the one the servers and caches know.
	if err := v.root.Replaced(); err != nil {
		return nil, err
	}
	start := v.opts.Clock()
	res := &Result{New: []Diag{}, Resolved: []Diag{}, Preexisting: []Diag{}, CheckedFiles: []string{}, Servers: []ServerInfo{}}
	gs := &groups{by: map[string]*group{}}
	for _, c := range set.Changes() {
		if c.Unchanged() {
			continue
		}
		lang := servers.LanguageOf(c.Path)
		if pc := v.projectCheckerFor(c.Path); pc != nil {
			g, ok := gs.by[pc.name]
			if !ok {
				g = &group{project: pc, lang: pc.language}
				gs.by[pc.name] = g
				gs.order = append(gs.order, pc.name)
			}
			g.changes = append(g.changes, c)
			continue
		}
		if lang == "" {
			lang = cFragmentLanguage(c.Path)
		}
		config := false
		if lang == "" {
			if lang = servers.ConfigLanguage(c.Path); lang == "" {
				res.NotCode = append(res.NotCode, Skipped{Path: c.Path, Reason: "no language server applies to this kind of file"})
				continue
			}
			config = true
		}
		srv, err := v.servers.ForLanguage(lang)
		if err != nil {
			res.Unverified = append(res.Unverified, Skipped{Path: c.Path, Reason: err.Error()})
			continue
		}
		// The compile database is checked by compiling every unit with
		// it (cdatabase.go); other configuration goes to the server as
		// an overlay, or to the batch checker (addConfig).
		compiled := srv.Spec().ReadsDiskIncludes && path.Base(c.Path) == compiledb.CommandsFile
		if config && !compiled {
			if why := v.addConfig(gs, srv, lang, c, "", false); why != "" {
				res.Unverified = append(res.Unverified, Skipped{Path: c.Path, Reason: why})
			}
			continue
		}
		gs.add(srv, lang, c, config)
	}

	// Only the check itself runs under the validation timeout; what comes
	// before it is bounded by the load timeout (see checkGroup).
	lctx, cancel := context.WithTimeout(ctx, v.opts.LoadTimeout)
	defer cancel()
	snap, err := v.syncDisk(lctx)
	if err != nil {
		return nil, err
	}
	res.DiskState = snap.Fingerprint
	// pyright's record for this disk state is made while the check runs
	// and the model thinks (at a low priority): the next check takes it.
	defer v.refreshRecords(snap)
	// A file no server applies to may still be read by a checker: the
	// inventory decides, once, what reads each.
	var read []unread
	res.NotCode, read = v.readersOf(lctx, snap, set, res.NotCode)
	for _, r := range read {
		if r.unverified != "" {
			res.Unverified = append(res.Unverified, Skipped{Path: r.change.Path, Reason: r.unverified})
			continue
		}
		srv, err := v.servers.ForLanguage(r.lang)
		switch {
		case err != nil:
			res.Unverified = append(res.Unverified, Skipped{Path: r.change.Path, Reason: err.Error()})
		case r.config:
			if why := v.addConfig(gs, srv, r.lang, r.change, r.why, r.data); why != "" {
				res.Unverified = append(res.Unverified, Skipped{Path: r.change.Path, Reason: why})
			}
		default:
			gs.add(srv, r.lang, r.change, r.config)
		}
	}
	for _, g := range gs.by {
		g.say = progress
	}
	outcomes := make([]groupOutcome, len(gs.order))
	var wg sync.WaitGroup
	for i, name := range gs.order {
		wg.Go(func() { outcomes[i] = v.checkGroup(ctx, snap, gs.by[name], scope) })
	}
	wg.Wait()

	for _, o := range outcomes {
		res.Servers = append(res.Servers, o.info)
		res.Unverified = append(res.Unverified, o.unverified...)
		res.New = append(res.New, o.newErrs...)
		res.Resolved = append(res.Resolved, o.resolved...)
		res.Preexisting = append(res.Preexisting, o.pre...)
		res.CheckedFiles = append(res.CheckedFiles, o.checked...)
		res.Notes = append(res.Notes, o.notes...)
		res.DependantsLeft = res.DependantsLeft || o.dependantsLeft
	}
	sortDiags(res.New)
	sortDiags(res.Resolved)
	sortDiags(res.Preexisting)
	sort.Strings(res.CheckedFiles)
	switch {
	case len(res.New) > 0:
		res.Verdict = Rejected
	case len(res.Unverified) > 0:
		res.Verdict = Unverified
	case len(res.CheckedFiles) == 0 && slices.ContainsFunc(outcomes, func(o groupOutcome) bool { return !o.answered() }):
		// Code or configuration changed and no server reported on any
		// file: nothing shows the change was seen. (A checker that ran
		// over the whole project and finished saw it, and found nothing.)
		for i, name := range gs.order {
			if outcomes[i].answered() {
				continue
			}
			why := gs.by[name].name() + " reported on no file after the change"
			if outcomes[i].dependantsLeft {
				why = gs.by[name].name() + " had no file of the change left to check, and the files that depend on it are left to a complete check"
			}
			for _, c := range gs.by[name].changes {
				res.Unverified = append(res.Unverified, Skipped{Path: c.Path, Reason: why})
			}
		}
		res.Verdict = Unverified
	default:
		res.Verdict = Clean
	}
	if err := v.root.Replaced(); err != nil {
		// Replaced during the check: the answer is for a directory that
		// is gone.
		return nil, err
	}
	res.Elapsed = v.opts.Clock().Sub(start)
	res.ElapsedMS = res.Elapsed.Milliseconds()
	if v.opts.Log != nil {
		v.opts.Log.Record(v.opts.Clock(), set, attempt, res)
	}
	return res, nil
}

// groupOutcome is one server's share of a result.
type groupOutcome struct {
	info                   ServerInfo
	newErrs, resolved, pre []Diag
	checked                []string
	unverified             []Skipped
	notes                  []string
	// wholeProject: a checker ran over every file of the group's projects
	// and finished (a batch or project checker), so its silence about a
	// file is an answer: no error there.
	wholeProject bool
	// recordedOnly: every change of the group is a deletion the
	// compiler's record shows nothing reads, so no file was left for the
	// checker to report on, and the record is the answer.
	recordedOnly bool
	// dependantsLeft: the scope left the dependants to a later check.
	dependantsLeft bool
}

// left notes that the check left the group's dependants to a later,
// complete one, and why.
func (o *groupOutcome) left(why string) {
	o.notes = append(o.notes, why)
	o.dependantsLeft = true
}

// leaveDependants takes the dependants out of w's request, found but
// left to a later, complete check (Scope.DependantsWithin): what out
// said of them since noted is unsaid, as they are not checked, and why
// is said instead.
func (v *Validator) leaveDependants(w *checkWork, out *groupOutcome, noted int, why string) {
	out.notes = out.notes[:noted]
	out.left(why)
	w.req.Dependants, w.req.DirectDependants = nil, 0
	// What left them out leaves a deleted file's importers out too, and
	// a file the change affects through no import.
	w.recorded, w.coldPython, w.global = false, false, false
}

// dependantsCost is what asking w's server about the dependants in its
// request is expected to cost (milliseconds), and whether that is more
// than within (never when within is 0).
func (v *Validator) dependantsCost(w *checkWork, within time.Duration) (float64, bool) {
	if within <= 0 || len(w.req.Dependants) == 0 {
		return 0, false
	}
	own := w.req
	own.Dependants, own.DirectDependants = nil, 0
	name, srv := w.g.server.Spec().Name, w.g.server
	ms := v.costs.perFileRun(name, srv.Questions(w.req)) - v.costs.perFileRun(name, srv.Questions(own))
	return ms, ms > float64(within.Milliseconds())
}

// answered reports whether the outcome says something of the change
// even when no file was reported on.
func (o groupOutcome) answered() bool { return o.wholeProject || o.recordedOnly }

// unverifiedAll marks every change of g unverified for reason.
func (o groupOutcome) unverifiedAll(g *group, reason string) groupOutcome {
	for _, c := range g.changes {
		o.unverified = append(o.unverified, Skipped{Path: c.Path, Reason: reason})
	}
	return o
}

// configUnverifiable says why a change to the configuration file p cannot
// be checked by the server of spec, and what would check it.
func configUnverifiable(spec servers.Spec, p string) string {
	why := fmt.Sprintf("%s reads %s only from disk, so a change to it cannot be checked before it is written", spec.Name, path.Base(p))
	if spec.Mode == servers.ModeTSServer && nativeTakes(p) {
		why += "; typescript_engine = native checks it with TypeScript 7's server"
	}
	return why
}

// nativeTakes reports whether TypeScript 7's server (the default spec of
// the native engine) takes p as an overlay: only then does switching the
// engine check it (an extended base, imported data, it reads from disk
// too).
func nativeTakes(p string) bool {
	for _, spec := range servers.Defaults() {
		if spec.Name == "tsgo" {
			return spec.TakesConfig(p)
		}
	}
	return false
}

// projectFiles returns, as dependants of a change to configuration, every
// file of the snapshot the group's server checks under the directories of
// the changed configuration files.
func projectFiles(snap *Snapshot, g *group) reach.Dependants {
	var dirs []string
	for _, c := range g.changes {
		if servers.LanguageOf(c.Path) == "" {
			dirs = append(dirs, path.Dir(c.Path))
		}
	}
	langs := g.server.Spec().Languages
	changed := map[string]bool{}
	for _, c := range g.changes {
		changed[c.Path] = true
	}
	var d reach.Dependants
	for _, p := range snap.Sorted() {
		if changed[p] || !slices.Contains(langs, servers.LanguageOf(p)) {
			continue
		}
		for _, dir := range dirs {
			if dir == "." || strings.HasPrefix(p, dir+"/") {
				d.Files = append(d.Files, p)
				break
			}
		}
	}
	d.Direct = len(d.Files)
	return d
}

// syncDisk snapshots the workspace and tells the running servers about the
// files that changed on disk since the last validation.
func (v *Validator) syncDisk(ctx context.Context) (*Snapshot, error) {
	v.syncing.Lock()
	defer v.syncing.Unlock()
	snap, changes, err := v.disk.scan(ctx)
	if err != nil {
		return nil, err
	}
	// Work ahead of need for an earlier disk state is no use any more.
	v.work.supersede(snap.Fingerprint)
	if v.stamps != nil {
		for fam, stamp := range snap.Deps {
			if v.stamps[fam] != stamp {
				v.restartFamily(fam)
			}
		}
		for fam := range v.stamps {
			if _, ok := snap.Deps[fam]; !ok {
				v.restartFamily(fam)
			}
		}
	}
	v.stamps = snap.Deps
	if len(changes) > 0 {
		abs := make(map[string]int, len(changes))
		for rel, typ := range changes {
			abs[v.root.Abs(rel)] = typ
		}
		for _, s := range v.servers.Running() {
			s.NotifyDiskChanges(ctx, abs)
		}
	}
	return snap, nil
}

// restartFamily has the running servers of a language family replaced
// before their next check: the packages they resolved imports against
// were installed, removed or upgraded. gopls is told of go.sum and
// go.work like of any file, and loads the module graph again itself.
func (v *Validator) restartFamily(fam string) {
	for _, s := range v.servers.Running() {
		for _, lang := range s.Spec().Languages {
			if fam != "go" && reach.Family("x."+extensionOf(lang)) == fam {
				s.RestartBeforeNextTurn()
				break
			}
		}
	}
}

// extensionOf returns a file extension of an LSP language id, for
// family.
func extensionOf(lang string) string {
	switch lang {
	case "typescript", "typescriptreact", "javascript", "javascriptreact":
		return "ts"
	case "python":
		return "py"
	}
	return ""
}

// checkGroup checks one group: the request (the changed files and, for a
// server that does not report them, their dependants), then the checker
// pick chooses, then judge's reading of its answer. What each part waits
// for is bounded by the load timeout below parent; the checker bounds its
// own waits (see checker.go).
func (v *Validator) checkGroup(parent context.Context, snap *Snapshot, g *group, scope Scope) groupOutcome {
	out := groupOutcome{info: ServerInfo{Language: g.lang, Name: g.name()}}
	w := checkWork{snap: snap, g: g, req: v.request(g), confirm: scope.Complete || scope.Confirm}
	w.req.NewErrorsOnly = scope.NewOnly && !scope.Complete
	var outside map[string]string
	if g.server != nil {
		var unverified string
		if outside, unverified = v.addDependants(parent, &w, scope, &out); unverified != "" {
			return out.unverifiedAll(g, unverified)
		}
		if note := g.server.Note(); note != "" {
			out.notes = append(out.notes, note)
		}
	}
	w.req.CleanAtDisk = v.cleanAtDisk(w)
	// The deleted files nothing is seen to import, found before reused
	// answers take dependants out of the request. Where the scope left
	// the dependants to a later check, a deleted file's importers are
	// among them, not evidence of none.
	if !out.dependantsLeft {
		w.unimported = unimportedDeletions(g.changes, w.req, v.root)
	}
	// Answers a check of this very state already gave (the staging check
	// before a commit's) are not asked for again.
	var state string
	var prev *servers.CheckResult
	var known []string
	if g.server != nil && !g.server.Spec().ReportsDependants && w.req.BaselineKey != "" {
		state = stateKey(snap, g.changes)
		if prev = v.reuse.known(g.server.Spec().Name, state); prev != nil {
			if known = skipKnown(&w.req, prev); len(known) > 0 {
				out.notes = append(out.notes, fmt.Sprintf("%d %s' answers reused from the check of this same change a moment ago", len(known), plural(len(known), "dependant", "dependants")))
			}
		}
	}

	chk, fallback, unverified := v.pick(w)
	if unverified != "" {
		return out.unverifiedAll(g, unverified)
	}
	ev, err := chk.check(parent, w)
	if err != nil && fallback != nil && !errors.As(err, new(*unverifiableError)) {
		out.notes = append(out.notes, fmt.Sprintf("%s could not check the change (%s); %s checked it file by file", chk.label(), firstLine(err.Error()), fallback.label()))
		chk = fallback
		ev, err = chk.check(parent, w)
	}
	if w.confirm {
		v.settleShown(w, chk)
	}
	if g.server != nil {
		info := g.server.Info()
		out.info.Version = info.Version
		if info.Name != "" {
			out.info.Name = info.Name
		}
	}
	if err != nil {
		// A checker that says why says it best: the request's own
		// bound may have passed meanwhile, and is not the reason.
		why := describeFailure(parent, chk.label(), err)
		if u := new(unverifiableError); errors.As(err, &u) {
			why = u.reason
		}
		return out.unverifiedAll(g, why)
	}
	if len(known) > 0 {
		addKnown(&ev.cr, prev, known)
	}
	if state != "" && !ev.stoodIn && !w.req.NewErrorsOnly {
		// Kept by the server's name: TypeScript 7's answers, standing in
		// for the project's compiler, are not kept, or a commit's check
		// (which that compiler decides) would take them back.
		v.reuse.keep(g.server.Spec().Name, state, ev.cr)
	}
	out = v.judge(parent, out, g, chk.label(), ev, outside, scope.Complete)
	if (!ev.whole || !soleProject(snap)) && g.server != nil && !g.server.Spec().ReportsDependants {
		// A deleted file nothing is seen to import, which no run over
		// the whole project answered for (no batch checker here, a run
		// that failed, or several projects: a batch run for the group's
		// other files covers their projects, not necessarily the one
		// that reads the deleted file): the server has no file left to
		// report on, and the import graph is Anvil's reading, no
		// evidence that nothing reads the file. Never clean, whatever
		// else the group checked — unless TypeScript's own record of
		// every project's imports, on both trees, is that evidence.
		recorded := 0
		for _, abs := range w.unimported {
			if rel, err := v.root.Rel(abs); err == nil {
				if w.recorded && reach.Family(rel) == "ecma" && !namedByProjectConfig(snap, rel) {
					// The compiler's own record, on both trees, has no
					// file that reads it.
					out.notes = append(out.notes, fmt.Sprintf("%s: deleted; TypeScript's record of its projects' imports, before and after the change, has no file that reads it", rel))
					recorded++
					continue
				}
				out.unverified = append(out.unverified, Skipped{Path: rel, Reason: "deleted; the import graph finds no file that imports it, but that graph is Anvil's reading, and no checker that reads the whole project (a batch run, in a workspace of one project) confirmed that none does"})
			}
		}
		out.recordedOnly = recorded > 0 && recorded == len(g.changes)
	}
	return out
}

// request is the check of g's changed files, as a server is asked it.
func (v *Validator) request(g *group) servers.CheckRequest {
	var req servers.CheckRequest
	for _, c := range g.changes {
		req.Files = append(req.Files, servers.FileChange{
			Path: v.root.Abs(c.Path), Language: servers.LanguageID(c.Path),
			Old: c.Base, OldExists: c.BaseExists, New: c.Content, Delete: c.Delete,
			Config: servers.LanguageOf(c.Path) == "",
		})
	}
	if g.server != nil {
		// A wait for the server's turn (another client's check on it)
		// is said.
		req.OnWait = v.waitNotice(g.say, g.server.Spec().Name)
		if v.opts.AfterOverlay != nil {
			req.AfterOverlay = func() { v.opts.AfterOverlay(g.server) }
		}
	}
	return req
}

// addDependants adds to w's request the files that depend on the change,
// for a server that does not report them itself, as far as scope reaches;
// its notes go to out. It returns the dependants the project's own checks
// leave out, with why, and, when they cannot be known or are too many,
// why the group is unverified. Finding them is bounded by the load
// timeout below ctx.
func (v *Validator) addDependants(ctx context.Context, w *checkWork, scope Scope, out *groupOutcome) (outside map[string]string, unverified string) {
	g, spec := w.g, w.g.server.Spec()
	if spec.ReportsDependants || v.deps == nil {
		return nil, ""
	}
	// The answers kept for the unchanged files are this disk state's.
	w.req.BaselineKey = w.snap.Fingerprint
	ctx, cancel := context.WithTimeout(ctx, v.opts.LoadTimeout)
	defer cancel()
	if len(g.diskConfig) > 0 {
		// The batch checker runs the projects of these files
		// (configPlan), however many they are: no cap applies.
		files := projectFiles(w.snap, g).Files
		if data := g.dataChanges(); len(data) > 0 {
			d, err := v.deps.Dependants(ctx, w.snap.Files, data, v.opts.MaxDependants+1)
			if err != nil {
				return nil, fmt.Sprintf("finding the files that import the changed data failed: %v", err)
			}
			files = append(files, d.Files...)
		}
		for _, f := range files {
			if abs := v.root.Abs(f); !slices.Contains(w.req.Dependants, abs) {
				w.req.Dependants = append(w.req.Dependants, abs)
			}
		}
		return nil, ""
	}
	if scope.ChangedOnly {
		// Who depends on the change is not asked about, so it is not
		// looked for: finding out (TypeScript's record of a new shape of
		// the workspace, seconds on a real project) could cost the check
		// of the changed files themselves their bound. Only whether
		// there is anyone to leave is: the early cut-off's parse of the
		// changed files (a body edit, most of an agent's edits, leaves
		// nobody out).
		if k, ok := v.deps.(interfaceKeeper); ok && !g.config && k.InterfacesKept(ctx, w.snap.Files, g.changes) {
			out.notes = append(out.notes, "the changed files' exports kept their interfaces: no importer needed a check")
			return nil, ""
		}
		out.left(fmt.Sprintf("%s: only the changed files were checked; the files that depend on them are left to a complete check", spec.Name))
		return nil, ""
	}
	var deps reach.Dependants
	if g.config {
		deps = projectFiles(w.snap, g)
	} else {
		var err error
		if deps, err = v.deps.Dependants(ctx, w.snap.Files, g.changes, v.opts.MaxDependants+1); err != nil {
			// Unknown dependants would be unchecked ones.
			return nil, fmt.Sprintf("finding the files that depend on the change failed: %v", err)
		}
	}
	// The record is evidence that nothing reads a deleted file only
	// while every dependant found is asked about: a scope that leaves
	// some out (below) leaves a deleted file's importers out too.
	w.recorded = deps.Recorded
	w.coldPython = deps.PythonUnrecorded
	w.global = deps.Global
	noted := len(out.notes) // what is said of the dependants, unsaid if they are left
	if scope.Staging && len(deps.Files) > deps.Direct {
		out.notes = append(out.notes, fmt.Sprintf("a staging check: the changed files and the %d files that use them directly were checked; the commit's check also covers %d further %s", deps.Direct, len(deps.Files)-deps.Direct, plural(len(deps.Files)-deps.Direct, "dependant", "dependants")))
		deps.Files = deps.Files[:deps.Direct]
		w.recorded = false
	}
	if len(deps.Files) > v.opts.MaxDependants && scope.DependantsWithin > 0 {
		// Past any cost a caller that checks them later allows: the
		// changed files are still judged.
		v.leaveDependants(w, out, noted, fmt.Sprintf("%s: only the changed files were checked; the more than %d files that depend on them are left to a complete check", spec.Name, v.opts.MaxDependants))
		return deps.Outside, ""
	}
	if len(deps.Files) > v.opts.MaxDependants {
		return nil, fmt.Sprintf("the change has more than %d dependants, the most checked at once; none was checked; fix: raise max_dependants ('anvil config set max_dependants %d')", v.opts.MaxDependants, 4*v.opts.MaxDependants)
	}
	if deps.InterfacesKept {
		out.notes = append(out.notes, "the changed files' exports kept their interfaces: no importer needed a check")
	}
	if deps.Unaffected > 0 {
		out.notes = append(out.notes, fmt.Sprintf("%d %s of the change not checked: the exports they use kept their interfaces", deps.Unaffected, plural(deps.Unaffected, "importer", "importers")))
	}
	if len(deps.ByCompiler) > 0 {
		out.notes = append(out.notes, fmt.Sprintf("the interface of %s compared by TypeScript's declaration emit", strings.Join(deps.ByCompiler, ", ")))
	}
	for _, f := range slices.Sorted(maps.Keys(deps.Opaque)) {
		out.notes = append(out.notes, fmt.Sprintf("%s: every importer checked, %s", f, deps.Opaque[f]))
	}
	serverOf := v.serverOf()
	for i, d := range deps.Files {
		if s, err := serverOf(d); err == nil && s == g.server {
			w.req.Dependants = append(w.req.Dependants, v.root.Abs(d))
			if i < deps.Direct {
				w.req.DirectDependants++
			}
		}
	}
	if len(w.req.Dependants) != len(deps.Files) {
		w.recorded = false // a dependant another checker answers for
	}
	if ms, over := v.dependantsCost(w, scope.DependantsWithin); over {
		v.leaveDependants(w, out, noted, fmt.Sprintf("%s: only the changed files were checked; the %d %s that depend on them (about %s to check, more than the %s this check may spend on them) are left to a complete check",
			spec.Name, len(w.req.Dependants), plural(len(w.req.Dependants), "file", "files"), time.Duration(ms)*time.Millisecond, scope.DependantsWithin))
		return deps.Outside, ""
	}
	if v.opts.Exhaustive || scope.Complete {
		w.req.DirectDependants = len(w.req.Dependants)
	}
	return deps.Outside, ""
}

// judge reads a checker's answer for g into out: the errors either side
// paired into new, resolved and pre-existing ones; the checker's own
// errors of no file, which block like any other; and a run that did not
// finish or never read a changed file, which leaves the change
// unverified. A new error is evidence enough against a change, so it
// ends the reading there, unless complete (Scope.Complete): then every
// error the change resolves is asked for too (the end of a hooked turn
// checks the way back, where a resolved error is one the turn brought
// in), and a run that stopped, which never looked at the files whose
// errors it would resolve, says so whatever it found. label names the
// checker; outside are the dependants the project's own checks leave
// out, with why.
func (v *Validator) judge(ctx context.Context, out groupOutcome, g *group, label string, ev evidence, outside map[string]string, complete bool) groupOutcome {
	cr := &ev.cr
	out.info.Via = ev.via
	out.info.BaselinesReused = cr.Reused
	var orphaned map[string]string
	if g.server != nil {
		mctx, cancel := context.WithTimeout(ctx, v.opts.LoadTimeout)
		defer cancel()
		if err := v.checkModuleGraphs(mctx, g, cr); err != nil {
			return out.unverifiedAll(g, describeFailure(mctx, "go list", err))
		}
		orphaned = withoutUnbaselinedViews(g.server.Spec(), cr)
	}
	changed := map[string]*changeset.Change{} // by absolute path
	for _, c := range g.changes {
		changed[v.root.Abs(c.Path)] = c
	}
	out = v.pair(out, changed, cr, outside, ev.whole)
	out.wholeProject = ev.whole
	for _, abs := range slices.Sorted(maps.Keys(orphaned)) {
		if rel, err := v.root.Rel(abs); err == nil {
			out.unverified = append(out.unverified, Skipped{Path: rel, Reason: unbaselinedReason(orphaned[abs])})
		}
	}
	for _, abs := range slices.Sorted(maps.Keys(cr.Notes)) {
		if rel, err := v.root.Rel(abs); err == nil {
			out.notes = append(out.notes, rel+": "+cr.Notes[abs])
		}
	}
	if cr.Skipped > 0 {
		out.notes = append(out.notes, fmt.Sprintf("%s: new errors in the changed files or their direct importers, so %d further %s not checked", label, cr.Skipped, plural(cr.Skipped, "dependant was", "dependants were")))
	}
	if note := outsideNote(out.checked, outside); note != "" {
		out.notes = append(out.notes, note)
	}
	out.newErrs = append(out.newErrs, fileless(cr.Before[""], cr.After[""])...)
	if len(out.newErrs) > 0 && !complete {
		return out
	}
	stopped := stoppedReporting(v.root, cr, v.stopCanHide(g))
	switch {
	case ev.incomplete != "":
		return out.unverifiedAll(g, label+" did not check everything: "+ev.incomplete)
	case stopped != "":
		return out.unverifiedAll(g, label+" "+stopped)
	case len(ev.unread) > 0:
		// Silence about a file the compiler never read is no evidence.
		return out.unverifiedAll(g, fmt.Sprintf("%s read no %s: no target of the workspace compiles %s (a module no `mod` declares?)", label, strings.Join(ev.unread, ", "), plural(len(ev.unread), "it", "them")))
	}
	return out
}

// outsideNote names the checked files that the project's own checks
// leave out (outside: why, by path): the checker answered for them as an
// editor does, which the project's own run never does, so a verdict's
// word on them is an editor's, and says so, clean or not (a new error
// there says it too: Diag.Outside). "" when there are none.
func outsideNote(checked []string, outside map[string]string) string {
	var named []string
	for _, rel := range checked {
		if why := outside[rel]; why != "" {
			named = append(named, rel+" ("+why+")")
		}
	}
	if len(named) == 0 {
		return ""
	}
	slices.Sort(named)
	return "checked as an editor checks them, outside the project's own checks: " + joinShort(named)
}

// pair adds to out the errors of cr either side of the change, paired
// into new, resolved and pre-existing ones, and the files cr checked.
// changed are the group's changes by absolute path; outside the
// dependants the project's own checks leave out, with why. A server's
// errors of a file that is not the project's own (an installed
// package's, one outside the workspace) are an input's, and dropped; a
// whole run's (whole: the batch checker over every file of its projects,
// either side of the change alike) count, named as the checker names
// them: the change broke what the project's checker reads.
func (v *Validator) pair(out groupOutcome, changed map[string]*changeset.Change, cr *servers.CheckResult, outside map[string]string, whole bool) groupOutcome {
	// Every file either side of the change, with the texts to place
	// positions in.
	paths := map[string]bool{}
	for p := range cr.Before {
		paths[p] = true
	}
	for p := range cr.After {
		paths[p] = true
	}
	for abs := range paths {
		if abs == "" {
			continue // errors of no file: judge reads them
		}
		if !hasError(cr.Before[abs]) && !hasError(cr.After[abs]) {
			continue // warnings only (gopls reports every such file): nothing to pair
		}
		if _, rechecked := cr.After[abs]; !rechecked {
			if c, ok := changed[abs]; !ok || !c.Delete {
				// Asked about before the change, not after (a fast
				// rejection stopped first): its errors were neither
				// resolved nor re-seen.
				continue
			}
		}
		rel, err := v.root.Rel(abs)
		if (err != nil || v.root.InDependencyDir(rel)) && !whole {
			continue // a server reporting on a dependency: an input, not the project's file
		}
		if err != nil {
			rel = abs
		}
		var oldText, newText []byte
		if c, ok := changed[abs]; ok {
			oldText, newText = c.Base, c.Content
		} else {
			oldText, _ = os.ReadFile(abs)
			newText = oldText
		}
		fd := fileDiags{
			before: toDiags(rel, oldText, cr.Before[abs]),
			after:  toDiags(rel, newText, cr.After[abs]),
			lines:  newLineMap(oldText, newText),
		}
		n, r, p := delta(fd)
		if why := outside[rel]; why != "" {
			for i := range n {
				n[i].Outside = why
			}
		}
		out.newErrs = append(out.newErrs, n...)
		out.resolved = append(out.resolved, r...)
		out.pre = append(out.pre, p...)
	}
	for _, abs := range cr.Checked {
		if rel, err := v.root.Rel(abs); err == nil && !v.root.InDependencyDir(rel) {
			out.checked = append(out.checked, rel)
		}
	}
	return out
}

func describeFailure(ctx context.Context, server string, err error) string {
	var notLoaded *servers.NotLoadedError
	switch {
	case errors.As(err, &notLoaded):
		return notLoaded.Error() + "; fix: make it part of a module or project the server loads (a go.mod above it, or a go.work naming its module)"
	case errors.As(err, new(*servers.NotPlacedError)):
		return firstLine(err.Error()) + ", and no batch checker checked it"
	case errors.As(err, new(*servers.LoadFailedError)):
		return fmt.Sprintf("%s %s; fix: make the go command load the packages (go mod download with the network, or go mod tidy), then check again", server, err.Error())
	case errors.As(err, new(*notReadyError)):
		return fmt.Sprintf("%s %s; fix: a large project loads slowly: raise load_timeout ('anvil config set load_timeout 10m'); see servers.log in the session directory", server, firstLine(err.Error()))
	case errors.Is(err, context.DeadlineExceeded) || (ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded)):
		why := firstLine(err.Error())
		if ctx.Err() != nil {
			why = context.Cause(ctx).Error()
		}
		return fmt.Sprintf("%s stopped answering (%s); it was restarted and the next check starts it again; fix: raise validation_timeout ('anvil config set validation_timeout 60s') if one file takes that long to check, else see servers.log in the session directory", server, why)
	case errors.Is(err, lsp.ErrExited) || errors.Is(err, tsserver.ErrExited):
		return fmt.Sprintf("%s crashed during validation (%v); servers.log in the session directory says why", server, firstLine(err.Error()))
	case servers.IsNoServer(err), compiledb.IsNotFound(err), errors.As(err, new(*unverifiableError)):
		return err.Error()
	default:
		return fmt.Sprintf("%s failed: %v", server, firstLine(err.Error()))
	}
}

// describeStartFailure says why a server was not ready for a check: one
// that exited (at once, or while loading) is said to have exited, with
// its last output, never to be slow; only a server still loading at the
// bound is told to have more time.
func describeStartFailure(ctx context.Context, server string, bound time.Duration, err error) string {
	if exited := new(proc.ExitError); errors.As(err, &exited) {
		how := "exit status 0"
		if exited.Err != nil {
			how = exited.Err.Error()
		}
		msg := fmt.Sprintf("%s exited as it started (%s)", server, how)
		if last := lastLine(exited.Stderr); last != "" {
			msg += "; its last output: " + last
		}
		return msg + "; servers.log in the session directory has the rest"
	}
	return describeFailure(ctx, server, &notReadyError{bound: bound, err: err})
}

// notReadyError is a server that was not ready for a check within the
// load timeout, still starting or loading: one to give more time.
type notReadyError struct {
	bound time.Duration
	err   error
}

func (e *notReadyError) Error() string {
	return fmt.Sprintf("not ready within the load timeout (%s): %v", e.bound, e.err)
}

func (e *notReadyError) Unwrap() error { return e.err }

// lastLine is the last non-blank line of s, cut to 300 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return firstLine(strings.TrimSpace(lines[len(lines)-1]))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return line
}

// toDiags converts a server's error diagnostics for the file rel, whose
// text is text, into Anvil's form. Warnings and hints never block and are
// left out.
func toDiags(rel string, text []byte, ds []lsp.Diagnostic) []Diag {
	var out []Diag
	for _, d := range ds {
		if !d.IsError() {
			continue
		}
		out = append(out, Diag{
			Path:     rel,
			Line:     d.Range.Start.Line + 1,
			Column:   lsp.ByteColumn(text, d.Range.Start),
			Severity: d.Severity.String(),
			Code:     d.CodeString(),
			Source:   d.Source,
			Message:  d.Message,
			LineText: lineOr(text, d.Range.Start.Line),
		})
	}
	return out
}

func hasError(ds []lsp.Diagnostic) bool {
	for _, d := range ds {
		if d.IsError() {
			return true
		}
	}
	return false
}

// lineOr returns 0-based line n of text, or "" past its end.
func lineOr(text []byte, n int) string {
	line, _ := lsp.Line(text, n)
	return line
}

func sortDiags(ds []Diag) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		if ds[i].Line != ds[j].Line {
			return ds[i].Line < ds[j].Line
		}
		return ds[i].Column < ds[j].Column
	})
}

// checkModuleGraphs adds, for each module whose go.mod or go.sum the
// group changes, the go command's errors loading its module graph before
// and after (see gomod.go).
func (v *Validator) checkModuleGraphs(ctx context.Context, g *group, cr *servers.CheckResult) error {
	dirs := map[string]bool{}
	for _, c := range g.changes {
		if b := path.Base(c.Path); b == "go.mod" || b == "go.sum" {
			dirs[path.Dir(c.Path)] = true
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		modRel, sumRel := path.Join(dir, "go.mod"), path.Join(dir, "go.sum")
		oldMod, newMod, ok := v.contents(g, modRel)
		if !ok {
			continue // go.mod deleted, or never there: no module to load
		}
		oldSum, newSum, _ := v.contents(g, sumRel)
		abs := v.root.Abs(modRel)
		before, err := moduleGraphErrors(ctx, v.opts.Policy, v.root.Abs(dir), oldMod, oldSum)
		if err != nil {
			return err
		}
		after, err := moduleGraphErrors(ctx, v.opts.Policy, v.root.Abs(dir), newMod, newSum)
		if err != nil {
			return err
		}
		cr.Before[abs] = append(cr.Before[abs], before...)
		cr.After[abs] = append(cr.After[abs], after...)
		if !slices.Contains(cr.Checked, abs) {
			cr.Checked = append(cr.Checked, abs)
		}
	}
	return nil
}

// contents returns the file rel before and after the group's changes,
// and whether it exists after them.
func (v *Validator) contents(g *group, rel string) (before, after []byte, exists bool) {
	for _, c := range g.changes {
		if c.Path == rel {
			if c.Delete {
				return c.Base, nil, false
			}
			return c.Base, c.Content, true
		}
	}
	data, err := os.ReadFile(v.root.Abs(rel))
	if err != nil {
		return nil, nil, false
	}
	return data, data, true
}

// createsOrDeletes reports whether changes create or delete a file.
func createsOrDeletes(changes []*changeset.Change) bool {
	for _, c := range changes {
		if c.Created() || c.Delete {
			return true
		}
	}
	return false
}

// unimportedDeletions returns the deleted files (absolute) of a check
// that asks about no dependant: nothing the import graph knows reads them.
func unimportedDeletions(changes []*changeset.Change, req servers.CheckRequest, root *workspace.Root) []string {
	if len(req.Dependants) > 0 {
		return nil
	}
	var out []string
	for _, c := range changes {
		if c.Delete {
			out = append(out, root.Abs(c.Path))
		}
	}
	return out
}

// soleProject reports whether the workspace holds at most one project
// configuration of the batch checkers (a tsconfig or jsconfig, a pyright
// configuration or pyproject.toml), outside installed packages.
func soleProject(snap *Snapshot) bool {
	n := 0
	for rel := range snap.Files {
		switch base := path.Base(rel); {
		case strings.HasPrefix(base, "tsconfig") && strings.HasSuffix(base, ".json"),
			strings.HasPrefix(base, "jsconfig") && strings.HasSuffix(base, ".json"),
			base == "pyrightconfig.json", base == "pyproject.toml":
			n++
		}
	}
	return n <= 1
}

// batchFiles returns what a check asks about: the changed files that
// remain, and the dependants (absolute paths).
func batchFiles(req servers.CheckRequest) []string {
	var out []string
	for _, f := range req.Files {
		if !f.Delete && !f.Config {
			out = append(out, f.Path)
		}
	}
	return append(out, req.Dependants...)
}

// prepare has srv start and load the projects of the request's files,
// saying so to say (nil: only to the validator's sink) while it does.
func (v *Validator) prepare(ctx context.Context, srv *servers.Server, req servers.CheckRequest, say func(Progress)) error {
	var files []string
	for _, f := range req.Files {
		files = append(files, f.Path)
	}
	files = append(files, req.Dependants...)
	switch {
	case srv.PID() == 0:
		v.progress(say, Progress{Server: srv.Spec().Name, Stage: "starting"})
	case !srv.Prepared(files):
		v.progress(say, Progress{Server: srv.Spec().Name, Stage: "loading"})
	}
	return srv.Prepare(ctx, files, v.waitNotice(say, srv.Spec().Name))
}

// waitNotice is what a wait for server's turn tells the progress sinks.
func (v *Validator) waitNotice(say func(Progress), server string) func(what string) {
	return func(what string) { v.progress(say, Progress{Server: server, Stage: "waiting", Message: what}) }
}
