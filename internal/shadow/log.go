package shadow

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
)

// Log writes one JSON line per validation cycle (to the session's
// shadow.log), so a run can be audited afterwards: what was tried, what the
// servers said, and how long it took.
type Log struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLog returns a log writing to w.
func NewLog(w io.Writer) *Log { return &Log{w: w} }

type logRecord struct {
	Time        time.Time `json:"time"`
	Files       []string  `json:"files"`
	Attempt     int       `json:"attempt"`
	Verdict     Verdict   `json:"verdict"`
	New         int       `json:"new"`
	Resolved    int       `json:"resolved"`
	Preexisting int       `json:"preexisting"`
	First       []Diag    `json:"first,omitempty"` // the first new errors
	Unverified  []Skipped `json:"unverified,omitempty"`
	Servers     []string  `json:"servers"`
	// Via says, server by server, how it checked (file by file, a batch
	// run, TypeScript 7 in the project's compiler's place).
	Via       []string `json:"via,omitempty"`
	ElapsedMS int64    `json:"elapsed_ms"`
}

// Record appends res. Failures to write are ignored: the log is an audit
// trail, and losing a line must not fail a validation.
func (l *Log) Record(now time.Time, set *changeset.Set, attempt int, res *Result) {
	rec := logRecord{
		Time: now.UTC(), Files: set.Paths(), Attempt: attempt, Verdict: res.Verdict,
		New: len(res.New), Resolved: len(res.Resolved), Preexisting: len(res.Preexisting),
		Unverified: res.Unverified, ElapsedMS: res.ElapsedMS, Servers: []string{},
	}
	rec.First = res.New[:min(len(res.New), 5)]
	for _, s := range res.Servers {
		rec.Servers = append(rec.Servers, s.Name)
		rec.Via = append(rec.Via, s.Via)
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(line, '\n'))
}
