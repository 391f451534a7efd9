package servers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/tsconfig"
	"github.com/anvil-dev/anvil/internal/tsserver"
)

// TypeScript 6 and older through tsserver's protocol. Every answer here
// is the response to a request sent after the state it describes:
// semanticDiagnosticsSync and syntacticDiagnosticsSync are computed
// synchronously against every updateOpen sent before them, and tsserver
// handles messages in order. Nothing waits for silence.
//
// The "before" opens the changed files with their base content and the
// dependants as on disk, and asks for each one's diagnostics. The change
// goes in as edits to the open files (created files are opened with their
// content), and the same files are asked again. Closing them afterwards
// sends tsserver back to the disk.
//
// A created file is opened before it exists on disk, so tsserver cannot
// find it through the include patterns of its tsconfig.json and checks it
// in an inferred project, with default options. To check it as tsc would,
// with its project's options and among its project's files, the cycle
// carries it into the project: another module of that project is opened
// with an added side-effect import of the new file, and the new file is
// then asked about in that project. The carrier is never asked about.
type tsCycle struct {
	server *Server
	client *tsserver.Client
	req    CheckRequest
	res    *CheckResult

	opened []string          // files this cycle opened, to close after
	text   map[string]string // what the server holds for the files opened with a text
	// project names the tsconfig.json to ask about a file in, for created
	// files carried into their project.
	project  map[string]string
	carriers map[string]bool
	// cache is where the "before" answers come from and go to, and
	// deferred the files whose "before" waits for the "after" (see
	// CheckRequest.NewErrorsOnly and beforeWhereNeeded).
	cache    befores
	deferred []string
}

// tsInFlight bounds the diagnostics requests sent ahead of their answers.
const tsInFlight = 8

func (cy *tsCycle) before(ctx context.Context) error {
	cy.text, cy.project, cy.carriers = map[string]string{}, map[string]string{}, map[string]bool{}
	var open []tsserver.OpenFile
	for _, f := range cy.req.Files {
		if f.OldExists {
			old := string(f.Old)
			open = append(open, tsserver.OpenFile{File: f.Path, FileContent: &old, ProjectRootPath: cy.server.root})
			cy.text[f.Path] = old
		}
	}
	for _, p := range cy.req.Dependants {
		if err := readWhole(p); err != nil {
			return err
		}
		open = append(open, tsserver.OpenFile{File: p, ProjectRootPath: cy.server.root})
	}
	if err := cy.open(ctx, open); err != nil {
		return err
	}
	for _, f := range cy.req.Files {
		if f.OldExists {
			if err := cy.usable(ctx, f.Path); err != nil {
				return err
			}
		}
	}
	// The "before" answers describe the disk only when every changed
	// file's base is what the disk holds (they are all open at their
	// bases); otherwise none is cached or taken from the cache. Then a
	// changed file's own "before" comes from the cache like a dependant's
	// (an Executor's next attempt at the same file asks once).
	cache := cy.server.beforesFor(cy.req, cy.client)
	var existing []string
	for _, f := range cy.req.Files {
		if f.OldExists {
			existing = append(existing, f.Path)
		}
	}
	// A file the batch checker found clean has its "before" asked only
	// if its "after" has an error (then the server's own answer pairs
	// it, whatever the two checkers' classes of error), and none
	// otherwise: it had no error to resolve.
	spare := cleanSpares(ModeTSServer, cy.req.Files)
	var ask []string
	for _, p := range append(existing, cy.req.Dependants...) {
		switch d, ok := cache.get(p); {
		case ok:
			cy.res.Before[p] = d
			cy.res.Reused++
		case spare && cache.isClean(p):
			cy.deferred = append(cy.deferred, p)
		default:
			ask = append(ask, p)
		}
	}
	cy.cache = cache
	if cy.req.NewErrorsOnly && EditsInPlace(cy.req.Files) {
		cy.deferred = append(cy.deferred, ask...)
		return nil
	}
	if err := cy.diagnose(ctx, ask, cy.res.Before); err != nil {
		return err
	}
	for _, p := range ask {
		cache.put(p, cy.res.Before[p])
	}
	return nil
}

// EditsInPlace reports whether every file of files is an existing source
// file changed in place: the change a check can take back by sending the
// old texts again (a created file is carried into its project, a deleted
// one replaced by a stand-in, configuration reloads projects), and the
// one TypeScript 7's server may check in place of tsserver.
func EditsInPlace(files []FileChange) bool {
	for _, f := range files {
		if !f.OldExists || f.Delete || f.Config {
			return false
		}
	}
	return true
}

