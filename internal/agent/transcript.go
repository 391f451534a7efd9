package agent

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/llm"
)

// Transcript writes the conversation to the session directory, one JSON
// line per message, so a run can be read back (and turned into a replay
// script) afterwards.
type Transcript struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewTranscript returns a transcript writing to w.
func NewTranscript(w io.Writer, now func() time.Time) *Transcript {
	return &Transcript{w: w, now: now}
}

// Record appends one message. A nil Transcript records nothing; write
// errors are ignored, since losing the transcript must not stop the work.
func (t *Transcript) Record(agent string, m llm.Message) {
	if t == nil {
		return
	}
	line, err := json.Marshal(struct {
		Time  time.Time   `json:"ts"`
		Agent string      `json:"agent"`
		Role  llm.Role    `json:"role"`
		Body  []llm.Block `json:"content"`
	}{t.now().UTC(), agent, m.Role, m.Content})
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.Write(append(line, '\n'))
}
