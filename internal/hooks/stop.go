package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// SessionStart keeps the workspace's tree for the session's end-of-turn
// checks, and says once, for the session, when the project's own
// checking would differ from Anvil's until the workspace is trusted. It
// never refuses: a snapshot it cannot take is said.
func (g *Gate) SessionStart(ctx context.Context, in Input) Answer {
	a := g.keepStart(ctx, in)
	g.warmAhead(ctx, in)
	if g.TrustNotice == nil {
		return a
	}
	if dir, err := g.ProjectDir(in); err == nil {
		if n := g.TrustNotice(dir); n != "" {
			a.Context = strings.TrimSpace(a.Context + "\nAnvil: " + n)
			if a.Message == "" {
				a.Message = "Anvil: " + n
			}
		}
	}
	return a
}

// warmAheadBound bounds what the session's start waits for of the
// warm-up: opening the service (the daemon, started if need be) and
// asking it to start its work, which then runs in the daemon.
const warmAheadBound = 3 * time.Second

// warmAhead has the workspace's service start, in the background, what
// the session's first check would wait for (its servers and projects,
// the dependants' records): without it every first edit of a session on
// a large project ran into the hook's bound. Only a shared service (the
// daemon) is warmed: the work must outlive the hook. Best effort, never
// said.
func (g *Gate) warmAhead(ctx context.Context, in Input) {
	if g.OpenShared == nil {
		return
	}
	dir, err := g.ProjectDir(in)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, warmAheadBound)
	defer cancel()
	svc, closeSvc, err := g.OpenShared(ctx, dir)
	if err != nil {
		return
	}
	defer closeSvc()
	_ = svc.Warm(ctx, nil)
}

// backTo is the change that takes rel from its content on disk (cur, its
// hash; "" for no file) back to the content whose hash is was ("" for no
// file): nil when they are the same; false when was's content is not
// kept.
func (g *Gate) backTo(rel, was, cur string) (*changeset.Spec, bool) {
	switch {
	case was == cur:
		return nil, true
	case was == "":
		return &changeset.Spec{Path: rel, Delete: true}, true
	}
	data, err := g.Snapshots.Content(was)
	if err != nil {
		return nil, false
	}
	s := string(data)
	return &changeset.Spec{Path: rel, Content: &s}, true
}

// keepStart keeps the workspace's tree as the session starts.
func (g *Gate) keepStart(ctx context.Context, in Input) Answer {
	if g.Snapshots == nil || in.SessionID == "" {
		return Answer{}
	}
	dir, err := g.ProjectDir(in)
	if err != nil {
		return notVerified("no workspace for this session (%v): its turns are not checked", err)
	}
	root, err := workspace.New(dir)
	if err != nil {
		return notVerified("no workspace for this session (%v): its turns are not checked", err)
	}
	if _, err := g.Snapshots.Ensure(ctx, root, in.SessionID, g.transcript(in)); err != nil {
		return notVerified("the session's starting tree could not be kept (%v): the end of its turns is checked against the tree of its first edit", err)
	}
	return Answer{}
}

// transcript is the client's record of the session: the hook input's
// transcript_path (Claude Code, Codex, Gemini CLI); for the clients that
// name none, the record they keep: Copilot CLI's events file of the
// session, OpenCode's database of every session. "" when none is known.
func (g *Gate) transcript(in Input) string {
	switch {
	case in.TranscriptPath != "" || g.Getenv == nil:
		return in.TranscriptPath
	case g.Client == Copilot:
		return g.copilotRecord(in)
	case g.Client == OpenCode:
		return g.openCodeRecord()
	}
	return ""
}

// openCodeRecord is the database OpenCode keeps its sessions in, rows of
// one file ($XDG_DATA_HOME/opencode/opencode.db, else under
// ~/.local/share): while it is there, a session of it may be resumed.
// It says nothing of one session: the store keeps a snapshot whose
// record others share for a bound of its own (sharedRecordTTL).
func (g *Gate) openCodeRecord() string {
	data := g.Getenv("XDG_DATA_HOME")
	if data == "" && g.Getenv("HOME") != "" {
		data = filepath.Join(g.Getenv("HOME"), ".local", "share")
	}
	if !filepath.IsAbs(data) {
		return ""
	}
	dir := filepath.Join(data, "opencode")
	// OPENCODE_DB names another database, as OpenCode reads it: one in
	// memory keeps nothing to resume; a relative name is in its data
	// folder.
	switch db := g.Getenv("OPENCODE_DB"); {
	case db == ":memory:":
		return ""
	case filepath.IsAbs(db):
		return db
	case db != "":
		return filepath.Join(dir, db)
	}
	return filepath.Join(dir, "opencode.db")
}

