package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Opener returns the Service of the workspace dir (daemon.Open's, in the
// binary) and what releases it.
type Opener func(ctx context.Context, dir string) (service.Service, func(), error)

// Gate answers a client's hooks with a workspace's Service.
type Gate struct {
	Client Client
	Open   Opener
	// OpenShared returns the service that keeps working after the hook
	// has answered (the daemon's), or an error when there is none; nil
	// for none. The session's warm-up is sent there only: a service of
	// the hook's own process would start servers only to stop them.
	OpenShared Opener
	// Getenv reads the environment Anvil started with.
	Getenv func(string) string
	// Strict refuses what could not be verified, instead of letting it
	// through with a note.
	Strict bool
	// Snapshots keeps each session's tree as it was at its start; nil
	// keeps none (the end-of-turn check then has no baseline).
	Snapshots *Store
	// TrustNotice says what of the project's own checking waits for the
	// user's trust in the workspace at dir ("" for nothing); nil says
	// nothing. Never a refusal: trust does not block an agent.
	TrustNotice func(dir string) string
	// ImportersWithin, when set, is what an edit's check may be expected
	// to spend on the files that use what it changed (the gate knows
	// each server's cost per question); 0, the default, spends nothing
	// on them. Importers left out are the end of the turn's, with a
	// note, and the edit's own files are judged alone: an agent waits on
	// every edit, a hub's importers take seconds, and the word an edit
	// could give of them (they never refuse it) the end of the turn gives
	// with a refusal.
	ImportersWithin time.Duration
}

// editOptions are what an edit's check asks of the gate (readsOnlyNew:
// the pre-edit hook, which reads only the errors an edit introduces).
func (g *Gate) editOptions(readsOnlyNew bool) service.GateOptions {
	opts := service.GateOptions{Staging: true, NewOnly: readsOnlyNew}
	switch {
	case g.Strict:
		// What cannot be verified is refused: an edit whose importers
		// are left (a deletion's are its only evidence) would be.
		return opts
	case g.ImportersWithin > 0:
		opts.DependantsWithin = g.ImportersWithin
	default:
		opts.ChangedOnly = true
	}
	return opts
}

// importersWait is how long an edit's check waits, by the clock, for
// importers it expected to be quick: an estimate can be wrong (a server
// not warm yet), and then the edit's own files are judged alone.
func (g *Gate) importersWait() time.Duration {
	if g.ImportersWithin <= 0 || g.Strict {
		// None asked about, or every one (--strict): the hook's bound
		// alone.
		return 0
	}
	return max(g.ImportersWithin, minImportersWait)
}

// DefaultImportersWithin is what an edit's check spends on its importers
// unless told otherwise: nothing.
const DefaultImportersWithin = 0

// minImportersWait is the least wait by the clock for importers: with
// the own files' check after it, within a second.
const minImportersWait = 800 * time.Millisecond

// ProjectDir is the workspace of a hook call: the client's project
// directory ($CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR, else the input's
// cwd, else the process's), or the nearest directory above it holding
// Anvil's project config (.anvil) or a repository (.git).
func (g *Gate) ProjectDir(in Input) (string, error) {
	start := in.Cwd
	switch g.Client {
	case Claude:
		start = cmpOr(g.Getenv("CLAUDE_PROJECT_DIR"), start)
	case Gemini:
		start = cmpOr(g.Getenv("GEMINI_PROJECT_DIR"), start)
	}
	if start == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		start = wd
	}
	start, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for d := start; ; d = filepath.Dir(d) {
		for _, marker := range []string{".anvil", ".git"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return start, nil
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readFile reads a file for an edit's computation: a missing file does
// not exist; a binary one is no edit Anvil checks.
func readFile(abs string) ([]byte, bool, error) {
	data, err := os.ReadFile(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, pass("%s cannot be read (%v)", abs, err)
	case workspace.IsBinary(data):
		return nil, false, pass("%s is a binary file: not checked", abs)
	}
	return data, true, nil
}

// PreEdit judges one edit tool call before the client makes it: new
// errors in the files it touches refuse it, new errors only in other
// files (their importers) let it through with word of them for the model,
// and what cannot be verified goes through with a note (refused when
// Strict). Every answer lets the client go on unless it refuses.
func (g *Gate) PreEdit(ctx context.Context, in Input) Answer {
	dir, err := g.ProjectDir(in)
	if err != nil {
		return allow("no workspace for this edit (%v): not checked", err)
	}
	root, err := workspace.New(dir)
	if err != nil {
		return allow("no workspace for this edit (%v): not checked", err)
	}
	cwd := cmpOr(in.Cwd, dir)
	edits, err := Edits(g.Client, in.ToolName, in.ToolInput, cwd, readFile)
	var p *Pass
	var u *Unmodelled
	switch {
	case errors.As(err, &p):
		return Answer{}.withNote(p.Reason)
	case errors.As(err, &u) && g.Strict:
		return Answer{Deny: true, Reason: "Anvil cannot compute what this edit writes (" + u.Reason + ") and --strict refuses what it cannot verify. Make the edit with the file's exact text."}
	case errors.As(err, &u):
		return g.afterTheFact(ctx, root, in, u)
	case err != nil:
		return allow("the edit's input could not be read (%v): not checked", err)
	}
	specs, touched, outside, leaving := specsOf(root, edits)
	if len(leaving) > 0 {
		return refuseLeaving(leaving)
	}
	g.keepForTurn(ctx, root, in, slices.Sorted(maps.Keys(touched)))
	if len(specs) == 0 {
		if len(outside) > 0 {
			return allow("%s is outside the workspace %s: not checked", strings.Join(outside, ", "), dir)
		}
		return Answer{}
	}
	svc, closeSvc, err := g.Open(ctx, dir)
	if err != nil {
		return g.unverified(ctx, fmt.Sprintf("the gate could not start (%v)", err))
	}
	defer closeSvc()
	// The edit is refused for the errors it introduces alone.
	out, cut, err := checkWithin(ctx, svc, specs, g.editOptions(true), g.importersWait(), "what this edit changed")
	switch {
	case err != nil && service.IsInput(err):
		return allow("the edit is not one Anvil can check (%v)", err)
	case err != nil:
		return g.unverified(ctx, err.Error())
	case out.Result == nil:
		return g.unverified(ctx, "the check gave no verdict")
	}
	a := g.judgeEdit(ctx, out.Result, touched)
	switch {
	case a.Deny:
	case cut != "" && g.Strict:
		// The importers were not checked: what --strict refuses.
		return g.unverified(ctx, cut)
	case cut != "":
		a = a.withNote(cut + "; the end of the turn checks them")
	case out.Result.DependantsLeft:
		a = a.withNote(g.leftNote())
	}
	if len(outside) > 0 {
		a = a.withNote(strings.Join(outside, ", ") + " is outside the workspace: not checked")
	}
	return a
}

// keepForTurn has the session's snapshot know the files rels (relative)
// as they are before an edit: the first hook call of a session that had
// no SessionStart hook (installed mid-session) takes its baseline now,
// and a file the snapshot left out is kept as it is now.
func (g *Gate) keepForTurn(ctx context.Context, root *workspace.Root, in Input, rels []string) {
	if g.Snapshots == nil || in.SessionID == "" {
		return
	}
	snap, err := g.Snapshots.Ensure(ctx, root, in.SessionID, g.transcript(in))
	if err != nil {
		fmt.Fprintf(os.Stderr, "anvil: %v\n", err)
		return
	}
	for _, rel := range rels {
		data, exists, err := readFile(root.Abs(rel))
		if err != nil {
			// Unreadable or binary: no content to keep, and not missing
			// either; the end of the turn names what it cannot take back.
			continue
		}
		if err := g.Snapshots.Record(root, snap, rel, data, exists); err != nil {
			fmt.Fprintf(os.Stderr, "anvil: keeping %s for the end-of-turn check: %v\n", rel, err)
		}
	}
}

// refuseLeaving refuses an edit of files a link takes out of the
// workspace: the workspace reads them by the link's name, so the write
// changes what its checkers see, yet it lands where no check of the
// workspace, and no end-of-turn snapshot, looks.
func refuseLeaving(leaving []string) Answer {
	return Answer{Deny: true, Reason: fmt.Sprintf("%s is a link out of the workspace: the edit would write a file outside it that the project reads through the link, which Anvil cannot check or take back. Edit the file in its own project, or replace the link with a file of this one.", strings.Join(leaving, ", "))}
}

// afterTheFact lets through an edit whose result Anvil cannot compute
// (u), keeping its file as it is now, for the client's post-tool hook to
// check the file it writes (PostEdit) and for the end of the turn.
func (g *Gate) afterTheFact(ctx context.Context, root *workspace.Root, in Input, u *Unmodelled) Answer {
	if _, _, _, leaving := specsOf(root, []FileEdit{{Path: u.Path}}); len(leaving) > 0 {
		return refuseLeaving(leaving)
	}
	rel, err := root.Rel(u.Path)
	if err != nil || !lexicallyInside(root, u.Path) {
		return allow("%s: the edit is not checked before it is written, and its file is outside the workspace", u.Reason)
	}
	g.keepForTurn(ctx, root, in, []string{rel})
	if !g.postEditInstalled(root.Dir()) || g.Snapshots == nil || in.SessionID == "" {
		return allow("%s: the edit is not checked before it is written; the end of the turn checks it", u.Reason)
	}
	data, exists, err := readFile(u.Path)
	if err == nil {
		err = g.Snapshots.KeepBefore(root, in.SessionID, rel, data, exists)
	}
	if err != nil {
		return allow("%s: the edit is not checked before it is written (keeping %s for a check after it failed: %v); the end of the turn checks it", u.Reason, rel, err)
	}
	a := allow("%s: Anvil checks the file as written, after the edit", u.Reason)
	a.CheckAfter = true
	return a
}

func (a Answer) withNote(note string) Answer {
	if note == "" {
		return a
	}
	if a.Message != "" {
		a.Message += "; " + note
	} else {
		a.Message = "Anvil: " + note
	}
	return a
}

// ownShare is the part of the hook's bound kept for checking the edit's
// own files alone, when the whole check (with the importers) has not
// finished in the rest.
const ownShare = 0.4

// checkWithin checks specs with opts within ctx's deadline. When the
// whole check cannot finish in its share of the bound (and within wait,
// when wait is set), the changed files are checked alone in the rest
// (GateOptions.ChangedOnly), so that a change that breaks them is still
// refused; cut then says the dependants were not checked, in the words
// of what, which names the change.
func checkWithin(ctx context.Context, svc service.Service, specs []changeset.Spec, opts service.GateOptions, wait time.Duration, what string) (*service.Outcome, string, error) {
	deadline, ok := ctx.Deadline()
	if !ok || opts.ChangedOnly {
		// Nothing narrower to fall back on: the whole bound. (Cut short,
		// a server is stopped mid-check, and a second try would start it
		// again.)
		out, err := svc.Check(ctx, specs, opts)
		return out, "", err
	}
	whole := time.Duration(float64(time.Until(deadline)) * (1 - ownShare))
	bound := "the hook's bound"
	if wait > 0 && wait < whole {
		whole, bound = wait, "the wait an edit is given for them"
	}
	wctx, cancel := context.WithTimeout(ctx, whole)
	out, err := svc.Check(wctx, specs, opts)
	cutShort := wctx.Err() != nil // read before cancel, which sets it
	cancel()
	if !cutShort || ctx.Err() != nil {
		return out, "", err
	}
	if err == nil && out.Result != nil && out.Result.Verdict != shadow.Unverified {
		return out, "", nil // finished as its bound ended
	}
	opts.ChangedOnly = true
	out, err = svc.Check(ctx, specs, opts)
	return out, fmt.Sprintf("the files that use %s could not be checked within %s (%s): only the changed files were", what, bound, roundWait(whole)), err
}

// leftNote says that the check left the importers to the end of the
// turn, and why.
func (g *Gate) leftNote() string {
	if g.ImportersWithin <= 0 {
		return "the files that use what this edit changed are not checked at each edit: the end of the turn checks them"
	}
	return fmt.Sprintf("the files that use what this edit changed would take longer to check than the %s an edit may spend on them: the end of the turn checks them", roundWait(g.ImportersWithin))
}

// roundWait rounds a wait for a message: to the second from a second up,
// else to a tenth.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// specsOf turns edits into a change set of the workspace; files outside
// it are named apart, and so are paths inside it that a link takes out
// of it (leaving).
func specsOf(root *workspace.Root, edits []FileEdit) (specs []changeset.Spec, touched map[string]bool, outside, leaving []string) {
	touched = map[string]bool{}
	for _, e := range edits {
		p, err := root.Resolve(e.Path)
		if err != nil || p.Rel == "." {
			if errors.Is(err, workspace.ErrOutside) && lexicallyInside(root, e.Path) {
				leaving = append(leaving, e.Path)
			} else {
				outside = append(outside, e.Path)
			}
			continue
		}
		rel := p.Rel
		sp := changeset.Spec{Path: rel, Delete: e.Delete}
		if !e.Delete {
			s := string(e.Content)
			sp.Content = &s
		}
		specs = append(specs, sp)
		touched[rel] = true
	}
	return specs, touched, outside, leaving
}

// lexicallyInside reports whether p names a place inside the root before
// any link is followed.
func lexicallyInside(root *workspace.Root, p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root.Dir(), p)
	}
	_, err := root.Rel(filepath.Clean(p))
	return err == nil
}

// unverified is the answer when the gate could not give a verdict: the
// edit goes through with a note, or is refused under Strict.
func (g *Gate) unverified(ctx context.Context, why string) Answer {
	if ctx.Err() != nil {
		why = "the check did not finish within the hook's bound"
	}
	if g.Strict {
		return Answer{Deny: true, Reason: "Anvil could not verify this edit (" + why + ") and --strict refuses what it cannot verify."}
	}
	return notVerified("this edit was not verified (%s)", why)
}

// judgeEdit maps a check's verdict to the pre-edit answer.
func (g *Gate) judgeEdit(ctx context.Context, res *shadow.Result, touched map[string]bool) Answer {
	var mine, others []shadow.Diag
	for _, d := range res.New {
		if touched[d.Path] {
			mine = append(mine, d)
		} else {
			others = append(others, d)
		}
	}
	switch {
	case len(mine) > 0:
		var b strings.Builder
		fmt.Fprintf(&b, "Anvil refused this edit: it brings %d new %s into %s (nothing was written):\n",
			len(mine), plural(len(mine), "error", "errors"), joinFiles(filesOf(mine)))
		listDiags(&b, mine)
		if len(others) > 0 {
			fmt.Fprintf(&b, "It would also break %s.\n", joinFiles(filesOf(others)))
		}
		b.WriteString("Fix the edit and make it again.")
		return Answer{Deny: true, Reason: b.String()}
	case len(others) > 0:
		var b strings.Builder
		fmt.Fprintf(&b, "Anvil: this edit is clean in its own files but brings %d new %s into %s, which use what it changed; fix them before the turn ends:\n",
			len(others), plural(len(others), "error", "errors"), joinFiles(filesOf(others)))
		listDiags(&b, others)
		return Answer{Context: strings.TrimRight(b.String(), "\n")}
	case res.Verdict == shadow.Unverified:
		return g.unverified(ctx, res.Summary())
	}
	return Answer{}
}

func filesOf(ds []shadow.Diag) []string {
	var out []string
	for _, d := range ds {
		if !slices.Contains(out, d.Path) {
			out = append(out, d.Path)
		}
	}
	return out
}

func joinFiles(files []string) string {
	if len(files) <= 4 {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more files", strings.Join(files[:3], ", "), len(files)-3)
}
