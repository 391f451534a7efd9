package ui

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/event"
)

// SchemaVersion is the version of the NDJSON event schema; it changes
// whenever an event's fields change meaning or go away.
const SchemaVersion = 1

// JSONL writes each event as one JSON object per line, with "type" and
// "ts" (RFC 3339, UTC) beside the event's own fields. The first line, the
// session event, also carries "schema".
type JSONL struct {
	mu  sync.Mutex
	enc *json.Encoder
	now func() time.Time
}

// NewJSONL returns a JSON renderer writing to w.
func NewJSONL(w io.Writer, now func() time.Time) *JSONL {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSONL{enc: enc, now: now}
}

// Emit writes e. Streaming deltas are included: consumers that only want
// whole messages skip "message_delta".
func (j *JSONL) Emit(e event.Event) {
	raw, err := json.Marshal(e)
	if err != nil {
		return
	}
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return
	}
	fields["type"] = e.Type()
	fields["ts"] = j.now().UTC().Format(time.RFC3339Nano)
	if e.Type() == "session" {
		fields["schema"] = SchemaVersion
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.enc.Encode(fields)
}
