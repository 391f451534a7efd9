package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// A session's snapshot is the tree as it was at the session's first hook
// call, which the end-of-turn check compares the disk with (wayback.go).
// It holds the contents of every text file the workspace's walk yields
// (not installed packages, not .git), of every source and configuration
// file the ignore rules leave out and of the ignored JSON a module
// imports (a generated file a checker reads all the same, under bounds
// of its own): a shell edit (sed -i, a code generator) is seen by no edit
// hook, so its file's earlier content must be kept before anyone knows it
// will change, and which files can change a verdict (an embedded file, an
// included fragment, data a module imports, a configuration another
// extends) is the gate's to say, not the snapshot's. It also knows what
// no change set can take back: a binary file or one over maxSnapFile by
// its hash, each link's target, each dependency directory's stamp (what a
// checker may read inside it: packages.go), the root's ignore files
// (snaptake.go). Contents are stored once by hash
// (blobs/SHA-256), so sessions over the same tree share them and a new
// session costs a read of the files and a manifest. The store is
// bounded: any file past maxSnapBytes or maxSnapFiles in all is left out
// and the snapshot marked partial (a file it does not know is then
// unverified at the end, not taken for a new one); manifests unused for
// snapTTL or past maxSessions (the least recently used first) go, with
// the blobs only they used, unless the client's record of the session
// (its transcript) is still there: a session the client can resume can
// still end a turn, so its snapshot stays. Everything lives in Anvil's
// private state directory (0700; files 0600), never in git, whose index
// is the user's.
const (
	maxSnapFile  = 2 << 20
	maxSnapBytes = 256 << 20
	maxSnapFiles = 50000
	// An ignored file (a generated source the ignore rules leave out) is
	// kept when a checker would read it by its kind, up to these bounds
	// of its own, so that a build output directory never crowds out the
	// project's files.
	maxIgnoredFiles = 5000
	maxIgnoredBytes = 64 << 20
	maxSessions     = 256
	snapTTL         = 14 * 24 * time.Hour
	// MaxBlocks is how many times in a row the end-of-turn check refuses
	// a session's turn before it lets it end with a warning (Claude Code
	// itself ends a turn after 8 blocks in a row).
	MaxBlocks = 5
)

// Store keeps sessions' snapshots under a directory.
type Store struct {
	dir   string
	clock func() time.Time
}

// NewStore returns the store in Anvil's state directory (state.Dir).
func NewStore(stateDir string) *Store {
	return &Store{dir: filepath.Join(stateDir, "hooks"), clock: time.Now}
}

