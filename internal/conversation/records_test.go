package conversation

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// Every line of a session file is checked as it is read: a line that is
// no record is reported with its line number and skipped, the records
// around it are read, and the session goes on.
func TestEveryRecordIsChecked(t *testing.T) {
	const (
		replace = iota // the bad line replaces request 2's record (line 6)
		glue           // the bad bytes, without a newline, precede it
		tail           // the bad bytes end the file, without a newline
	)
	for _, tc := range []struct {
		name string
		bad  string
		how  int
		want string
	}{
		{"damaged in the middle", `{"kind":"request","n":2,"ti#e":"`, replace, "line 6: a record cut short or damaged"},
		{"not JSON", "\x00\x01garbage", replace, "line 6: not a record"},
		{"an array", "[1,2]", replace, "line 6: not a record"},
		{"without a request number", `{"kind":"request","time":"2026-12-01T10:00:00Z","text":"second"}`, replace, "line 6: a request record without its request number; skipped"},
		{"of unknown kind", `{"kind":"telemetry","n":2,"time":"2026-12-01T10:00:00Z"}`, replace, `line 6: a record of unknown kind "telemetry"; skipped`},
		{"a commit without its entry", `{"kind":"commit","n":2,"time":"2026-12-01T10:00:00Z"}`, replace, "line 6: a commit record without its journal entry; skipped"},
		{"cut, another record written after it", `{"kind":"commit","n":1,"entr`, glue, "line 6: a record cut short or damaged"},
		{"cut at the end", `{"kind":"commit","n":3,"entr`, tail, "line 14: cut short (the process writing it was killed); dropped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := rootAt(t, testfs.Tree(t, map[string]string{"a.ts": "x\n"}))
			store, err := Open(t.TempDir(), root, nil)
			if err != nil {
				t.Fatal(err)
			}
			sess, err := store.New("p", "m")
			if err != nil {
				t.Fatal(err)
			}
			for i, what := range []string{"first", "second", "third"} {
				addRequest(t, sess, i+1, what, "+"+what+"\n") // 4 lines each, from line 2
			}
			path := sess.path
			sess.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			switch tc.how {
			case replace:
				lines[5] = tc.bad + "\n"
			case glue:
				lines[5] = tc.bad + lines[5]
			case tail:
				lines = append(lines, tc.bad)
			}
			if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
				t.Fatal(err)
			}

			again, err := store.Resume(sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			var problems []string
			for _, p := range again.Problems() {
				problems = append(problems, p.String())
			}
			if len(problems) != 1 || !strings.HasPrefix(problems[0], tc.want) {
				t.Errorf("problems %q, want one starting %q", problems, tc.want)
			}
			h := again.History(0)
			for _, want := range []string{"request number 1: first", "request number 3: third", "Outcome: done"} {
				if !strings.Contains(h, want) {
					t.Errorf("the history lacks %q:\n%s", want, h)
				}
			}
			if lost := tc.how == replace; strings.Contains(h, "request number 2: second") == lost {
				t.Errorf("request 2 read: %v, want %v:\n%s", !lost, !lost, h)
			}
			if n, err := again.Begin("fourth"); n != 4 || err != nil {
				t.Fatalf("the next request: %d %v", n, err)
			}
			again.Close()
			list, err := store.List()
			// The opener that appended dropped a cut tail: gone for the next.
			if stays := map[bool]int{true: 0, false: 1}[tc.how == tail]; err != nil || len(list) != 1 || list[0].Requests != 4 || len(list[0].Problems) != stays {
				t.Errorf("list: %+v %v", list, err)
			}
		})
	}
}

