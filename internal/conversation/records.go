package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// How a session file is written and read. A record is one JSON object on
// a line of its own, written whole with its newline in one write and then
// synced (encodeRecord, [Session.Append]). Every line read is checked: a
// line that is not a record (damaged, cut short, of a shape no record
// has) is reported as a [Problem] with its line number and skipped, and
// the records on either side of it are still read. Encoded records start
// with recordStart and the sequence occurs nowhere else (inside a JSON
// string a quote is always escaped, and no nested object has a "kind"
// key), so a record glued to the tail of one cut short (a writer killed
// mid-write, then another appending) is found where it starts.

// recordStart is how every encoded record begins: Kind is Record's first
// field.
var recordStart = []byte(`{"kind":`)

// encodeRecord is r as a line of a session file.
func encodeRecord(r Record) ([]byte, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Problem is a line of a session file that was not read as it stands.
type Problem struct {
	// Line numbers the line from 1.
	Line int
	// Reason says what is wrong and what was done about it.
	Reason string
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Reason) }

// readRecords reads a session file's contents. complete is the length of
// data up to its last newline: what follows is a last line cut short (the
// process was killed while writing it), which was never synced and is
// never read as a record; a writer truncates it before appending.
func readRecords(data []byte) (recs []Record, problems []Problem, complete int) {
	complete = bytes.LastIndexByte(data, '\n') + 1
	lines := bytes.Split(data[:complete], []byte{'\n'})
	lines = lines[:len(lines)-1] // after the last newline: the cut tail
	requests := map[int]int{}    // request number → the line recording it
	for i, line := range lines {
		n := i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		for _, piece := range pieces(line) {
			r, rest, err := decodeRecord(piece)
			if err != nil {
				problems = append(problems, Problem{n, err.Error() + "; skipped"})
				continue
			}
			if len(bytes.TrimSpace(rest)) > 0 {
				problems = append(problems, Problem{n, fmt.Sprintf("damaged bytes after a %s record (%s); ignored", r.Kind, excerpt(rest))})
			}
			if r.Kind == KindRequest {
				if first, ok := requests[r.N]; ok {
					problems = append(problems, Problem{n, fmt.Sprintf("request %d was recorded before, on line %d (two processes wrote the session at once); the records after it are told with this one", r.N, first)})
				} else {
					requests[r.N] = n
				}
			}
			recs = append(recs, r)
		}
	}
	if complete < len(data) {
		problems = append(problems, Problem{len(lines) + 1, "cut short (the process writing it was killed); dropped"})
	}
	return recs, problems, complete
}

// pieces splits a line at each record's start; bytes before the first
// start are a piece of their own (they are no record).
func pieces(line []byte) [][]byte {
	var out [][]byte
	for len(line) > 0 {
		next := bytes.Index(line[1:], recordStart)
		if next < 0 {
			out = append(out, line)
			break
		}
		out = append(out, line[:next+1])
		line = line[next+1:]
	}
	return out
}

// decodeRecord reads the record piece starts with and checks its shape;
// rest is what follows the record in piece (damage, when not blank).
func decodeRecord(piece []byte) (r Record, rest []byte, err error) {
	if !bytes.HasPrefix(piece, recordStart) {
		return r, nil, fmt.Errorf("not a record (%s)", excerpt(piece))
	}
	dec := json.NewDecoder(bytes.NewReader(piece))
	if err := dec.Decode(&r); err != nil {
		return r, nil, fmt.Errorf("a record cut short or damaged (%v)", err)
	}
	if err := r.check(); err != nil {
		return r, nil, err
	}
	return r, piece[dec.InputOffset():], nil
}

// check reports what a record lacks that its kind needs.
func (r Record) check() error {
	lacks := ""
	switch {
	case !knownKind(r.Kind):
		return fmt.Errorf("a record of unknown kind %q", r.Kind)
	case r.Time.IsZero():
		lacks = "its time"
	case r.Kind != KindMeta && r.N < 1:
		lacks = "its request number"
	case r.Kind == KindMeta && r.Workspace == "":
		lacks = "its workspace"
	case r.Kind == KindPlan && r.Plan == nil:
		lacks = "its plan"
	case (r.Kind == KindCommit || r.Kind == KindUndo) && r.Entry == "":
		lacks = "its journal entry"
	case r.Kind == KindCompaction && r.Text == "":
		lacks = "its summary"
	}
	if lacks != "" {
		return fmt.Errorf("a %s record without %s", r.Kind, lacks)
	}
	return nil
}

func knownKind(kind string) bool {
	switch kind {
	case KindMeta, KindRequest, KindPlan, KindCommit, KindTodo, KindDone, KindCompaction, KindUndo:
		return true
	}
	return false
}

// excerpt is the start of b, for a message.
func excerpt(b []byte) string {
	const most = 40
	if len(b) > most {
		return fmt.Sprintf("%q…", b[:most])
	}
	return fmt.Sprintf("%q", b)
}
