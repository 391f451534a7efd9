package shadow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/servers"
)

// C and C++ (a server with ReadsDiskIncludes: clangd 14). clangd answers
// for the file it is shown with the overlay, but reads every file that
// one includes from disk, and does not re-check other translation units
// when an unsaved header changes (measured: a translation unit opened
// after a header's overlay still sees the header on disk). So the server
// checks only the changed files none of whose includes, transitively, is
// another changed file; every other translation unit the change reaches
// (the includers of a changed file, from the include graph, and changed
// sources that include another changed file) is compiled with its own
// compile command and -fsyntax-only in a shadow tree holding the change,
// beside the same compile of the unchanged tree. A file both check has
// both answers either side of the change, each checker's compared with its
// own.
// Every such translation unit must have a compile command, or the change
// is unverified; so is a C/C++ change without a compile database.

// includePlan is how a C/C++ change is split between the server and the
// compiler.
type includePlan struct {
	server   []servers.FileChange // the changed files the server checks
	compiled []compiledb.Command  // the translation units compiled
	// covered are the changed files (absolute) that only the compiled
	// translation units check, with the units that include them.
	covered map[string][]string
}

// checkIncludes is the check of a group whose server reads included
// files from disk. ctx is the check's (bounded by the server's silence);
// parent bounds the compiles, by the load timeout.
func (v *Validator) checkIncludes(ctx, parent context.Context, snap *Snapshot, g *group, req servers.CheckRequest) (servers.CheckResult, string, error) {
	if db := databaseChange(g); db != nil {
		return v.checkDatabaseChange(parent, snap, g, db)
	}
	plan, err := v.planIncludes(snap, g, req)
	if err != nil {
		return servers.CheckResult{}, "", err
	}
	cr := servers.CheckResult{Before: map[string][]lsp.Diagnostic{}, After: map[string][]lsp.Diagnostic{}}
	var via []string
	if len(plan.server) > 0 {
		sreq := req
		sreq.Files, sreq.Dependants, sreq.DirectDependants = plan.server, nil, 0
		cr, err = g.server.Check(ctx, sreq)
		if err != nil {
			return cr, "", err
		}
		via = append(via, fmt.Sprintf("the server for %d changed %s", len(plan.server), plural(len(plan.server), "file", "files")))
	}
	if len(plan.compiled) == 0 {
		return cr, strings.Join(via, ""), nil
	}
	before, after, stopped, err := v.compileEitherSide(parent, snap, g, plan.compiled, plan.compiled)
	if err != nil {
		return cr, "", err
	}
	cr.Stopped = stopped
	// A file both checked is judged on both answers: what the compiler
	// says of a source in its includer's translation unit (a clash in a
	// unity build) the server, compiling the file alone, never sees. Each
	// checker's before pairs with its own after.
	for p, ds := range before {
		cr.Before[p] = append(cr.Before[p], ds...)
	}
	for p, ds := range after {
		cr.After[p] = append(cr.After[p], ds...)
	}
	for _, u := range plan.compiled {
		cr.Checked = append(cr.Checked, u.File)
		cr.After[u.File] = orEmpty(cr.After[u.File])
	}
	recompiled(&cr, before)
	for _, p := range slices.Sorted(maps.Keys(plan.covered)) {
		if !v.deleted(g, p) {
			cr.Checked = append(cr.Checked, p)
			cr.After[p] = orEmpty(cr.After[p])
		}
	}
	compiler := filepath.Base(plan.compiled[0].Args[0])
	via = append(via, fmt.Sprintf("%s -fsyntax-only in a shadow tree for %d %s that %s a changed file (clangd 14 reads included files from disk)",
		compiler, len(plan.compiled), plural(len(plan.compiled), "translation unit", "translation units"), plural(len(plan.compiled), "includes", "include")))
	return cr, strings.Join(via, "; "), nil
}

// recompiled marks as answered after the change every file the units
// reported on before it (a header they include): every unit the checker
// compiles after the change was compiled (the same units for an
// includers' check; the changed database's for a database change, whose
// batch checker compiles no other), so an error of that file no unit
// reports any more is resolved. (The database change's caller then takes
// its checked files from the answers after, these included.) Without it a header's error went unpaired, neither
// resolved nor seen again, and the end of a hooked turn, which checks the
// way back to the session's start and takes what that resolves as what
// the turn brought in, passed a turn that deleted a header an includer
// names (the gate fuzzer, through the hooks).
func recompiled(cr *servers.CheckResult, before map[string][]lsp.Diagnostic) {
	for _, p := range slices.Sorted(maps.Keys(before)) {
		if _, ok := cr.After[p]; !ok && p != "" {
			cr.After[p] = []lsp.Diagnostic{}
			cr.Checked = append(cr.Checked, p)
		}
	}
}

