// Package conversation keeps Anvil's sessions: the conversation of
// requests a user has with Anvil in one workspace, which they continue
// later (anvil --continue, --resume, the TUI). A session is an
// append-only file of records (each request, its approved plan, its
// commits, its todo list, how it ended), written and synced as they
// happen, so a kill -9 loses at most the turn in flight and the next run
// can say what was interrupted. One process writes a session at a time
// (lock.go); every line is checked as it is read (records.go).
//
// Sessions live in the private state directory, per workspace, and belong
// to the workspace's directory, not its path: a directory re-created at
// the same path (a fresh clone, another worktree) does not continue the
// old one's session.
package conversation

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Record kinds.
const (
	KindMeta       = "meta"       // the session's start: workspace, directory, model
	KindRequest    = "request"    // the user asked something
	KindPlan       = "plan"       // the plan approved for the request
	KindCommit     = "commit"     // a change set written (a journal entry)
	KindTodo       = "todo"       // the todo list changed
	KindDone       = "done"       // the request ended
	KindCompaction = "compaction" // the history before it was summarized (/compact)
	KindUndo       = "undo"       // a commit of the session undone (/undo)
)

// Record is one line of a session file.
type Record struct {
	Kind string    `json:"kind"`
	Time time.Time `json:"time"`
	// N numbers the request a record belongs to, from 1.
	N int `json:"n,omitempty"`

	// meta
	Workspace string `json:"workspace,omitempty"`
	RootID    string `json:"root_id,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`

	// request: the text; done: the outcome's message; compaction: the
	// summary of requests 1 to N.
	Text string `json:"text,omitempty"`
	// plan
	Plan *plan.Plan `json:"plan,omitempty"`
	// commit
	Entry string   `json:"entry,omitempty"`
	Files []string `json:"files,omitempty"`
	Diff  string   `json:"diff,omitempty"`
	// todo
	Todo []event.TodoItem `json:"todo,omitempty"`
	// done
	Success bool `json:"success,omitempty"`
}

// maxDiff bounds a commit's diff as recorded (the journal has it all).
const maxDiff = 64 << 10

// Store holds the sessions of one workspace.
type Store struct {
	dir  string
	root *workspace.Root
	now  func() time.Time
}

// Open returns the store of root's sessions under stateDir (created,
// private to the user).
func Open(stateDir string, root *workspace.Root, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	sum := sha256.Sum256([]byte(root.Dir()))
	dir := filepath.Join(stateDir, "sessions", hex.EncodeToString(sum[:8]))
	if err := state.EnsureDir(dir); err != nil {
		return nil, fmt.Errorf("the sessions directory: %w", err)
	}
	return &Store{dir: dir, root: root, now: now}, nil
}

// Session is one conversation, open for appending (holding its lock) or
// to read.
type Session struct {
	ID string

	mu   sync.Mutex
	path string
	f    *os.File
	// lock is the session's lock, held while it is open for appending;
	// nil when it is open to read.
	lock *os.File
	// holder is the process holding the session, when it is open to read
	// while another has it open for appending.
	holder *Holder
	// cutTail is where a last line cut short starts, or -1.
	cutTail int64
	records []Record
	// problems are the lines of the file not read as records.
	problems []Problem
	now      func() time.Time
}

// Problems are the lines of the session's file that were not read as
// they stand (damaged, cut short, of no record's shape), each with its
// line number and what was done: what a user is told on opening it.
func (s *Session) Problems() []Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Problem(nil), s.problems...)
}

// New starts a session.
func (s *Store) New(provider, model string) (*Session, error) {
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	id := s.now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(rnd[:])
	sess, err := s.open(id, os.O_CREATE|os.O_EXCL, true)
	if err != nil {
		return nil, err
	}
	err = sess.Append(Record{Kind: KindMeta, Workspace: s.root.Dir(), RootID: s.root.ID().String(), Provider: provider, Model: model})
	return sess, err
}

// NotFoundError says there is no session to continue, and why.
type NotFoundError struct{ Reason string }

func (e *NotFoundError) Error() string { return e.Reason }

// Resume opens session id of this workspace for appending. Another
// process having it open is a [*BusyError].
func (s *Store) Resume(id string) (*Session, error) { return s.resume(id, true) }

