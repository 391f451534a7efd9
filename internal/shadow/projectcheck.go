package shadow

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// ProjectCheck is a project's own checker, the [check] table: a command
// run at the workspace root in a shadow tree, over the change and over
// the unchanged tree, its output read in Format.
type ProjectCheck struct {
	Command string
	Format  diagformat.Format
	// Languages (LSP language ids) and Files (globs, relative to the
	// root; "**/" matches any directories) say which files it covers.
	// With neither, it covers every source and configuration file no
	// language server checks.
	Languages []string
	Files     []string
}

// covers reports whether the check names the file rel.
func (pc *ProjectCheck) covers(rel string) (named, explicit bool) {
	if len(pc.Languages) == 0 && len(pc.Files) == 0 {
		return false, false
	}
	if l := servers.LanguageOf(rel); l != "" && slices.Contains(pc.Languages, l) {
		return true, true
	}
	for _, g := range pc.Files {
		if globMatch(g, rel) {
			return true, true
		}
	}
	return false, true
}

// globMatch matches rel against pattern, where "**/" stands for any
// directories (none included) and a pattern without a slash matches the
// base name.
func globMatch(pattern, rel string) bool {
	if !strings.Contains(pattern, "/") {
		ok, _ := path.Match(pattern, path.Base(rel))
		return ok
	}
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
		for p := rel; ; {
			if globMatch(rest, p) || globMatch(rest, path.Base(p)) && !strings.Contains(rest, "/") {
				return true
			}
			_, after, found := strings.Cut(p, "/")
			if !found {
				return false
			}
			p = after
		}
	}
	ok, _ := path.Match(pattern, rel)
	return ok
}

// projectChecker is a project checker of a validator: one per command.
type projectChecker struct {
	v        *Validator
	name     string // "`mypy src` (mypy format)"
	language string
	checker  *batch.Checker
	cargo    bool
}

// projectCheckerFor returns the project checker that checks the file
// rel, or nil when a server does: the configured [check] for the files it
// covers, else cargo check for a Rust file or Cargo manifest of a
// workspace with a Cargo.toml at its root (rust-analyzer cannot check a
// change that is not on disk).
func (v *Validator) projectCheckerFor(rel string) *projectChecker {
	if v.opts.BatchStateDir == "" {
		return nil
	}
	lang := servers.LanguageOf(rel)
	if lang == "" {
		lang = servers.ConfigLanguage(rel)
	}
	if pc := v.opts.Check; pc != nil {
		named, explicit := pc.covers(rel)
		if named || !explicit && lang != "" && v.noServer(lang) {
			return v.projectCheckerOf("check", "`"+pc.Command+"` ("+string(pc.Format)+" format)", lang,
				batch.Tool{Kind: batch.Command, Argv: []string{"/bin/sh", "-c", pc.Command}, Format: pc.Format, Label: "`" + pc.Command + "`"}, false)
		}
	}
	if lang == "" && v.inCrate(rel) {
		// A file of no language inside a crate may be an input rustc
		// reads (include!, include_str!, include_bytes!, a build
		// script's): cargo check over the changed tree decides.
		lang = "rust"
	}
	if lang == "rust" {
		if _, err := os.Stat(v.root.Abs("Cargo.toml")); err == nil {
			argv := []string{"cargo", "check", "--workspace", "--all-targets", "--message-format=json", "--quiet"}
			if !v.opts.CargoNetwork {
				argv = append(argv, "--offline")
			}
			return v.projectCheckerOf("cargo", "cargo check", "rust",
				batch.Tool{Kind: batch.Command, Argv: argv, Format: diagformat.RustcJSON, Label: "cargo check", Env: cargoEnv(v.opts.Policy.Getenv), CacheEnv: "CARGO_TARGET_DIR", DepInfo: true}, true)
		}
	}
	return nil
}

// inCrate reports whether rel lies in a crate's directory (one whose
// Cargo.toml has a [package]) within the workspace, outside a target
// directory. Which of such files rustc reads, cargo's dependency files
// say only after a build of the very state; until then cargo check
// decides: slower, never silent.
func (v *Validator) inCrate(rel string) bool {
	if strings.HasPrefix(rel, "target/") || strings.Contains(rel, "/target/") {
		return false
	}
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if data, err := os.ReadFile(v.root.Abs(path.Join(dir, "Cargo.toml"))); err == nil && packageManifest.Match(data) {
			return true
		}
		if dir == "." || dir == "/" {
			return false
		}
	}
}

// packageManifest matches a Cargo.toml that declares a package.
var packageManifest = regexp.MustCompile(`(?m)^\s*\[package\]`)

// noServer reports whether no language server checks files of lang (a
// source file's language, or the language a configuration file
// configures).
func (v *Validator) noServer(lang string) bool {
	_, err := v.servers.ForLanguage(lang)
	return err != nil
}

// cargoEnv is what cargo needs in the shadow tree: no colours, and its
// home and rustup's where the environment has them (read-only there).
// getenv reads the environment Anvil was started with.
func cargoEnv(getenv func(string) string) []string {
	env := []string{"CARGO_TERM_COLOR=never"}
	home := getenv("HOME")
	if getenv("CARGO_HOME") == "" && home != "" {
		if _, err := os.Stat(filepath.Join(home, ".cargo")); err == nil {
			env = append(env, "CARGO_HOME="+filepath.Join(home, ".cargo"))
		}
	}
	if getenv("RUSTUP_HOME") == "" && home != "" {
		if _, err := os.Stat(filepath.Join(home, ".rustup")); err == nil {
			env = append(env, "RUSTUP_HOME="+filepath.Join(home, ".rustup"))
		}
	}
	return env
}

