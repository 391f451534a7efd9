// Package session owns a run's session directory: where the plan, the shadow
// log, the commit journal and the transcript of one Anvil session live.
//
// The default base is /tmp/anvil; each session gets /tmp/anvil/<id>/. The
// base can be moved (config or ANVIL_SESSION_DIR) and is shared by sessions,
// so that recovery and undo can find the journals of earlier runs.
package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DefaultBase is where session directories go unless configured otherwise.
const DefaultBase = "/tmp/anvil"

// Base picks the directory sessions go under: an explicit override, then
// $ANVIL_SESSION_DIR, then the config's session_dir, then DefaultBase;
// from says which, for messages.
func Base(override string, getenv func(string) string, configured string) (base, from string) {
	switch {
	case override != "":
		return override, "set for this run"
	case getenv("ANVIL_SESSION_DIR") != "":
		return getenv("ANVIL_SESSION_DIR"), "ANVIL_SESSION_DIR"
	case configured != "":
		return configured, "session_dir in the config"
	}
	return DefaultBase, "default"
}

// Session is one run's directory.
type Session struct {
	ID  string
	Dir string
}

// New creates a new session directory under base (DefaultBase if empty).
// IDs sort by creation time.
func New(base string, now time.Time) (*Session, error) {
	if base == "" {
		base = DefaultBase
	}
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	id := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(rnd[:])
	dir := filepath.Join(base, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	}
	return &Session{ID: id, Dir: dir}, nil
}

// Path returns the path of name inside the session directory.
func (s *Session) Path(name string) string { return filepath.Join(s.Dir, name) }

// Well-known files of a session.
const (
	PlanFile       = "plan.json"
	ShadowLogFile  = "shadow.log"
	JournalDir     = "journal"
	TranscriptFile = "transcript.jsonl"
)