// Snapshot is one session's manifest.
type Snapshot struct {
	Workspace string    `json:"workspace"`
	Session   string    `json:"session"`
	Created   time.Time `json:"created"`
	// Transcript is the client's record of the session (its hook input's
	// transcript_path): while it is there, the client can resume the
	// session and end another of its turns, so the snapshot stays.
	Transcript string `json:"transcript,omitempty"`
	// Files maps each kept file (workspace-relative) to its content's
	// SHA-256.
	Files map[string]string `json:"files"`
	// Opaque maps the files whose content the snapshot cannot hold (a
	// binary file, one over maxSnapFile) to their content's SHA-256: the
	// end of the turn cannot take them back, but it knows when they
	// changed (and says so) rather than not knowing them at all.
	Opaque map[string]string `json:"opaque,omitempty"`
	// OpaqueKept says the snapshot knows such files (snapshots taken
	// before it did left them out, and a binary file was then none of
	// the turn's business).
	OpaqueKept bool `json:"opaque_kept,omitempty"`
	// Links maps each symbolic link the walk met to its target, as the
	// link says it: a link the session makes, removes or points
	// elsewhere changes what the checkers read, and the way back cannot
	// make links, so the end names it as not verified. LinksKept says the
	// snapshot knows them (snapshots taken before did not).
	Links     map[string]string `json:"links,omitempty"`
	LinksKept bool              `json:"links_kept,omitempty"`
	// Installed maps each dependency directory (node_modules, a virtual
	// environment, vendor) to a stamp of what is installed there: the
	// way back restores a manifest or lock file, not the packages, so a
	// session that installs or upgrades one has its end named as not
	// verified. InstalledKept says the snapshot knows them;
	// InstalledWhole that each stamp covers the files inside the
	// packages (installedStamps), not the directory's top alone, as
	// snapshots taken before did.
	Installed      map[string]string `json:"installed,omitempty"`
	InstalledKept  bool              `json:"installed_kept,omitempty"`
	InstalledWhole bool              `json:"installed_whole,omitempty"`
	// Rules maps the ignore files that apply from the root and are not
	// the project's files (.git/info/exclude, .anvil/ignore) to their
	// content's hash ("" absent). The end of a turn walks with the ignore
	// rules as they are then: where the session changed them (these, or
	// a .gitignore), a file it made that they now leave out is unseen,
	// so the change is named as not verified. RulesKept says the
	// snapshot knows them.
	Rules     map[string]string `json:"rules,omitempty"`
	RulesKept bool              `json:"rules_kept,omitempty"`
	// Partial says files were left out by the bounds.
	Partial bool `json:"partial,omitempty"`
	// IgnoredKept says the snapshot holds the ignored source and
	// configuration files too (snapshots taken before it did hold none);
	// IgnoredPartial that the ignored files' own bounds left some out.
	IgnoredKept    bool `json:"ignored_kept,omitempty"`
	IgnoredPartial bool `json:"ignored_partial,omitempty"`
	// Late names the files kept at their first edit without evidence
	// that the session had not changed them already (the snapshot did
	// not hold them, and they changed after the session began): the end
	// of the turn checks the way back to that content, and says the
	// files are not verified.
	Late map[string]bool `json:"late,omitempty"`
	// PackageStarts are the files in a dependency directory an edit hook
	// kept, with their stamp lines (size and modification time) as at
	// the first edit ("" missing): the way back takes their content back,
	// so the end's stamp of the directory takes them as they were then,
	// and an edit tool's edit of a package is not named as an install.
	PackageStarts map[string]string `json:"package_starts,omitempty"`
	// Blocks counts the end-of-turn refusals in a row.
	Blocks int `json:"blocks,omitempty"`
}

func (s *Store) manifest(root *workspace.Root, session string) string {
	sum := sha256.Sum256([]byte(root.Dir() + "\x00" + session))
	return filepath.Join(s.dir, "sessions", hex.EncodeToString(sum[:16])+".json")
}

func (s *Store) blob(hash string) string { return filepath.Join(s.dir, "blobs", hash) }

func (s *Store) ensureDirs() error {
	for _, d := range []string{s.dir, filepath.Join(s.dir, "sessions"), filepath.Join(s.dir, "blobs")} {
		if err := state.EnsureDir(d); err != nil {
			return err
		}
	}
	return nil
}

// Load returns the session's snapshot, or nil if it has none. Each load
// marks the session as in use (its manifest's time), so that pruning
// goes by last use: a session whose agent is still working is the last
// to go.
//
// The manifest is the end of the turn's baseline: one another user could
// have written (a shared or planted state directory, a manifest that is a
// link or writable by others) would let them pass what the session broke,
// so it is refused (state.UnsafeError), never read.
func (s *Store) Load(root *workspace.Root, session string) (*Snapshot, error) {
	// Reading makes nothing: a store not made yet holds no snapshot.
	for _, d := range []string{s.dir, filepath.Join(s.dir, "sessions")} {
		if err := state.CheckPrivate(d); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	}
	path := s.manifest(root, session)
	if err := state.CheckPrivate(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("the session's snapshot is damaged: %w", err)
	}
	if snap.Files == nil {
		snap.Files = map[string]string{}
	}
	now := s.clock()
	_ = os.Chtimes(path, now, now) // best effort: only pruning's order depends on it
	return &snap, nil
}