func orEmpty(ds []lsp.Diagnostic) []lsp.Diagnostic {
	if ds == nil {
		return []lsp.Diagnostic{}
	}
	return ds
}

func (v *Validator) deleted(g *group, abs string) bool {
	for _, c := range g.changes {
		if v.root.Abs(c.Path) == abs {
			return c.Delete
		}
	}
	return false
}

// cFragmentLanguage returns "c" for a file C or C++ code includes that
// is neither a source nor a header (.inc, .ipp, .tpp, .tcc): code, checked
// through its includers only; "" for anything else.
func cFragmentLanguage(p string) string {
	if reach.Family(p) == "c" && servers.LanguageOf(p) == "" {
		return "c"
	}
	return ""
}

// planIncludes splits the group's check between the server and the
// compiler.
func (v *Validator) planIncludes(snap *Snapshot, g *group, req servers.CheckRequest) (includePlan, error) {
	plan := includePlan{covered: map[string][]string{}}
	dbFor := compileDatabases{}.forFile
	changed := map[string]*changeset.Change{} // by relative path
	for _, c := range g.changes {
		if _, err := dbFor(v.root.Abs(c.Path)); err != nil {
			return plan, err
		}
		changed[c.Path] = c
	}
	var files []string
	for rel := range changed {
		files = append(files, rel)
	}
	res := compiledb.NewResolver(v.root.Dir(), includable(snap, files))
	reaches := func(rel string) bool { return v.reachesChanged(res, rel, changed) }
	units := map[string]bool{}
	for _, f := range req.Files {
		rel, err := v.root.Rel(f.Path)
		if err != nil {
			return plan, err
		}
		fragment := servers.LanguageOf(rel) == "" // checked through its includers alone
		if !fragment && !reaches(rel) {
			if !f.Delete {
				plan.server = append(plan.server, f)
			}
			continue
		}
		if !fragment && compiledb.IsSource(rel) && !f.Delete {
			units[f.Path] = true
		} else {
			plan.covered[f.Path] = nil
		}
	}
	for _, d := range req.Dependants {
		if compiledb.IsSource(d) {
			units[d] = true
		}
	}
	for _, abs := range slices.Sorted(maps.Keys(units)) {
		db, err := dbFor(abs)
		if err != nil {
			return plan, err
		}
		cmd, ok := db.For(abs)
		if !ok {
			rel, _ := v.root.Rel(abs)
			return plan, &unverifiableError{fmt.Sprintf("%s includes a changed file and has no compile command in %s, so it cannot be compiled with the change; fix: regenerate the compile database so that it lists every translation unit", rel, db.Path)}
		}
		plan.compiled = append(plan.compiled, cmd)
		rel, _ := v.root.Rel(abs)
		for _, inc := range v.includedChanged(res, rel, changed) {
			a := v.root.Abs(inc)
			if _, ok := plan.covered[a]; ok {
				plan.covered[a] = append(plan.covered[a], abs)
			}
		}
	}
	for _, abs := range slices.Sorted(maps.Keys(plan.covered)) {
		if len(plan.covered[abs]) == 0 && !v.deleted(g, abs) {
			rel, _ := v.root.Rel(abs)
			why := "includes another changed file"
			if servers.LanguageOf(rel) == "" {
				why = "is checked only through the translation units that include it" // a fragment (.def, .inc)
			}
			return plan, &unverifiableError{fmt.Sprintf("%s %s, and no translation unit of the compile database includes it, so nothing checks it with the change; fix: add a translation unit that includes it to the compile database", rel, why)}
		}
	}
	return plan, nil
}

// compileDatabases are the compile databases read for one plan, by
// path, each with why it could not be read.
type compileDatabases map[string]loadedDatabase

type loadedDatabase struct {
	db  *compiledb.DB
	err error
}

// forFile returns the compile database that governs abs (found as clangd
// finds it), read once.
func (dbs compileDatabases) forFile(abs string) (*compiledb.DB, error) {
	p, err := compiledb.Find(abs)
	if err != nil {
		return nil, err
	}
	l, ok := dbs[p]
	if !ok {
		l.db, l.err = compiledb.Load(p)
		if l.err != nil {
			l.err = fmt.Errorf("the compile database cannot be read: %w", l.err)
		}
		dbs[p] = l
	}
	return l.db, l.err
}

