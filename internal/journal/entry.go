package journal

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// State is how far an entry got. An entry moves from [Prepared] to
// [Committed] or [RolledBack], and from [Committed] to [Undone].
type State string

// The states of an entry.
const (
	// Prepared: the entry is on disk and files may be partly written. Seen
	// under the lock, it marks a crash; [Journal.Recover] rolls it back.
	Prepared State = "prepared"
	// Committed: every file has its new content.
	Committed State = "committed"
	// RolledBack: every file is back to its old content (except those
	// listed in [Entry.Kept]).
	RolledBack State = "rolled-back"
	// Undone: a later entry reverted this one.
	Undone State = "undone"
)

func (s State) String() string { return string(s) }

const (
	manifestFile = "manifest.json"
	savedDir     = "files"
	// formatVersion is written to every manifest and bumped on any
	// incompatible change, so an older Anvil does not misread a newer entry.
	formatVersion = 1
)

// Entry is one journaled commit, as recorded in its manifest.
type Entry struct {
	Version int `json:"version"`
	// ID is the entry's sequence number in its workspace's journal
	// ("000012"). It comes from the entry's location, not the manifest.
	ID string `json:"-"`
	// Root is the workspace's absolute, symlink-free directory.
	Root string `json:"root"`
	// RootID is that directory's identity (device and inode) when the
	// commit was made: undo and recovery act only on the same directory,
	// never on another created since at the same path.
	RootID string `json:"root_id,omitempty"`
	// Time is when the commit started, from the journal's clock; undo
	// reverts entries in reverse order of it.
	Time    time.Time `json:"time"`
	Message string    `json:"message"`
	State   State     `json:"state"`
	Files   []File    `json:"files"`
	// Dirs are the directories the commit created for new files,
	// slash-separated, parents first. Rolling back or undoing removes them
	// again if they are empty.
	Dirs []string `json:"created_dirs,omitempty"`
	// Undoes is the ID of the entry this one reverts; it is set only on
	// entries written by [Journal.Undo].
	Undoes string `json:"undoes,omitempty"`
	// UndoneBy is the ID of the entry that reverted this one.
	UndoneBy string `json:"undone_by,omitempty"`
	// Kept lists the files recovery did not restore because they had been
	// changed after the crash. Their old content is still in the entry.
	Kept []string `json:"kept,omitempty"`
	// Late lists the files a program wrote to while the commit replaced
	// them (into the old file, already moved aside): what it wrote is the
	// saved content, so undo restores it.
	Late []string `json:"late,omitempty"`

	dir string // holds the manifest and the saved contents
}

// File is one file of an entry: its state before and after the commit.
type File struct {
	// Path is slash-separated and relative to the workspace root.
	Path string `json:"path"`
	// Existed reports whether the file existed before the commit.
	Existed bool `json:"existed"`
	// Mode is the file's permission bits before the commit.
	Mode fs.FileMode `json:"mode,omitempty"`
	// BeforeHash is the [changeset.Hash] of the content before the commit.
	BeforeHash string `json:"before_hash,omitempty"`
	// Saved is where that content is kept, relative to the entry's
	// directory.
	Saved string `json:"saved,omitempty"`
	// Deleted reports whether the commit removes the file.
	Deleted bool `json:"deleted,omitempty"`
	// AfterHash and AfterMode are the new content's hash and mode.
	AfterHash string      `json:"after_hash,omitempty"`
	AfterMode fs.FileMode `json:"after_mode,omitempty"`
}

// Paths returns the entry's files.
func (e *Entry) Paths() []string {
	out := make([]string, len(e.Files))
	for i, f := range e.Files {
		out[i] = f.Path
	}
	return out
}

// save writes the manifest atomically; writeFile also syncs the entry
// directory, so the new state is durable when save returns.
func (e *Entry) save() error {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(e.dir)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := writeFile(r, manifestFile, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("journal %s: write manifest: %w", e.ID, err)
	}
	return nil
}

// setState records a new state durably.
func (e *Entry) setState(s State) error {
	old := e.State
	e.State = s
	if err := e.save(); err != nil {
		e.State = old
		return err
	}
	return nil
}

// readSaved returns the content file f had before the commit, checked
// against its hash so that a damaged journal never overwrites user files.
func (e *Entry) readSaved(f File) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(f.Saved)))
	if err != nil {
		return nil, fmt.Errorf("journal %s: saved content of %s: %w", e.ID, f.Path, err)
	}
	if changeset.Hash(data) != f.BeforeHash {
		return nil, fmt.Errorf("journal %s: saved content of %s is damaged", e.ID, f.Path)
	}
	return data, nil
}

