package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// The end-of-turn log is where a user reads what the end-of-turn check
// refused and which turns it let end with errors. A client may end a turn
// its Stop hook still refuses (Claude Code forces the end after about 8
// refusals in a row) without telling anyone, and a warning on the
// client's screen scrolls away; the log keeps both. It lives beside the
// snapshots, in Anvil's private state directory, and is bounded: past
// maxStopLog it is moved to StopLogName+".1" (one generation kept).
const (
	StopLogName = "stop.log"
	maxStopLog  = 1 << 20
)

// StopLog returns the end-of-turn log's path.
func (s *Store) StopLog() string { return filepath.Join(s.dir, StopLogName) }

// record appends one entry, its first line stamped with the time, the
// workspace and the session, the rest of text indented beneath.
func (s *Store) record(root *workspace.Root, session, text string) error {
	if err := s.ensureDirs(); err != nil {
		return err
	}
	p := s.StopLog()
	if fi, err := os.Stat(p); err == nil && fi.Size() > maxStopLog {
		if err := os.Rename(p, p+".1"); err != nil {
			return err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s session %s: ", s.clock().UTC().Format("2006-01-02T15:04:05Z"), root.Dir(), session)
	b.WriteString(strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n    "))
	b.WriteString("\n")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