// includable returns the files an include may name: the workspace's,
// whatever their names (an X-macro list, colors.def), the changed ones
// included, as the import graph's resolver has them.
func includable(snap *Snapshot, changed []string) []string {
	out := slices.Clone(changed)
	for rel := range snap.Files {
		out = append(out, rel)
	}
	return out
}

// includedChanged returns the changed files rel reads, with the change
// applied (reach.IncludedChanged), the rest read from disk.
func (v *Validator) includedChanged(res *compiledb.Resolver, rel string, changed map[string]*changeset.Change) []string {
	read := func(x string) []byte {
		src, _ := os.ReadFile(v.root.Abs(x))
		return src
	}
	return reach.IncludedChanged(res, rel, changed, read, v.recordedReads(rel))
}

// reachesChanged reports whether rel, as changed, includes another
// changed file, directly or not, or has an include the graph cannot
// trace (which may be one).
func (v *Validator) reachesChanged(res *compiledb.Resolver, rel string, changed map[string]*changeset.Change) bool {
	return len(changed) > 1 && len(v.includedChanged(res, rel, changed)) > 0
}

// compileEitherSide compiles the units before as on disk (kept per disk
// state) and the units after in a shadow tree holding g's changes, each
// with -fsyntax-only, bounded by the load timeout under parent, and
// returns their diagnostics merged by file, and where a compile after the
// change stopped (a stop before it can hide no new error).
func (v *Validator) compileEitherSide(parent context.Context, snap *Snapshot, g *group, before, after []compiledb.Command) (base, changed map[string][]lsp.Diagnostic, stopped string, err error) {
	ctx, cancel := context.WithTimeout(parent, v.opts.LoadTimeout)
	defer cancel()
	base, err = v.compileBaselines(ctx, snap, before)
	if err != nil {
		return nil, nil, "", fmt.Errorf("compiling the units as on disk: %w", err)
	}
	var changes []sandbox.Change
	for _, c := range g.changes {
		changes = append(changes, sandbox.Change{Path: c.Path, Content: c.Content, Delete: c.Delete})
	}
	units, err := v.compileUnits(ctx, after, changes)
	if err != nil {
		return nil, nil, "", fmt.Errorf("compiling the units with the change: %w", err)
	}
	changed, stopped = mergeUnits(units)
	return base, changed, stopped, nil
}

// unverifiableError says why a change cannot be checked, with the fix.
type unverifiableError struct{ reason string }

func (e *unverifiableError) Error() string { return e.reason }

// compileBaselines returns the merged diagnostics of units as on disk:
// kept per disk state (the snapshot's fingerprint) and unit, so that a
// check of the same disk compiles only the units it has not seen.
func (v *Validator) compileBaselines(ctx context.Context, snap *Snapshot, units []compiledb.Command) (map[string][]lsp.Diagnostic, error) {
	known, missing := v.cbase.lookup(snap.Fingerprint, units)
	if len(missing) > 0 {
		got, err := v.compileUnits(ctx, missing, nil)
		if err != nil {
			return nil, err
		}
		v.cbase.keep(snap.Fingerprint, missing, got)
		known = append(known, got...)
	}
	files, _ := mergeUnits(known)
	return files, nil
}

// compileBaselineCache keeps each unit's diagnostics for the latest disk
// state.
type compileBaselineCache struct {
	mu    sync.Mutex
	state string
	units map[string]unitDiags // by the command's identity
}

func unitKey(u compiledb.Command) string {
	return u.Dir + "\x00" + u.File + "\x00" + strings.Join(u.Args, "\x00")
}

func (c *compileBaselineCache) lookup(state string, units []compiledb.Command) (known []unitDiags, missing []compiledb.Command) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range units {
		if d, ok := c.units[unitKey(u)]; ok && c.state == state {
			known = append(known, d)
		} else {
			missing = append(missing, u)
		}
	}
	return known, missing
}

func (c *compileBaselineCache) keep(state string, units []compiledb.Command, got []unitDiags) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != state || c.units == nil {
		c.state, c.units = state, map[string]unitDiags{}
	}
	for i, u := range units {
		c.units[unitKey(u)] = got[i]
	}
}

// unitDiags is what compiling one unit said: its diagnostics by file
// (absolute), and where the compiler stopped compiling it ("" when it
// compiled the unit to its end).
type unitDiags struct {
	files   map[string][]lsp.Diagnostic
	stopped string
}