// Ensure returns the session's snapshot, taking it now if it has none.
// Two hook calls taking it at once agree on one (the first written).
// transcript is the client's record of the session, if it names one.
func (s *Store) Ensure(ctx context.Context, root *workspace.Root, session, transcript string) (*Snapshot, error) {
	if snap, err := s.Load(root, session); snap != nil || err != nil {
		if err == nil && snap.Transcript == "" && filepath.IsAbs(transcript) {
			err = s.update(root, snap, func(cur *Snapshot) bool {
				if cur.Transcript != "" {
					return false
				}
				cur.Transcript = transcript
				return true
			})
		}
		return snap, err
	}
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(transcript) {
		transcript = ""
	}
	snap, err := s.take(ctx, root, session, transcript)
	if err != nil {
		return nil, fmt.Errorf("taking the session's snapshot: %w", err)
	}
	won, err := s.create(root, snap)
	if err != nil {
		return nil, err
	}
	if won {
		s.prune(root, session)
	}
	return s.Load(root, session)
}

// isSource reports whether a file of this name is one a language server
// checks, or a configuration file one reads.
func isSource(rel string) bool {
	return servers.LanguageOf(rel) != "" || servers.ConfigLanguage(rel) != ""
}

// keep stores data by its hash.
func (s *Store) keep(data []byte) (string, error) {
	hash := changeset.Hash(data)
	p := s.blob(hash)
	if _, err := os.Stat(p); err == nil {
		// In use again: a sweep spares a blob touched within its bound,
		// while this snapshot's manifest is not yet written. A blob swept
		// between the stat and the touch is written again.
		now := s.clock()
		if os.Chtimes(p, now, now) == nil {
			return hash, nil
		}
	}
	return hash, writeAtomic(p, data, false)
}

// Content returns a kept file's content.
func (s *Store) Content(hash string) ([]byte, error) {
	data, err := os.ReadFile(s.blob(hash))
	if err != nil {
		return nil, fmt.Errorf("the snapshot's copy is gone: %w", err)
	}
	if changeset.Hash(data) != hash {
		return nil, errors.New("the snapshot's copy is damaged")
	}
	return data, nil
}

// create writes a new manifest unless one is there; it reports whether
// this one was written.
func (s *Store) create(root *workspace.Root, snap *Snapshot) (bool, error) {
	data, err := json.Marshal(snap)
	if err != nil {
		return false, err
	}
	p := s.manifest(root, snap.Session)
	err = writeAtomic(p, data, true)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

// save rewrites the session's manifest whole.
func (s *Store) save(root *workspace.Root, snap *Snapshot) error {
	data, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	return writeAtomic(s.manifest(root, snap.Session), data, false)
}

// update changes the session's manifest by fn under its lock, on the
// manifest as it is on disk, not as this hook process loaded it: hooks of
// one session run at once (parallel subagents, an end of the turn that
// checks for seconds while an edit is kept), and a write of a copy loaded
// before another's would drop what the other kept. fn reports whether it
// changed anything; snap becomes the manifest as written.
func (s *Store) update(root *workspace.Root, snap *Snapshot, fn func(cur *Snapshot) bool) error {
	lock := flock.New(s.manifest(root, snap.Session) + ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), pendingLockWait)
	defer cancel()
	if ok, err := lock.TryLockContext(ctx, 20*time.Millisecond); !ok || err != nil {
		return fmt.Errorf("another hook of the session held its snapshot for %s: %v", pendingLockWait, err)
	}
	defer lock.Unlock()
	cur, err := s.Load(root, snap.Session)
	if err != nil {
		return err
	}
	if cur == nil {
		// Gone meanwhile (pruned, removed by hand): this copy is the
		// best there is, and written it is the session's baseline again.
		c := *snap
		cur = &c
	}
	if !fn(cur) {
		*snap = *cur
		return nil
	}
	if err := s.save(root, cur); err != nil {
		return err
	}
	*snap = *cur
	return nil
}