// beforeWhereNeeded asks, once the "after" is in, for the "before" of
// the deferred files that have an error after the change, with the
// change taken back: only their errors can be new. A file without an
// error after the change needs none.
func (cy *tsCycle) beforeWhereNeeded(ctx context.Context) error {
	var need []string
	for _, p := range cy.deferred {
		switch {
		case slices.ContainsFunc(cy.res.After[p], lsp.Diagnostic.IsError):
			need = append(need, p)
		case cy.cache.isClean(p):
			// No error either side: the batch checker's answer is the
			// "before", and nothing was resolved.
			cy.res.Before[p] = nil
			cy.res.Reused++
		}
	}
	cy.deferred = nil
	if len(need) == 0 {
		return nil
	}
	var edits []tsserver.FileCodeEdits
	for _, f := range cy.req.Files {
		old := string(f.Old)
		edits = append(edits, tsserver.Replace(f.Path, cy.text[f.Path], old))
		cy.text[f.Path] = old
	}
	if err := cy.client.UpdateOpen(ctx, nil, edits, nil); err != nil {
		return err
	}
	if err := cy.diagnose(ctx, need, cy.res.Before); err != nil {
		return fmt.Errorf("diagnostics before the change: %w", err)
	}
	for _, p := range need {
		cy.cache.put(p, cy.res.Before[p])
	}
	return nil
}

// basesOnDisk reports whether the base of every file of files that
// existed is the content on disk now.
func basesOnDisk(files []FileChange) bool {
	for _, f := range files {
		if !f.OldExists {
			continue
		}
		if disk, err := os.ReadFile(f.Path); err != nil || !bytes.Equal(disk, f.Old) {
			return false
		}
	}
	return true
}

// usable fails for a file whose project tsserver will not check.
func (cy *tsCycle) usable(ctx context.Context, file string) error {
	info, err := cy.client.ProjectInfo(ctx, file, false)
	if err != nil {
		return err
	}
	if info.LanguageServiceDisabled {
		return fmt.Errorf("tsserver disabled its language service for %s (the project holds too much JavaScript); it gives no diagnostics there", info.ConfigFileName)
	}
	return nil
}

func (cy *tsCycle) applyOverlays(ctx context.Context) error {
	var open []tsserver.OpenFile
	var edits []tsserver.FileCodeEdits
	for _, f := range cy.req.Files {
		text := overlayText(f)
		if old, ok := cy.text[f.Path]; ok {
			edits = append(edits, tsserver.Replace(f.Path, old, text))
		} else {
			open = append(open, tsserver.OpenFile{File: f.Path, FileContent: &text, ProjectRootPath: cy.server.root})
		}
		cy.text[f.Path] = text
	}
	cy.willOpen(open)
	if err := cy.client.UpdateOpen(ctx, open, edits, nil); err != nil {
		return err
	}
	if cy.req.AfterOverlay != nil {
		cy.req.AfterOverlay()
	}
	for _, f := range cy.req.Files {
		if f.OldExists || f.Delete {
			continue
		}
		if err := cy.carry(ctx, f.Path); err != nil {
			return err
		}
	}
	return nil
}

// carry places the created file in its project (see tsCycle). A file no
// tsconfig.json would take in stays in its inferred project, which is how
// an editor checks it, and the result says so.
func (cy *tsCycle) carry(ctx context.Context, file string) error {
	info, err := cy.client.ProjectInfo(ctx, file, false)
	if err != nil {
		return err
	}
	if !info.Inferred() {
		return nil // an importer among the changes brought it in already
	}
	config := tsconfig.Nearest(cy.server.root, filepath.Dir(file))
	if config == "" {
		return nil // no tsconfig.json anywhere: an inferred project is all there is
	}
	host := pickCarrier(cy.req, file, filepath.Dir(config))
	if host == "" {
		return &NotPlacedError{Path: relTo(cy.server.root, file), Why: noCarrier(cy.server.root, config)}
	}
	data, err := os.ReadFile(host)
	if err != nil {
		return err
	}
	carried := string(data) + "\nimport " + quote(importSpecifier(host, file)) + ";\n"
	if err := cy.open(ctx, []tsserver.OpenFile{{File: host, FileContent: &carried, ProjectRootPath: cy.server.root}}); err != nil {
		return err
	}
	cy.carriers[host] = true
	// The carrier may belong to another project than the nearest
	// tsconfig.json (a solution-style one refers to others); whichever
	// project it is, it now contains the file.
	hostInfo, err := cy.client.ProjectInfo(ctx, host, false)
	if err != nil {
		return err
	}
	if hostInfo.Inferred() {
		cy.res.note(file, fmt.Sprintf("in no tsconfig.json project: checked with default options, as an editor would (%s is in no project either)", relTo(cy.server.root, host)))
		return nil
	}
	if !cy.client.Contains(ctx, hostInfo.ConfigFileName, file) {
		return &NotPlacedError{Path: relTo(cy.server.root, file), Why: fmt.Sprintf("%s did not take it in when %s imported it", relTo(cy.server.root, hostInfo.ConfigFileName), relTo(cy.server.root, host))}
	}
	cy.project[file] = hostInfo.ConfigFileName
	return nil
}

