package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// One process writes a session at a time. A writer holds a lock on the
// session's lock file (<id>.lock, beside <id>.jsonl) from the moment it
// opens the session until it closes it; the kernel drops the lock when the
// process dies, so a request without an end whose session nobody holds was
// interrupted, and one whose session is held is still running. The holder
// writes who it is into the lock file, for the next writer's message.
// Readers (the list, /diff, /plan) take no lock and change nothing.

// Holder is the process that has a session open for writing.
type Holder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

func (h Holder) String() string {
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Command != "" {
		s += ", " + h.Command
	}
	if !h.Since.IsZero() {
		s += ", since " + h.Since.Local().Format("2006-01-02 15:04:05")
	}
	return s
}

// BusyError says another process has the session open for writing.
type BusyError struct {
	ID     string
	Holder Holder
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("session %s is open in another process (%s), and one process writes a session at a time: wait for it to end and run this again, or start a new session (a request without --continue or --resume)", e.ID, e.Holder)
}

// ErrReadOnly is returned when writing to a session opened to read.
var ErrReadOnly = errors.New("the session was opened to read, not to write")

// lockPath is the lock file of the session file at path.
func lockPath(sessionPath string) string {
	return strings.TrimSuffix(sessionPath, ".jsonl") + ".lock"
}

// lockSession takes the lock of the session at path and records the
// holder; a held lock is a [*BusyError] naming its holder. The returned
// file is the lock: closing it releases it.
func lockSession(id, path string, now time.Time) (*os.File, error) {
	f, err := os.OpenFile(lockPath(path), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("session %s: locking it: %w", id, err)
	}
	if !ok {
		h := readHolder(f)
		f.Close()
		return nil, &BusyError{ID: id, Holder: h}
	}
	data, _ := json.Marshal(Holder{PID: os.Getpid(), Command: commandLine(), Since: now.UTC()})
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(data, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return f, nil
}

// holderOf returns the process holding the session at path, if one does.
func holderOf(path string) (Holder, bool) {
	f, err := os.OpenFile(lockPath(path), os.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return Holder{}, false // never locked, or not readable: no writer
	}
	defer f.Close()
	if !isLocked(f) {
		return Holder{}, false
	}
	return readHolder(f), true
}

// readHolder reads who holds the lock f is open on; a holder still
// writing it reads as what it has written (a pid of 0 at worst).
func readHolder(f *os.File) Holder {
	var h Holder
	data, _ := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	_ = json.Unmarshal(data, &h)
	return h
}

// commandLine is this process's command, for a holder's message.
func commandLine() string {
	s := strings.Join(os.Args, " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