// SetBlocks keeps the count of the end-of-turn refusals in a row.
func (s *Store) SetBlocks(root *workspace.Root, snap *Snapshot, n int) error {
	return s.update(root, snap, func(cur *Snapshot) bool {
		cur.Blocks = n
		return true
	})
}

// Record keeps a file's content as the session's start saw it, if the
// snapshot does not know the file yet (one the walk left out): called
// before an edit tool writes it.
func (s *Store) Record(root *workspace.Root, snap *Snapshot, rel string, data []byte, exists bool) error {
	if _, ok := snap.Files[rel]; ok || !s.couldNotKnow(root, snap, rel, data, exists) {
		return nil
	}
	hash, err := s.keepIfExists(data, exists)
	if err != nil {
		return err
	}
	// A file missing at its first edit is kept as missing at the start
	// without evidence: had the session deleted it before, the way back
	// (its deletion) would take the edit's errors for the session's, and
	// refuse, never pass. (A folder's time is no evidence: a client's
	// edit through a temporary file and a rename moves it.)
	late := exists && !unchangedSince(root, rel, snap.Created)
	inPackages := root.InDependencyDir(rel)
	start := packageStart(root, rel)
	return s.update(root, snap, func(cur *Snapshot) bool {
		if _, ok := cur.Files[rel]; ok {
			return false // another hook of the session kept it first
		}
		if inPackages {
			if cur.PackageStarts == nil {
				cur.PackageStarts = map[string]string{}
			}
			cur.PackageStarts[rel] = start
		}
		if was, ok := cur.Opaque[rel]; !(ok && was == hash) && late {
			if cur.Late == nil {
				cur.Late = map[string]bool{}
			}
			cur.Late[rel] = true
		}
		cur.Files[rel] = hash
		delete(cur.Opaque, rel)
		return true
	})
}

// unchangedSince reports whether the disk shows that the file rel is as
// it was at start: it was last modified before then.
func unchangedSince(root *workspace.Root, rel string, start time.Time) bool {
	info, err := os.Lstat(root.Abs(rel))
	return err == nil && info.ModTime().Before(start)
}

// couldNotKnow reports whether a file the snapshot does not hold may
// have been there at the session's start all the same: the snapshot
// left it out (its bounds, an ignored file of a kind it does not keep,
// a snapshot taken before it kept ignored or opaque files), or knows it
// by a hash its content now still has. Otherwise the file was made
// during the session, and its content now is the session's work, not
// its start: kept as the start, the way back would restore it instead
// of deleting it, and the errors it brought in would pass.
func (s *Store) couldNotKnow(root *workspace.Root, snap *Snapshot, rel string, data []byte, exists bool) bool {
	if snap.Partial || root.InDependencyDir(rel) || workspace.Protected(rel) {
		return true // past the bounds, or never walked
	}
	if was, ok := snap.Opaque[rel]; ok && exists {
		return was == changeset.Hash(data)
	}
	if exists && !snap.OpaqueKept {
		return true
	}
	if root.Excluded(rel, false) {
		// A file of a kind the snapshot keeps was kept, or known
		// missing, unless the ignored files' bounds left it out.
		return !snap.IgnoredKept || snap.IgnoredPartial || !isSource(rel)
	}
	return false
}

// keepIfExists keeps data and returns its hash; "" for a file that is
// not there (exists false), as manifests name one.
func (s *Store) keepIfExists(data []byte, exists bool) (string, error) {
	if !exists {
		return "", nil
	}
	return s.keep(data)
}

// writeAtomic writes a private file through a temporary one; exclusive
// fails with fs.ErrExist when the file is there.
func writeAtomic(path string, data []byte, exclusive bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if exclusive {
		return os.Link(tmp.Name(), path)
	}
	return os.Rename(tmp.Name(), path)
}