// mergeUnits merges units' diagnostics by file; one diagnostic reported
// by several units (an error in a header they include) counts once.
// stopped is the first unit's stop, if any unit stopped: one unit that
// stopped at an error another went on from hides what follows in it.
func mergeUnits(units []unitDiags) (files map[string][]lsp.Diagnostic, stopped string) {
	files = map[string][]lsp.Diagnostic{}
	seen := map[string]bool{}
	for _, u := range units {
		if stopped == "" {
			stopped = u.stopped
		}
		for _, file := range slices.Sorted(maps.Keys(u.files)) {
			if _, ok := files[file]; !ok {
				files[file] = []lsp.Diagnostic{}
			}
			for _, d := range u.files[file] {
				key := fmt.Sprintf("%s\x00%d\x00%d\x00%d\x00%s", file, d.Range.Start.Line, d.Range.Start.Character, d.Severity, d.Message)
				if !seen[key] {
					seen[key] = true
					files[file] = append(files[file], d)
				}
			}
		}
	}
	return files, stopped
}

// compileMarker ends each translation unit's output in a compile run,
// with the compiler's exit status.
const compileMarker = "@@anvil-compiled"

// compileUnits compiles each unit with -fsyntax-only in a shadow tree
// holding changes, as many at once as there are processors, and returns
// each one's errors and warnings. A compiler that cannot run, or fails
// without saying why in a form read here, is an error: nothing is
// inferred from it.
func (v *Validator) compileUnits(ctx context.Context, units []compiledb.Command, changes []sandbox.Change) ([]unitDiags, error) {
	// Each of the jobs compiles every jobs-th unit into an output file
	// of its own (the shadow tree's private /tmp); the outputs are shown
	// in the units' order once all are done.
	for _, u := range units {
		if err := v.compilerAllowed(u); err != nil {
			return nil, err
		}
	}
	out, err := v.runUnits(ctx, units, changes, func(u compiledb.Command, _ string) []string { return u.SyntaxOnly() }, `"$out/$i"`, false)
	if err != nil {
		return nil, err
	}
	return parseCompilerOutput(units, out, v.ownFile)
}

// ownFile reports whether abs is one of the project's own files: inside
// the workspace, outside its dependency directories.
func (v *Validator) ownFile(abs string) bool {
	rel, err := v.root.Rel(abs)
	return err == nil && !v.root.InDependencyDir(rel)
}

// runUnits runs argsOf each unit in its compile directory, in a sealed
// shadow tree holding changes, as many at once as there are processors,
// and returns, unit by unit in order, what show names (a file under $out,
// the run's private scratch directory; "$out/$i" is the unit's output),
// each followed by a compileMarker line with the unit's index and exit
// status. argsOf is given the unit's own scratch name ("$out/<i>", to be
// written into the command line unquoted). background runs them at a low
// priority: work done ahead of need.
func (v *Validator) runUnits(ctx context.Context, units []compiledb.Command, changes []sandbox.Change, argsOf func(u compiledb.Command, scratch string) []string, show string, background bool) ([]byte, error) {
	jobs := max(1, min(runtime.NumCPU(), len(units)))
	var script strings.Builder
	script.WriteString("out=$(mktemp -d) || exit 1\n")
	for j := range jobs {
		script.WriteString("(\n")
		for i := j; i < len(units); i += jobs {
			u := units[i]
			scratch := fmt.Sprintf("$out/%d", i)
			fmt.Fprintf(&script, "(cd %s && exec", shellQuote(u.Dir))
			for _, a := range argsOf(u, scratch) {
				if strings.HasPrefix(a, scratch) {
					script.WriteString(` "` + a + `"`) // the shell expands $out
					continue
				}
				script.WriteString(" " + shellQuote(a))
			}
			fmt.Fprintf(&script, ") </dev/null >\"$out/%d\" 2>&1; echo \"$?\" >\"$out/%d.status\"\n", i, i)
		}
		script.WriteString(") &\n")
	}
	script.WriteString("wait\n")
	fmt.Fprintf(&script, "i=0; while [ $i -lt %d ]; do cat %s 2>/dev/null; echo; echo %s $i $(cat \"$out/$i.status\"); i=$((i+1)); done\n", len(units), show, compileMarker)
	res, err := sandbox.Run(ctx, v.opts.Policy.Sealed(sandbox.Spec{Root: v.root.Dir(), Changes: changes, Argv: []string{"/bin/sh", "-c", script.String()},
		OutputLimit: 64 << 20, Background: background}))
	if err != nil {
		return nil, err
	}
	if res.Killed {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("killed")
	}
	if res.Truncated {
		return nil, errors.New("the compiler's output passed 64 MiB")
	}
	return res.Output, nil
}

