package conversation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
	"github.com/anvil-dev/anvil/internal/plan"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

func rootAt(t *testing.T, dir string) *workspace.Root {
	t.Helper()
	r, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A request, its plan, its commit and its end are recorded as they
// happen and read back by a later process; the history tells them.
func TestSessionRecordsAndTells(t *testing.T) {
	state := t.TempDir()
	root := rootAt(t, testfs.Tree(t, map[string]string{"a.ts": "x\n"}))
	store, err := Open(state, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.New("anthropic", "claude-test")
	if err != nil {
		t.Fatal(err)
	}
	n, err := sess.Begin("Rename User to Account")
	if err != nil || n != 1 {
		t.Fatal(n, err)
	}
	rec := sess.Recorder(n, event.Discard{})
	p := &plan.Plan{Goal: "Rename the type.", Steps: []string{"rename"}, FilesToModify: []string{"a.ts"}}
	rec.Emit(event.Plan{Plan: p})
	rec.Emit(event.Phase{Name: "execute"})
	rec.Emit(event.Commit{Entry: "e1", Files: []string{"a.ts"}, Diff: "-x\n+y\n"})
	rec.Emit(event.Done{Success: true, Summary: event.Summary{Message: "Committed 1 file"}})
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	sess.Close()

	again, err := store.Latest()
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	h := again.History(0)
	for _, want := range []string{"Request 1: Rename User to Account", "Goal: Rename the type.", "Committed a.ts (journal entry e1)", "+y", "Outcome: done: Committed 1 file"} {
		if !strings.Contains(h, want) {
			t.Errorf("the history lacks %q:\n%s", want, h)
		}
	}
	if _, _, ok := again.Interrupted(); ok {
		t.Error("a finished request reads as interrupted")
	}
}

// A process killed while writing leaves a line cut short: it is dropped,
// and the request without an end is interrupted.
func TestKilledMidRequest(t *testing.T) {
	state := t.TempDir()
	root := rootAt(t, testfs.Tree(t, map[string]string{"a.ts": "x\n"}))
	store, _ := Open(state, root, nil)
	sess, _ := store.New("p", "m")
	sess.Begin("first")
	sess.Recorder(1, event.Discard{}).Emit(event.Done{Success: true})
	sess.Begin("second, killed")
	path := sess.path
	sess.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"commit","n":2,"entr`)
	f.Close()

	again, err := store.Resume(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	n, text, ok := again.Interrupted()
	if !ok || n != 2 || text != "second, killed" {
		t.Fatalf("interrupted: %d %q %v", n, text, ok)
	}
	if h := again.History(0); !strings.Contains(h, "Request 2: second, killed") || !strings.Contains(h, "interrupted") {
		t.Errorf("history:\n%s", h)
	}
	if n, _ := again.Begin("third"); n != 3 {
		t.Errorf("the next request is %d", n)
	}
	// The cut line is not glued to the next record: request 3 is there
	// for the next process.
	again.Close()
	third, err := store.Resume(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if n := third.Requests(); n != 3 {
		t.Errorf("after the resume %d requests, want 3 (the one after the cut line lost)", n)
	}
}

// A directory re-created at the same path (a fresh clone) does not
// continue the old one's session; saying so is better than starting
// silently afresh.
func TestAnotherDirectoryAtThePath(t *testing.T) {
	state := t.TempDir()
	dir := testfs.Tree(t, map[string]string{"a.ts": "x\n"})
	store, _ := Open(state, rootAt(t, dir), nil)
	sess, _ := store.New("p", "m")
	sess.Begin("in the old directory")
	sess.Close()

	old := rootAt(t, dir).ID()
	// A fresh clone moved into place: made while the old one exists, so
	// the file system cannot hand it the old one's inode.
	testfs.Write(t, dir+"-clone", map[string]string{"a.ts": "x\n"})
	os.RemoveAll(dir)
	if err := os.Rename(dir+"-clone", dir); err != nil {
		t.Fatal(err)
	}
	root2 := rootAt(t, dir)
	if root2.ID() == old {
		t.Fatal("the new directory has the old one's identity: the case shows nothing")
	}
	store2, _ := Open(state, root2, nil)
	_, err := store2.Latest()
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "directory that was at this path before") {
		t.Fatalf("err = %v", err)
	}
	if _, err := store2.Resume(sess.ID); err == nil || !strings.Contains(err.Error(), "another directory") {
		t.Fatalf("resume: %v", err)
	}
	if list, _ := store2.List(); len(list) != 0 {
		t.Errorf("listed: %+v", list)
	}
	if _, err := store2.Resume("../../etc/passwd"); err == nil {
		t.Error("a path as a session id")
	}
	if entries, _ := filepath.Glob(filepath.Join(state, "sessions", "*", "*.jsonl")); len(entries) != 1 {
		t.Errorf("session files: %v", entries)
	}
}

// longSession is a new session of a fresh workspace.
func longSession(t *testing.T) *Session {
	t.Helper()
	root := rootAt(t, testfs.Tree(t, map[string]string{"a.ts": "x\n"}))
	store, err := Open(t.TempDir(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.New("anthropic", "claude-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// addRequest records request i, its plan, a commit of diff to a.ts and
// its end, as a run does.
func addRequest(t *testing.T, sess *Session, i int, explanation, diff string) {
	t.Helper()
	n, err := sess.Begin(fmt.Sprintf("request number %d: %s", i, explanation))
	if err != nil {
		t.Fatal(err)
	}
	rec := sess.Recorder(n, event.Discard{})
	rec.Emit(event.Plan{Plan: &plan.Plan{Goal: fmt.Sprintf("Goal of request %d.", i), Steps: []string{"edit"}, FilesToModify: []string{"a.ts"}}})
	rec.Emit(event.Phase{Name: "execute"})
	rec.Emit(event.Commit{Entry: fmt.Sprintf("e%d", i), Files: []string{"a.ts"}, Diff: diff})
	rec.Emit(event.Done{Success: true, Summary: event.Summary{Message: "Committed 1 file"}})
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
}

// A session continued for weeks stays inside its budget: the latest
// request in full with its plan, older ones in a line each, and the oldest
// left out with a word of how many, never a history that fills the window.
func TestHistoryStaysWithinItsBudget(t *testing.T) {
	sess := longSession(t)
	big := strings.Repeat("+a changed line of the diff\n", 200) // 5.6 KB
	for i := 1; i <= 60; i++ {
		addRequest(t, sess, i, strings.Repeat("and a long explanation of what to do ", 5), big)
	}
	unbounded := sess.History(0)
	for _, budget := range []int{8_000, 16_000, 40_000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			h := sess.History(budget)
			// The latest request in full may pass a small budget alone.
			if len(h) > budget {
				t.Errorf("history of %d bytes over a budget of %d", len(h), budget)
			}
			if !strings.Contains(h, "Request 60: request number 60: and a long") || !strings.Contains(h, "Goal of request 60.") || !strings.Contains(h, "Committed a.ts (journal entry e60)") {
				t.Error("the latest request is not in full")
			}
			if !strings.Contains(h, "Request 59: request number 59: ") {
				t.Error("the request before the latest is missing")
			}
			if !strings.Contains(h, "are left out for space (/compact summarizes the session)") || strings.Contains(h, "Request 1: ") {
				t.Error("the oldest requests are neither left out nor said to be")
			}
		})
	}
	if len(unbounded) < 60*len(big)/12 || !strings.Contains(unbounded, "Request 1: request number 1: ") {
		t.Errorf("without a bound every request is told (%d bytes)", len(unbounded))
	}
}

// summarizer is a model that answers every call with a summary, and
// counts the calls and what it was asked.
type summarizer struct {
	calls int
	asked string
	fail  error
}

func (s *summarizer) Name() string  { return "test" }
func (s *summarizer) Model() string { return "test-model" }
func (s *summarizer) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	s.calls++
	if s.fail != nil {
		return nil, s.fail
	}
	s.asked = req.Messages[0].TextContent()
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text("THE SUMMARY of the early requests")}}}, nil
}

// When the history would leave the oldest requests out, they are folded
// into the session's summary first, and the recent ones stay in full; a
// model that fails leaves the bounded history and the session unchanged.
func TestHistoryForFoldsWhatWouldBeLeftOut(t *testing.T) {
	sess := longSession(t)
	add := func(i int) {
		addRequest(t, sess, i, strings.Repeat("with a long explanation ", 10), strings.Repeat("+a line of the diff\n", 100))
	}
	const window = 8000 // tokens: a history of 8,000 bytes
	for i := 1; i <= 3; i++ {
		add(i)
	}
	m := &summarizer{}
	if _, compacted, err := sess.HistoryFor(context.Background(), m, "test-model", window); err != nil || compacted || m.calls != 0 {
		t.Fatalf("a short session was compacted (%v, %d calls, %v)", compacted, m.calls, err)
	}
	for i := 4; i <= 40; i++ {
		add(i)
	}

	failing := &summarizer{fail: errors.New("overloaded")}
	h, compacted, err := sess.HistoryFor(context.Background(), failing, "test-model", window)
	if err == nil || compacted || !strings.Contains(h, "are left out for space") {
		t.Fatalf("a failed summary: err %v, compacted %v; want the bounded history and the error", err, compacted)
	}

	h, compacted, err = sess.HistoryFor(context.Background(), m, "test-model", window)
	if err != nil || !compacted || m.calls != 1 {
		t.Fatalf("HistoryFor: compacted %v after %d calls: %v", compacted, m.calls, err)
	}
	if !strings.HasPrefix(m.asked, "Summarize requests 1 to ") {
		t.Errorf("the model was not told which requests to summarize: %.80q", m.asked)
	}
	if !strings.Contains(h, "THE SUMMARY of the early requests") || !strings.Contains(h, "Request 40: request number 40") || !strings.Contains(h, "Committed a.ts (journal entry e40)") {
		t.Errorf("after compaction the history lacks the summary or the latest request in full:\n%.600s", h)
	}
	if len(h) > HistoryBudget(window) {
		t.Errorf("history of %d bytes over its budget %d", len(h), HistoryBudget(window))
	}
	// Compacted once, it is not compacted again for the same requests.
	if _, compacted, _ := sess.HistoryFor(context.Background(), m, "test-model", window); compacted || m.calls != 1 {
		t.Errorf("compacted again at once (%d calls)", m.calls)
	}
}

// A summary does not replace the approved plans of the requests it
// covers, and an undone commit is not the one the next /undo reverts.
func TestCompactKeepsPlansAndUndoSkipsTheUndone(t *testing.T) {
	sess := longSession(t)
	for i := 1; i <= 8; i++ {
		addRequest(t, sess, i, "change it", "+x\n")
	}
	if _, err := sess.Compact(context.Background(), &summarizer{}, "test-model", 200_000); err != nil {
		t.Fatal(err)
	}
	h := sess.History(HistoryBudget(200_000))
	for i := 1; i <= 8; i++ {
		if !strings.Contains(h, fmt.Sprintf("Goal of request %d.", i)) {
			t.Errorf("the plan of request %d is gone after /compact", i)
		}
	}
	if err := sess.Append(Record{Kind: KindUndo, N: 8, Entry: "e8"}); err != nil {
		t.Fatal(err)
	}
	if last, ok := sess.LastCommit(); !ok || last.Entry != "e7" {
		t.Errorf("after e8 was undone the last commit is %q, want e7", last.Entry)
	}
	if d := sess.Diff(); !strings.Contains(d, "journal entry e8 (undone since)") {
		t.Errorf("the diff does not say e8 was undone:\n%.300s", d)
	}
}

// continueOnce is one `anvil --continue` as cmd/anvil runs it: the latest
// session, its history and what was interrupted told, the request
// recorded and ended, the session closed.
func continueOnce(t *testing.T, store *Store, request string) (history string, interrupted int) {
	t.Helper()
	sess, err := store.Latest()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	history, _, err = sess.HistoryFor(context.Background(), nil, "m", 100_000)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, ok := sess.Interrupted(); ok {
		interrupted = n
	}
	n, err := sess.Begin(request)
	if err != nil {
		t.Fatal(err)
	}
	rec := sess.Recorder(n, event.Discard{})
	rec.Emit(event.Done{Success: true, Summary: event.Summary{Message: "did " + request}})
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	return history, interrupted
}

// A request killed with SIGKILL (its process gone before its end was
// recorded, or its end cut while being written) stays told as interrupted
// in every later history: the second --continue after it and the ones
// after that read the session as the first did.
func TestInterruptedRequestStaysTold(t *testing.T) {
	for _, tc := range []struct {
		name string
		// tail is what the killed process left after request 2's record.
		tail string
	}{
		{"killed before its end", ""},
		{"killed while writing its end", `{"kind":"done","n":2,"time":"2026-12-01T10:00:00Z","succ`},
		{"killed while writing a commit", `{"kind":"commit","n":2,"entr`},
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
			addRequest(t, sess, 1, "first", "+a\n")
			if _, err := sess.Begin("second, killed"); err != nil {
				t.Fatal(err)
			}
			path := sess.path
			sess.Close()
			if tc.tail != "" {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tc.tail)
				f.Close()
			}
			for i, request := range []string{"third", "fourth", "fifth"} {
				h, interrupted := continueOnce(t, store, request)
				if !strings.Contains(h, "Request 2: second, killed\n") || !strings.Contains(h, "Outcome: interrupted") {
					t.Errorf("continue %d: the history does not tell request 2 as interrupted:\n%s", i+1, h)
				}
				if want := map[int]int{0: 2}[i]; interrupted != want {
					t.Errorf("continue %d: told request %d was interrupted, want %d", i+1, interrupted, want)
				}
			}
			list, err := store.List()
			if err != nil || len(list) != 1 || list[0].Requests != 5 || list[0].Interrupted {
				t.Errorf("list: %+v %v", list, err)
			}
		})
	}
}