// Look opens session id of this workspace to read, or its latest session
// when id is "": it takes no lock and changes nothing (/diff, /plan).
func (s *Store) Look(id string) (*Session, error) {
	if id == "" {
		return s.latest(false)
	}
	return s.resume(id, false)
}

func (s *Store) resume(id string, write bool) (*Session, error) {
	if strings.ContainsAny(id, "/\\") || id == "" || strings.HasPrefix(id, ".") {
		return nil, &NotFoundError{Reason: fmt.Sprintf("%q is not a session id", id)}
	}
	if _, err := os.Stat(filepath.Join(s.dir, id+".jsonl")); err != nil {
		return nil, &NotFoundError{Reason: fmt.Sprintf("no session %s in this workspace (anvil --resume lists them)", id)}
	}
	sess, err := s.open(id, 0, write)
	if err != nil {
		return nil, err
	}
	if err := s.owns(sess); err != nil {
		sess.Close()
		return nil, err
	}
	if write {
		if err := sess.dropCutTail(); err != nil {
			sess.Close()
			return nil, err
		}
	}
	return sess, nil
}

// Latest opens the workspace's most recent session for appending: the
// last one started in this very directory.
func (s *Store) Latest() (*Session, error) { return s.latest(true) }

func (s *Store) latest(write bool) (*Session, error) {
	infos, err := s.List()
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		reason := "no session to continue in " + s.root.Dir()
		if n := s.foreign(); n > 0 {
			// They are not continued here (Resume refuses them too): their
			// plans and commits are another directory's.
			reason += fmt.Sprintf(" (%d %s to a directory that was at this path before, and %s not continued here: a request without --continue starts a new session)", n, plural(n, "session belongs", "sessions belong"), plural(n, "is", "are"))
		}
		return nil, &NotFoundError{Reason: reason}
	}
	return s.resume(infos[0].ID, write)
}

// owns checks that sess was started in this directory, not another one
// that was at the same path.
func (s *Store) owns(sess *Session) error {
	meta := sess.Meta()
	if meta.RootID != "" && meta.RootID != s.root.ID().String() {
		return fmt.Errorf("session %s was started in another directory that was at %s (a clone or worktree since replaced); its plans and commits are not this directory's", sess.ID, s.root.Dir())
	}
	return nil
}

// open opens session id: for appending (write: its lock taken first, so
// that what is read is all there is), or to read.
func (s *Store) open(id string, flags int, write bool) (*Session, error) {
	path := filepath.Join(s.dir, id+".jsonl")
	sess := &Session{ID: id, path: path, now: s.now, cutTail: -1}
	mode := os.O_RDONLY
	if write {
		lock, err := lockSession(id, path, s.now())
		if err != nil {
			return nil, err
		}
		sess.lock = lock
		mode = os.O_RDWR | os.O_APPEND | flags
	}
	f, err := os.OpenFile(path, mode|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	sess.f = f
	data, err := io.ReadAll(f)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	var complete int
	sess.records, sess.problems, complete = readRecords(data)
	if complete < len(data) {
		sess.cutTail = int64(complete)
	}
	if !write {
		if h, ok := holderOf(path); ok {
			sess.holder = &h
		}
	}
	return sess, nil
}

// dropCutTail truncates a last line the process was killed while writing
// (never read as a record), so that the next record starts a line of its
// own. Only a writer does it, once the session is known to be this
// directory's.
func (s *Session) dropCutTail() error {
	if s.cutTail < 0 {
		return nil
	}
	if err := s.f.Truncate(s.cutTail); err != nil {
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	s.cutTail = -1
	return nil
}

// Append writes r, synced: it survives the process.
func (s *Session) Append(r Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return fmt.Errorf("session %s: %w", s.ID, ErrReadOnly)
	}
	if r.Time.IsZero() {
		r.Time = s.now().UTC()
	}
	if len(r.Diff) > maxDiff {
		r.Diff = r.Diff[:maxDiff] + "\n[diff cut; the journal entry has all of it]\n"
	}
	data, err := encodeRecord(r)
	if err != nil {
		return err
	}
	if _, err := s.f.Write(data); err != nil {
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	s.records = append(s.records, r)
	return nil
}

// Close closes the session file and releases its lock.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.f != nil {
		errs = append(errs, s.f.Close())
	}
	if s.lock != nil {
		errs = append(errs, s.lock.Close())
	}
	return errors.Join(errs...)
}