// NotPlacedError: the server could check a created file only in an
// inferred project, with default options, though a tsconfig.json makes
// it part of a project, so an error only that project's options make
// (noImplicitReturns, strict) would go unreported. Only a run of the
// project's compiler checks it as tsc would.
type NotPlacedError struct {
	Path string // as the user sees the workspace
	Why  string
}

func (e *NotPlacedError) Error() string {
	return fmt.Sprintf("tsserver could check the created file %s only with default options, not with its project's: %s", e.Path, e.Why)
}

// Unplaceable returns the files req creates that a check would leave in
// an inferred project though a tsconfig.json makes them part of one: no
// module of that project can carry them in (see tsCycle.carry), by the
// same choice the check makes. The validator gives such a change to the
// batch checker; the check itself fails with a NotPlacedError. A file a
// changed importer would bring into its project is named too: the batch
// checker then runs where the server could have, which checks no less.
func (s *Server) Unplaceable(req CheckRequest) map[string]string {
	if s.resolved.Spec.Mode != ModeTSServer {
		return nil
	}
	var out map[string]string
	for _, f := range req.Files {
		if f.OldExists || f.Delete {
			continue
		}
		config := tsconfig.Nearest(s.root, filepath.Dir(f.Path))
		if config == "" || pickCarrier(req, f.Path, filepath.Dir(config)) != "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[relTo(s.root, f.Path)] = noCarrier(s.root, config)
	}
	return out
}

func noCarrier(root, config string) string {
	return fmt.Sprintf("no module near it in %s's directory can carry it into that project", relTo(root, config))
}

// pickCarrier finds a module to carry file: a TypeScript source on disk
// under projectDir, as near to file as possible (its own directory first,
// then each parent, then anywhere below), that the check does not ask
// about, and that is already a module: an added import would turn a
// script into one, changing its globals.
func pickCarrier(req CheckRequest, file, projectDir string) string {
	asked := map[string]bool{}
	for _, f := range req.Files {
		asked[f.Path] = true
	}
	for _, d := range req.Dependants {
		asked[d] = true
	}
	usable := func(p string) bool {
		if asked[p] || isDeclaration(p) || !isTSSource(p) {
			return false
		}
		data, err := os.ReadFile(p)
		return err == nil && moduleSyntax.Match(data)
	}
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if p := filepath.Join(dir, e.Name()); e.Type().IsRegular() && usable(p) {
				return p
			}
		}
		if dir == projectDir || !strings.HasPrefix(dir, projectDir) {
			break
		}
	}
	found := ""
	count := 0
	_ = filepath.WalkDir(projectDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != projectDir && skipForFolders(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if count++; count > maxCarrierSearch {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() && usable(p) {
			found = p
		}
		return nil
	})
	return found
}

// maxCarrierSearch bounds the files looked at for a carrier.
const maxCarrierSearch = 20000

var moduleSyntax = regexp.MustCompile(`(?m)^\s*(import|export)\b`)

func (cy *tsCycle) after(ctx context.Context) error {
	var ask []string
	for _, f := range cy.req.Files {
		if !f.Delete {
			ask = append(ask, f.Path)
		}
	}
	ask = append(ask, cy.req.Dependants...)
	if err := cy.diagnose(ctx, ask, cy.res.After); err != nil {
		return err
	}
	cy.res.Checked = append(cy.res.Checked, ask...)
	return cy.beforeWhereNeeded(ctx)
}

// diagnose asks for the diagnostics of files, a few requests ahead of the
// answers, and stores them.
func (cy *tsCycle) diagnose(ctx context.Context, files []string, into map[string][]lsp.Diagnostic) error {
	type answer struct {
		ds  []lsp.Diagnostic
		err error
	}
	answers := make([]answer, len(files))
	sem := make(chan struct{}, tsInFlight)
	var wg sync.WaitGroup
	for i, f := range files {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ds, err := cy.client.Diagnostics(ctx, f, cy.project[f])
			answers[i] = answer{ds, err}
		})
	}
	wg.Wait()
	for i, a := range answers {
		if a.err != nil {
			return fmt.Errorf("%s: %w", files[i], a.err)
		}
		into[files[i]] = a.ds
	}
	return nil
}