// compilerDiag is one line of gcc's or clang's diagnostics:
// FILE:LINE:COL: error: MESSAGE (the column may be missing).
var compilerDiag = regexp.MustCompile(`^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning): (.*)$`)

// parseCompilerOutput reads a compile run's output, unit by unit. A
// diagnostic the compiler places in a file that is not one of the
// project's own (own: a system header a changed macro broke, a file a
// #line directive names, an installed dependency's header) is the unit's,
// at its first line, with where the compiler placed it in the message:
// pairing drops an error of a file outside the project, and the unit's
// compile reported it all the same (nil own: every file is).
func parseCompilerOutput(units []compiledb.Command, out []byte, own func(abs string) bool) ([]unitDiags, error) {
	sections, err := splitUnits(out, len(units))
	if err != nil {
		return nil, fmt.Errorf("the compile run: %w", err)
	}
	var all []unitDiags
	for i, sec := range sections {
		section, status := sec.lines, sec.status
		u := units[i]
		diags := map[string][]lsp.Diagnostic{u.File: {}}
		errs := 0
		// stopped: the compiler compiled no more of the unit; at is the
		// error it stopped at (a fatal one), or after (its last error,
		// which gcc's end under -fmax-errors or -Wfatal-errors follows).
		stopped := false
		at, last := "", ""
		for _, l := range section {
			stopped = stopped || diagformat.GCCStopped(l)
			m := compilerDiag.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			file := m[1]
			if !filepath.IsAbs(file) {
				file = filepath.Join(u.Dir, file)
			}
			file = filepath.Clean(file)
			ln, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			sev := lsp.SeverityWarning
			if m[4] != "warning" {
				sev = lsp.SeverityError
				errs++
			}
			d := lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: max(ln-1, 0), Character: max(col-1, 0)}}, Severity: sev,
				Source: filepath.Base(u.Args[0]), Message: m[5]}
			if own != nil && !own(file) {
				d.Range.Start = lsp.Position{}
				d.Message = fmt.Sprintf("in %s:%d: %s", m[1], ln, m[5])
				file = u.File
			}
			d.Range.End = d.Range.Start
			diags[file] = append(diags[file], d)
			where := fmt.Sprintf("%s:%d: %s", m[1], ln, m[5]) // as the compiler names it
			if m[4] == "fatal error" && at == "" {
				at = where
			}
			if sev == lsp.SeverityError {
				last = where
			}
		}
		var stop string
		unit := u.File
		if rel, err := filepath.Rel(u.Dir, u.File); err == nil && filepath.IsLocal(rel) {
			unit = rel
		}
		switch {
		case at != "":
			stop = fmt.Sprintf("%s stopped compiling %s at a fatal error (%s)", filepath.Base(u.Args[0]), unit, at)
		case stopped && last != "":
			stop = fmt.Sprintf("%s stopped compiling %s after an error (%s)", filepath.Base(u.Args[0]), unit, last)
		case stopped:
			stop = fmt.Sprintf("%s stopped compiling %s", filepath.Base(u.Args[0]), unit)
		}
		if status != 0 && errs == 0 {
			return nil, fmt.Errorf("%s exited with status %d compiling %s and reported no error: %s", u.Args[0], status, u.File, firstLine(strings.TrimSpace(strings.Join(section, "\n"))))
		}
		all = append(all, unitDiags{files: diags, stopped: stop})
	}
	return all, nil
}

// unitSection is one unit's part of a units run's output (runUnits):
// what was shown of it, and its exit status.
type unitSection struct {
	lines  []string
	status int
}

// splitUnits splits a units run's output into its n units' sections, in
// order; output that is not n marked sections is an error.
func splitUnits(out []byte, n int) ([]unitSection, error) {
	var sections []unitSection
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(line, compileMarker+" ")
		if !ok {
			lines = append(lines, line)
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 {
			return nil, fmt.Errorf("unreadable output: %q", line)
		}
		i, err1 := strconv.Atoi(f[0])
		status, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || i != len(sections) || i >= n {
			return nil, fmt.Errorf("unreadable output: %q", line)
		}
		sections = append(sections, unitSection{lines: lines, status: status})
		lines = nil
	}
	if len(sections) != n {
		return nil, fmt.Errorf("it ended after %d of %d translation units: %s", len(sections), n, firstLine(string(bytes.TrimSpace(out))))
	}
	return sections, nil
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+./,:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