// Holder is the process that has the session open for appending, when
// the session was opened to read while one has.
func (s *Session) Holder() (Holder, bool) {
	if s.holder == nil {
		return Holder{}, false
	}
	return *s.holder, true
}

// Records returns a copy of the session's records.
func (s *Session) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.records...)
}

// Meta returns the session's meta record.
func (s *Session) Meta() Record {
	for _, r := range s.Records() {
		if r.Kind == KindMeta {
			return r
		}
	}
	return Record{}
}

// Requests counts the requests made so far.
func (s *Session) Requests() int {
	n := 0
	for _, r := range s.Records() {
		if r.Kind == KindRequest {
			n = max(n, r.N)
		}
	}
	return n
}

// Begin records a new request and returns its number.
func (s *Session) Begin(text string) (int, error) {
	n := s.Requests() + 1
	return n, s.Append(Record{Kind: KindRequest, N: n, Text: text})
}

// Interrupted returns the last request if it never ended (the process
// was killed, or lost its terminal), with its number: what the next
// request is told.
func (s *Session) Interrupted() (int, string, bool) {
	turns, _, _ := s.turns()
	if len(turns) == 0 {
		return 0, "", false
	}
	last := turns[len(turns)-1]
	if !last.interrupted() {
		return 0, "", false
	}
	return last.n, last.request, true
}

// Info describes a session for a list.
type Info struct {
	ID           string    `json:"id"`
	Started      time.Time `json:"started"`
	Updated      time.Time `json:"updated"`
	FirstRequest string    `json:"first_request"`
	Requests     int       `json:"requests"`
	FilesChanged []string  `json:"files_changed"`
	Interrupted  bool      `json:"interrupted"`
	// OpenBy is the process that has the session open for appending, if
	// one has (its last request may be running).
	OpenBy *Holder `json:"open_by,omitempty"`
	// Problems are the lines of the file not read as they stand.
	Problems []string `json:"problems,omitempty"`
}

// List describes the sessions started in this directory, the most
// recently used first. It only reads: no session file is changed, and no
// lock taken.
func (s *Store) List() ([]Info, error) {
	paths, err := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		sess, err := s.open(id, 0, false)
		if err != nil {
			continue
		}
		info := sess.info()
		owned := s.owns(sess) == nil
		sess.Close()
		if owned {
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// foreign counts the sessions of directories that were at this path.
func (s *Store) foreign() int {
	paths, _ := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	n := 0
	for _, p := range paths {
		sess, err := s.open(strings.TrimSuffix(filepath.Base(p), ".jsonl"), 0, false)
		if err != nil {
			continue
		}
		if s.owns(sess) != nil {
			n++
		}
		sess.Close()
	}
	return n
}

func (s *Session) info() Info {
	info := Info{ID: s.ID}
	files := map[string]bool{}
	for _, r := range s.Records() {
		if info.Started.IsZero() {
			info.Started = r.Time
		}
		info.Updated = r.Time
		switch r.Kind {
		case KindRequest:
			info.Requests = max(info.Requests, r.N)
			if info.FirstRequest == "" {
				info.FirstRequest = r.Text
			}
		case KindCommit:
			for _, f := range r.Files {
				files[f] = true
			}
		}
	}
	for f := range files {
		info.FilesChanged = append(info.FilesChanged, f)
	}
	sort.Strings(info.FilesChanged)
	_, _, info.Interrupted = s.Interrupted()
	info.OpenBy = s.holder
	for _, p := range s.Problems() {
		info.Problems = append(info.Problems, p.String())
	}
	return info
}

// idPattern is what New's ids look like: 20261201-091500-a1b2c3.
var idPattern = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`)

// IsID reports whether s looks like a session id.
func IsID(s string) bool { return idPattern.MatchString(s) }

// ErrNoSession is returned by operations that need a session when there is
// none.
var ErrNoSession = errors.New("no session")

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