func (cy *tsCycle) open(ctx context.Context, files []tsserver.OpenFile) error {
	if len(files) == 0 {
		return nil
	}
	cy.willOpen(files)
	return cy.client.UpdateOpen(ctx, files, nil, nil)
}

// willOpen records files as opened before the request that opens them
// goes out: a request cut short by its caller's context may still have
// reached tsserver, and a file left open there would shadow the disk
// for every later check (the client's next write of it never seen).
// Closing a file tsserver does not hold open is harmless.
func (cy *tsCycle) willOpen(files []tsserver.OpenFile) {
	for _, f := range files {
		cy.opened = append(cy.opened, f.File)
	}
}

// restore closes what the cycle opened; tsserver then reads those files
// from the disk again when next needed. A server that does not take the
// close in time, or whose check was abandoned, is killed instead.
func (cy *tsCycle) restore(abandon bool) {
	c := cy.client
	if !c.Alive() {
		return
	}
	if abandon {
		c.Kill()
		return
	}
	if len(cy.opened) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	if err := c.UpdateOpen(ctx, nil, nil, cy.opened); err != nil {
		c.Kill()
	}
}

// notifyTSServer reports disk changes: through the watchers tsserver asked
// for, or, for a tsserver that watches the disk itself (TypeScript before
// 5.4), by reloading its projects, which the next request waits for.
func notifyTSServer(ctx context.Context, c *tsserver.Client, changes map[string]int) error {
	if !c.Alive() {
		return nil
	}
	if !c.WatchEvents() {
		return c.Notify(ctx, "reloadProjects", nil)
	}
	var created, updated, deleted []string
	for p, t := range changes {
		p = filepath.ToSlash(p)
		switch t {
		case FileCreated:
			created = append(created, p)
		case FileDeleted:
			deleted = append(deleted, p)
		default:
			updated = append(updated, p)
		}
	}
	_, err := c.WatchChange(ctx, created, updated, deleted)
	return err
}

// queryTS opens docs, runs fn and closes them again.
func (s *Server) queryTS(ctx context.Context, c *tsserver.Client, docs []Doc, fn func(Navigator) error) error {
	cy := &tsCycle{server: s, client: c}
	defer cy.restore(false)
	var open []tsserver.OpenFile
	for _, d := range docs {
		open = append(open, tsserver.OpenFile{File: d.Path, FileContent: d.Text, ProjectRootPath: s.root})
	}
	if err := cy.open(ctx, open); err != nil {
		return err
	}
	if err := fn(c); err != nil {
		if !c.Alive() {
			return c.ExitError()
		}
		return err
	}
	return nil
}

// importSpecifier is the relative specifier host would import file by: the
// output name TypeScript maps back to the source (a.ts → ./a.js), which
// every module resolution mode accepts.
func importSpecifier(host, file string) string {
	rel, err := filepath.Rel(filepath.Dir(host), file)
	if err != nil {
		rel = file
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, ".") {
		rel = "./" + rel
	}
	for src, out := range map[string]string{".tsx": ".jsx", ".mts": ".mjs", ".cts": ".cjs", ".ts": ".js"} {
		if strings.HasSuffix(rel, src) {
			return strings.TrimSuffix(rel, src) + out
		}
	}
	return rel
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func isDeclaration(p string) bool {
	return strings.HasSuffix(p, ".d.ts") || strings.HasSuffix(p, ".d.mts") || strings.HasSuffix(p, ".d.cts")
}

// maxFileSize is the size past which TypeScript 6 and older read a file
// that is not TypeScript (JavaScript under checkJs) from disk as empty
// (its maxFileSize, 4 MiB), and then say nothing of it, before a change
// and after. A dependant is opened from disk; a changed file is sent with
// its content.
const maxFileSize = 4 << 20

// readWhole fails for a dependant tsserver would read from disk as empty:
// its silence about it would be no evidence.
func readWhole(p string) error {
	if isTSSource(p) {
		return nil
	}
	if st, err := os.Stat(p); err == nil && st.Size() > maxFileSize {
		return fmt.Errorf("tsserver reads %s (%d MiB), a file that is not TypeScript past its limit of 4 MiB, as empty: its silence about that dependant would be no evidence", filepath.Base(p), st.Size()>>20)
	}
	return nil
}

func isTSSource(p string) bool {
	switch filepath.Ext(p) {
	case ".ts", ".tsx", ".mts", ".cts":
		return true
	}
	return false
}

func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}