// Listing sessions only reads: a session with a cut last line (this
// directory's, and one of a directory that was at the path before) keeps
// its bytes through --resume's list and --continue's search, even when
// the file is read-only; the message about the other directory's sessions
// says what is true: they are not continued here.
func TestListingOnlyReads(t *testing.T) {
	state := t.TempDir()
	dir := testfs.Tree(t, map[string]string{"a.ts": "x\n"})
	oldStore, _ := Open(state, rootAt(t, dir), nil)
	old, err := oldStore.New("p", "m")
	if err != nil {
		t.Fatal(err)
	}
	old.Begin("in the old directory")
	old.Close()
	testfs.Write(t, dir+"-clone", map[string]string{"a.ts": "x\n"})
	os.RemoveAll(dir)
	if err := os.Rename(dir+"-clone", dir); err != nil {
		t.Fatal(err)
	}
	store, _ := Open(state, rootAt(t, dir), nil)
	sess, err := store.New("p", "m")
	if err != nil {
		t.Fatal(err)
	}
	sess.Begin("in the new directory")
	sess.Close()
	files, _ := filepath.Glob(filepath.Join(state, "sessions", "*", "*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("session files: %v", files)
	}
	before := map[string]string{}
	for _, f := range files {
		cut, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		cut.WriteString(`{"kind":"done","n":1,"tim`)
		cut.Close()
		data, _ := os.ReadFile(f)
		before[f] = string(data)
		os.Chmod(f, 0o400)
	}
	list, err := store.List()
	if err != nil || len(list) != 1 || list[0].ID != sess.ID {
		t.Fatalf("list: %+v %v", list, err)
	}
	if look, err := store.Look(""); err != nil || !look.Records()[0].Time.Before(time.Now()) {
		t.Fatalf("look: %v", err)
	} else {
		look.Close()
	}
	for _, f := range files {
		if data, _ := os.ReadFile(f); string(data) != before[f] {
			t.Errorf("%s changed by listing:\n%s", f, data)
		}
	}
	// A third directory at the path: the two sessions are others'.
	testfs.Write(t, dir+"-third", map[string]string{"a.ts": "x\n"})
	os.RemoveAll(dir)
	if err := os.Rename(dir+"-third", dir); err != nil {
		t.Fatal(err)
	}
	third, _ := Open(state, rootAt(t, dir), nil)
	_, err = third.Latest()
	if err == nil || !strings.Contains(err.Error(), "2 sessions belong to a directory that was at this path before, and are not continued here") || strings.Contains(err.Error(), "--resume") {
		t.Errorf("latest: %v", err)
	}
	if _, err := third.Resume(sess.ID); err == nil || !strings.Contains(err.Error(), "another directory") {
		t.Errorf("resume of another directory's session: %v", err)
	}
	for _, f := range files {
		if data, _ := os.ReadFile(f); string(data) != before[f] {
			t.Errorf("%s changed by looking for a session:\n%s", f, data)
		}
	}
}