// fuzzRecords are two writers' records: each request's text and plan
// hold what a record's framing is made of (quotes, braces, newlines, the
// start of a record).
func fuzzRecords() (a, b []Record) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tricky := "a \"quoted\" {\"kind\":\"done\"}\nline\\ two\t\u2028 é"
	writer := func(name string, first int) []Record {
		var out []Record
		for i := range 4 {
			n := first + 2*i
			at = at.Add(time.Second)
			out = append(out,
				Record{Kind: KindRequest, Time: at, N: n, Text: fmt.Sprintf("%s request %d: %s", name, n, tricky)},
				Record{Kind: KindPlan, Time: at, N: n, Plan: &plan.Plan{Goal: name + " goal " + tricky, Steps: []string{"a", "b"}, FilesToModify: []string{"a.ts"}}},
				Record{Kind: KindCommit, Time: at, N: n, Entry: fmt.Sprintf("%s-e%d", name, n), Files: []string{"a.ts"}, Diff: "-x\n+" + tricky + "\n"},
				Record{Kind: KindTodo, Time: at, N: n, Todo: []event.TodoItem{{Text: tricky, Status: "done"}}},
				Record{Kind: KindDone, Time: at, N: n, Success: i%2 == 0, Text: name + " done"},
			)
		}
		return out
	}
	meta := Record{Kind: KindMeta, Time: at, Workspace: "/w", RootID: "1:2", Provider: "p", Model: "m"}
	return append([]Record{meta}, writer("A", 1)...), writer("B", 2)
}

// The session reader never panics and never loses a record that was
// synced: whatever two writers interleaved, however a kill cut a record
// (the other writer appending after it), whatever bytes were damaged and
// wherever the file was truncated, every record written whole whose bytes
// are intact is read, in order. A file without damage reads with no
// problem.
func FuzzSessionReader(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 0, 1}, []byte{}, uint16(0xffff))
	f.Add([]byte{0, 1, 2, 77, 1, 1, 0, 1}, []byte{}, uint16(0xffff))
	f.Add([]byte{1, 0, 1, 0, 0, 0}, []byte{0, 40, '\n', 0, 90, '{'}, uint16(0xffff))
	f.Add([]byte{0, 0, 0, 3, 9, 0, 0, 1, 1, 1}, []byte{1, 2, 'x'}, uint16(700))
	f.Add([]byte{2, 200, 1, 1, 1, 1, 1, 1}, []byte{0, 10, '}', 0, 11, '"'}, uint16(3000))
	f.Fuzz(func(t *testing.T, order, damage []byte, truncate uint16) {
		a, b := fuzzRecords()
		queues := [2][]Record{a, b}
		var file []byte
		type span struct {
			start, end int
			line       []byte
		}
		var whole []span
		cut := false
		// order: bit 0 picks the writer; (byte>>1)%8 == 1 kills it while
		// writing this record, at the next byte's offset into it.
		for i := 0; i < len(order); i++ {
			w := order[i] & 1
			if len(queues[w]) == 0 {
				continue
			}
			line, err := encodeRecord(queues[w][0])
			if err != nil {
				t.Fatal(err)
			}
			queues[w] = queues[w][1:]
			if (order[i]>>1)%8 == 1 && i+1 < len(order) {
				i++
				file = append(file, line[:int(order[i])%len(line)]...)
				queues[w] = nil
				cut = true
				continue
			}
			whole = append(whole, span{len(file), len(file) + len(line), line})
			file = append(file, line...)
		}
		clean := bytes.Clone(file)
		// damage: triples (offset high, offset low, byte) overwrite a byte.
		for i := 0; i+2 < len(damage) && len(file) > 0; i += 3 {
			off := (int(damage[i])<<8 | int(damage[i+1])) % len(file)
			file[off] = damage[i+2]
		}
		if int(truncate) < len(file) {
			file = file[:truncate]
		}

		recs, problems, complete := readRecords(file)
		if complete > len(file) {
			t.Fatalf("complete %d past the end %d", complete, len(file))
		}
		var read [][]byte
		for _, r := range recs {
			line, err := encodeRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			read = append(read, line)
		}
		next := 0
		for _, s := range whole {
			if s.end > len(file) || !bytes.Equal(file[s.start:s.end], s.line) {
				continue // damaged or truncated: not intact
			}
			for next < len(read) && !bytes.Equal(read[next], s.line) {
				next++
			}
			if next == len(read) {
				t.Fatalf("the intact record at byte %d is not read (or out of order): %s\nproblems: %v", s.start, s.line, problems)
			}
			next++
		}
		if !cut && bytes.Equal(file, clean) && len(file) > 0 && file[len(file)-1] == '\n' && len(problems) > 0 {
			t.Fatalf("a file without damage reads with problems: %v", problems)
		}
	})
}