// projectCheckerOf returns the validator's checker named key, made once.
func (v *Validator) projectCheckerOf(key, label, lang string, tool batch.Tool, cargo bool) *projectChecker {
	v.batch.mu.Lock()
	defer v.batch.mu.Unlock()
	if v.batch.projects == nil {
		v.batch.projects = map[string]*projectChecker{}
	}
	if pc, ok := v.batch.projects[key]; ok {
		return pc
	}
	// One state directory per workspace (the batch directory is Anvil's
	// cache, shared by workspaces).
	dir := filepath.Join(v.opts.BatchStateDir, key+"-"+workspaceKey(v.root.Dir()))
	pc := &projectChecker{v: v, name: label, language: lang, cargo: cargo,
		checker: batch.New(v.root.Dir(), tool, dir, v.opts.Policy)}
	v.batch.projects[key] = pc
	return pc
}

func (pc *projectChecker) label() string { return pc.name }

// check runs the project checker over the whole project in a shadow tree,
// beside its answer for the unchanged tree, bounded by the load timeout.
// It is complete or unverified: output that does not read, a killed run,
// a checker that stopped early without a new error, all leave the change
// unverified (see judge).
func (pc *projectChecker) check(ctx context.Context, w checkWork) (evidence, error) {
	v := pc.v
	ctx, cancel := context.WithTimeout(ctx, v.opts.LoadTimeout)
	defer cancel()
	changed := map[string]*changeset.Change{}
	var changes []batch.Change
	for _, c := range w.g.changes {
		changed[v.root.Abs(c.Path)] = c
		changes = append(changes, batch.Change{Path: c.Path, Content: c.Content, Delete: c.Delete})
	}
	if pc.cargo {
		if err := v.cargoAllowed(ctx, w.snap, w.g.changes); err != nil {
			return evidence{}, &unverifiableError{err.Error()}
		}
	}
	v.progress(w.g.say, Progress{Server: pc.name, Stage: "checking", Files: len(changes)})
	start := time.Now()
	res, err := pc.checker.Check(ctx, v.root.Dir(), w.snap.Fingerprint, changes, false)
	if err != nil {
		return evidence{}, &unverifiableError{describeFailure(ctx, pc.name, err)}
	}
	cr := servers.CheckResult{Before: res.Before, After: map[string][]lsp.Diagnostic{}}
	for p, d := range res.After {
		cr.After[p] = d
	}
	var kept []string
	for abs, c := range changed {
		if !c.Delete {
			kept = append(kept, abs)
		}
	}
	markChecked(&cr, kept, res.Incomplete == "")
	via := "checked by " + pc.name + " in a shadow tree"
	if pc.cargo {
		via = "checked by cargo check (every crate of the workspace, all targets) in a shadow tree; cargo's state was "
		if res.Warm {
			via += "warm"
		} else {
			via += "cold"
		}
	}
	return evidence{
		cr:         cr,
		via:        fmt.Sprintf("%s, %s", via, time.Since(start).Round(time.Millisecond)),
		whole:      res.Incomplete == "",
		incomplete: res.Incomplete,
		unread:     unreadChanges(res.Read, changed),
	}, nil
}

// fileless returns the errors of no file after the change that were not
// there before, as diagnostics of the workspace.
func fileless(before, after []lsp.Diagnostic) []Diag {
	var out []Diag
	seen := map[string]int{}
	for _, d := range before {
		if d.IsError() {
			seen[d.Message]++
		}
	}
	for _, d := range after {
		if !d.IsError() {
			continue
		}
		if seen[d.Message] > 0 {
			seen[d.Message]--
			continue
		}
		out = append(out, Diag{Path: ".", Severity: d.Severity.String(), Code: d.CodeString(), Source: d.Source, Message: d.Message})
	}
	return out
}

// unreadChanges returns the changed Rust sources (workspace-relative) the
// checker's dependency files do not name; none when it writes none.
func unreadChanges(read map[string]bool, changed map[string]*changeset.Change) []string {
	if read == nil {
		return nil
	}
	var out []string
	for abs, c := range changed {
		if !c.Delete && strings.HasSuffix(c.Path, ".rs") && !read[abs] {
			out = append(out, c.Path)
		}
	}
	slices.Sort(out)
	return out
}

// markChecked marks the files a run over the whole of its projects
// checked. One that finished (whole) checked every file it names either
// side of the change and files (those its projects hold after it), and
// one it said nothing about after the change has no diagnostics.
// Without that mark, pairing reads a file absent after as never asked
// about, and the errors it had before are neither resolved nor seen
// again: the end of a hooked turn, which asks what the way back to the
// turn's start resolves, missed every error the turn brought into a
// file it did not edit. One that stopped checked only the files it
// names after the change: its silence is no evidence, and an error
// before is not taken as resolved where it never came.
func markChecked(cr *servers.CheckResult, files []string, whole bool) {
	checked := map[string]bool{}
	mark := func(p string) {
		if p == "" {
			return // the checker's errors of no file: judge's to read
		}
		if !checked[p] {
			checked[p] = true
			cr.Checked = append(cr.Checked, p)
		}
		if _, ok := cr.After[p]; !ok {
			cr.After[p] = nil
		}
	}
	for p := range cr.After {
		mark(p)
	}
	if whole {
		for _, p := range files {
			mark(p)
		}
		for p := range cr.Before {
			mark(p)
		}
	}
	slices.Sort(cr.Checked)
}