// copilotRecord is the events file Copilot CLI keeps for the session
// under its home ($COPILOT_HOME, else ~/.copilot, where the hooks are
// installed too).
func (g *Gate) copilotRecord(in Input) string {
	if in.SessionID == "" || strings.ContainsAny(in.SessionID, `/\`) || in.SessionID == "." || in.SessionID == ".." {
		return ""
	}
	home := g.Getenv("COPILOT_HOME")
	if home == "" && g.Getenv("HOME") != "" {
		home = filepath.Join(g.Getenv("HOME"), ".copilot")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, "session-state", in.SessionID, "events.jsonl")
}

// Stop checks, at the end of a turn, every file the session changed (by
// its edit tools or any other way) and their dependants, against the tree
// as the session started. New errors refuse the end of the turn, with
// the errors, up to MaxBlocks times in a row; then the turn ends with a
// warning.
//
// The Service checks a change set against the disk, so the session's
// work is checked backwards: the change set is the way back to the
// snapshot (each changed file's content then; a new file deleted), and
// the errors it would resolve are exactly those the session brought in,
// paired by the same rules that pair a forward check's. Complete has it
// check every dependant, so a fix the session made (which the way back
// would undo) does not cut the importers' check short.
func (g *Gate) Stop(ctx context.Context, in Input) Answer {
	if g.Snapshots == nil || in.SessionID == "" {
		return notVerified("no session id in the hook's input: the end of the turn is not checked")
	}
	dir, err := g.ProjectDir(in)
	if err != nil {
		return notVerified("no workspace for this session (%v): the end of the turn is not checked", err)
	}
	root, err := workspace.New(dir)
	if err != nil {
		return notVerified("no workspace for this session (%v): the end of the turn is not checked", err)
	}
	snap, err := g.Snapshots.Load(root, in.SessionID)
	if err != nil {
		return notVerified("%v: the end of the turn is not checked", err)
	}
	if snap == nil {
		if _, err := g.Snapshots.Ensure(ctx, root, in.SessionID, g.transcript(in)); err != nil {
			return notVerified("no snapshot of the session's start, and none could be taken (%v): the end of the turn is not checked", err)
		}
		return notVerified("no snapshot of this session's start (its hooks were installed after it began, or, its client naming no record of the session that is still there, its snapshot went unused for %d days or behind %d sessions used since): from now on the end of each turn is checked against the tree as it is now", int(snapTTL.Hours()/24), maxSessions)
	}
	if !in.StopHookActive {
		snap.Blocks = 0 // a turn the user started: the count of refusals in a row starts again
	}
	// The edits a post-tool hook was to check and did not (a tool that
	// failed, a client that skipped it) are the turn's to check now.
	if err := g.Snapshots.DropBefore(root, in.SessionID); err != nil {
		fmt.Fprintf(os.Stderr, "anvil: %v\n", err)
	}
	specs, unknown, err := g.wayBack(ctx, root, snap)
	if err != nil {
		return notVerified("comparing the tree with the session's start failed (%v): the end of the turn is not checked", err)
	}
	var notes []string
	if len(unknown) > 0 {
		notes = append(notes, fmt.Sprintf("%s changed but the session's snapshot cannot take %s back to the session's start (installed packages, a link, ignore rules that may now hide what the session made, binary, over %d MiB, past its size bound, or first seen by an edit after the session had changed it), so not checked", joinFiles(unknown), plural(len(unknown), "it", "them"), maxSnapFile>>20))
	}
	// A change inside the packages of a directory past the stamp's bound
	// is not seen: such a turn is not verified, whatever else it did.
	blind := unseenInside(snap.Installed)
	if len(blind) > 0 {
		notes = append(notes, fmt.Sprintf("%s holds more than %d entries, so a change inside its packages is not seen (an install or removal is)", joinFiles(blind), maxPackageFiles))
		unknown = append(unknown, blind...)
	}
	if len(specs) == 0 {
		return g.endTurn(root, snap, Answer{Unverified: len(unknown) > 0}.withNote(strings.Join(notes, "; ")))
	}
	svc, closeSvc, err := g.Open(ctx, dir)
	if err != nil {
		return g.endTurn(root, snap, g.unverifiedTurn(ctx, fmt.Sprintf("the gate could not start (%v)", err)))
	}
	defer closeSvc()
	out, cut, err := checkWithin(ctx, svc, specs, service.GateOptions{Complete: true}, 0, "the session's changes")
	if cut != "" {
		notes = append(notes, cut+", so what they break is not known")
	}
	switch {
	case err != nil:
		return g.endTurn(root, snap, g.unverifiedTurn(ctx, err.Error()))
	case out.Result == nil:
		return g.endTurn(root, snap, g.unverifiedTurn(ctx, "the check gave no verdict"))
	}
	res := out.Result
	introduced := res.Resolved
	for _, u := range res.Unverified {
		notes = append(notes, fmt.Sprintf("%s not verified (%s)", u.Path, u.Reason))
	}
	if len(introduced) == 0 {
		return g.endTurn(root, snap, Answer{Unverified: len(res.Unverified) > 0 || cut != "" || len(unknown) > 0}.withNote(strings.Join(notes, "; ")))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Anvil: the session's changes leave %d new %s in %s, compared with the tree as the session started:\n",
		len(introduced), plural(len(introduced), "error", "errors"), joinFiles(filesOf(introduced)))
	listDiags(&b, introduced)
	b.WriteString("Fix them before you finish.")
	return g.refuse(root, snap, Answer{Deny: true, Reason: b.String()}.withNote(strings.Join(notes, "; ")))
}

// refuse refuses the end of the turn, unless it was refused MaxBlocks
// times in a row already: then the turn ends with the reason as a
// warning to the user, and the count starts again. The last refusal tells
// the model so, and each refusal and the end past the bound go to the
// end-of-turn log, where the user finds them even if the client ended
// the turn on its own.
func (g *Gate) refuse(root *workspace.Root, snap *Snapshot, a Answer) Answer {
	if snap.Blocks >= MaxBlocks {
		errs := strings.TrimPrefix(a.Reason, "Anvil: ")
		warn := fmt.Sprintf("Anvil: the turn ends with errors it was refused for %d times in a row: ", snap.Blocks) + errs
		if err := g.Snapshots.record(root, snap.Session, fmt.Sprintf("the turn ended after %d refusals in a row, with: %s", snap.Blocks, errs)); err != nil {
			warn += fmt.Sprintf(" (the end-of-turn log could not be written: %v)", err)
		} else {
			warn += " (recorded in " + g.Snapshots.StopLog() + ")"
		}
		return g.endTurn(root, snap, Answer{Message: warn})
	}
	snap.Blocks++
	if snap.Blocks == MaxBlocks {
		a.Reason += fmt.Sprintf("\nThis is Anvil's last refusal in a row (%d): if the turn ends with errors again, Anvil lets it end and tells the user the errors remain.", MaxBlocks)
	}
	var notes []string
	if err := g.Snapshots.record(root, snap.Session, fmt.Sprintf("refused the end of the turn (%d of %d in a row): %s", snap.Blocks, MaxBlocks, strings.TrimPrefix(a.Reason, "Anvil: "))); err != nil {
		notes = append(notes, fmt.Sprintf("the end-of-turn log could not be written (%v)", err))
	}
	if err := g.Snapshots.SetBlocks(root, snap, snap.Blocks); err != nil {
		notes = append(notes, fmt.Sprintf("the count of refusals could not be kept (%v)", err))
	}
	return a.withNote(strings.Join(notes, "; "))
}

// endTurn lets the turn end with answer a, the count of refusals back at
// zero; where a is not verified and Strict, it refuses the end instead: --strict refuses what could not be verified,
// whatever the reason (a check that failed or ran past its bound, a
// change the way back cannot take back).
func (g *Gate) endTurn(root *workspace.Root, snap *Snapshot, a Answer) Answer {
	if a.Unverified && g.Strict {
		why := strings.TrimPrefix(a.Message, "Anvil: ")
		return g.refuse(root, snap, Answer{Deny: true, Reason: "Anvil could not verify the session's changes (" + why + ") and --strict refuses what it cannot verify."})
	}
	if snap.Blocks != 0 {
		_ = g.Snapshots.SetBlocks(root, snap, 0)
	}
	return a
}

func (g *Gate) unverifiedTurn(ctx context.Context, why string) Answer {
	if ctx.Err() != nil {
		why = "the check did not finish within the hook's bound"
	}
	return notVerified("the session's changes were not verified (%s)", why)
}