// loadEntry reads the entry in dir, whose ID is id, and checks it before
// anything acts on it: private to the user (see package state), of this
// format, for the workspace at root, naming only paths inside it that a
// change set may write, with saved contents inside the entry. A newer
// format is a [*FormatError].
func loadEntry(dir, id, root string) (*Entry, error) {
	mpath := filepath.Join(dir, manifestFile)
	for _, p := range []string{dir, mpath} {
		if err := state.CheckPrivate(p); err != nil {
			return nil, fmt.Errorf("journal entry %s: %w", id, err)
		}
	}
	data, err := os.ReadFile(mpath)
	if err != nil {
		return nil, err
	}
	e := &Entry{}
	if err := json.Unmarshal(data, e); err != nil {
		return nil, fmt.Errorf("journal entry %s: unreadable manifest: %w", id, err)
	}
	if e.Version != formatVersion {
		return nil, &FormatError{Entry: dir, Version: e.Version}
	}
	e.ID, e.dir = id, dir
	if err := e.validate(root); err != nil {
		return nil, fmt.Errorf("journal entry %s: %w", id, err)
	}
	return e, nil
}

// validate refuses an entry that could make a replay write anything but
// the workspace's own files.
func (e *Entry) validate(root string) error {
	if e.Root != root {
		return fmt.Errorf("is for %s, not %s", e.Root, root)
	}
	switch e.State {
	case Prepared, Committed, RolledBack, Undone:
	default:
		return fmt.Errorf("unknown state %q", e.State)
	}
	for _, f := range e.Files {
		if err := workspace.CheckWritable(f.Path); err != nil {
			return err
		}
		if f.Existed {
			if !savedName.MatchString(f.Saved) || len(f.BeforeHash) != 64 {
				return fmt.Errorf("%s: bad saved content reference %q", f.Path, f.Saved)
			}
		}
	}
	for _, d := range e.Dirs {
		if err := workspace.CheckWritable(d + "/x"); err != nil {
			return err
		}
	}
	return nil
}

var savedName = regexp.MustCompile(`^` + savedDir + `/[0-9]+(-late)?$`)

// FormatError is an entry written by a newer Anvil, which this one cannot
// read safely.
type FormatError struct {
	Entry   string
	Version int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("journal entry %s has format %d, newer than this Anvil reads (%d): use the Anvil that wrote it, or move the entry away if you are sure it is settled", e.Entry, e.Version, formatVersion)
}

// scan returns the workspace's entries, oldest first, and the problems
// with entries it could not use (unreadable, planted, newer): they are
// never acted on.
func (j *Journal) scan() (entries []*Entry, problems []error, err error) {
	seqs, err := os.ReadDir(j.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	for _, q := range seqs {
		if !q.IsDir() || !entryName.MatchString(q.Name()) {
			continue
		}
		e, err := loadEntry(filepath.Join(j.dir, q.Name()), q.Name(), j.root.Dir())
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// A crash during prepare, before the manifest existed: no user
			// file was touched yet.
		case err != nil:
			problems = append(problems, err)
		default:
			entries = append(entries, e)
		}
	}
	markUndone(entries)
	slices.SortFunc(entries, func(a, b *Entry) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.ID, b.ID))
	})
	return entries, problems, nil
}

var entryName = regexp.MustCompile(`^[0-9]{6,}$`)

// settled returns the workspace's entries, or an error when one awaits
// recovery ([ErrRecoveryNeeded]) or could not be read: it may be an
// interrupted commit, and going on could have its recovery roll files back
// over new work. Call it with the lock held, so that a Prepared entry means
// a crash.
func (j *Journal) settled() ([]*Entry, error) {
	entries, problems, err := j.scan()
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("journal of %s: %w", j.root.Dir(), errors.Join(problems...))
	}
	var ids []string
	for _, e := range entries {
		if e.State == Prepared {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) > 0 {
		return nil, fmt.Errorf("%w (%s)", ErrRecoveryNeeded, strings.Join(ids, ", "))
	}
	return entries, nil
}

// markUndone sets the state of entries reverted by a committed undo entry.
// Undo marks them itself, but a crash can fall between the two writes; the
// undo entry is the authority.
func markUndone(entries []*Entry) {
	byID := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	for _, e := range entries {
		if e.Undoes == "" || e.State != Committed {
			continue
		}
		if t := byID[e.Undoes]; t != nil && t.State == Committed {
			t.State, t.UndoneBy = Undone, e.ID
		}
	}
}
