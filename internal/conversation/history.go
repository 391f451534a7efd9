package conversation

import (
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/event"
)

// What the agents are told of a session's earlier requests, so that a
// follow-up ("now rename it back in auth.ts only") makes sense: each
// request, its approved plan verbatim, what it committed (the diff) and
// how it ended. The latest requests come in full; older ones in a line
// each, and requests a /compact summarized come as that summary. All of it
// within a budget: a session continued for weeks must not fill the context
// window before the request starts.

const (
	// fullRequests are the latest requests shown in full.
	fullRequests = 5
	// maxHistoryDiff bounds each request's diff in the history.
	maxHistoryDiff = 6000
)

// HistoryBudget is the bytes of history a model with a context window of
// window tokens is given: about a quarter of the window (four bytes a
// token), the rest left to the request's own work.
func HistoryBudget(window int) int { return window }

// turn is one request as the history tells it.
type turn struct {
	n       int
	request string
	plan    string
	commits []Record
	done    *Record
	undone  []string // journal entries undone since
	// running is whether the request is being carried out now: it is the
	// last, and another process holds the session.
	running bool
}

// interrupted reports whether the request never ended: its process was
// killed or lost its terminal before recording how it ended (a request
// without an end is running only while its writer holds the session). It
// is the one definition the history, [Session.Interrupted] and the list
// all use.
func (t *turn) interrupted() bool { return t.done == nil && !t.running }

// History returns the session's earlier requests for the agents, or "" for
// a session without any, in at most maxBytes (0: no bound). The latest
// request always comes in full; going back, requests come in full while
// they are among the latest few and fit, then in a line each while those
// fit; the oldest that do not are left out, and the text says how many.
func (s *Session) History(maxBytes int) string {
	h, _ := s.history(maxBytes)
	return h
}

// history is [Session.History], and the number of the last request it
// left out (0 for none).
func (s *Session) history(maxBytes int) (string, int) {
	turns, summary, through := s.turns()
	if len(turns) == 0 && summary == "" {
		return "", 0
	}
	const header = "Earlier in this session (the user may refer to it):\n"
	var head string
	if summary != "" {
		summary = strings.TrimSpace(summary)
		if maxBytes > 0 && len(summary) > maxBytes/2 {
			summary = summary[:maxBytes/2] + "\n[summary cut for space]"
		}
		head = fmt.Sprintf("\nRequests 1 to %d, summarized:\n%s\n", through, summary)
	}
	// The line saying what was left out is counted in from the start.
	used := len(header) + len(head) + len(leftOut) + 16

	parts := make([]string, len(turns))
	omitted := 0
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		latest := i == len(turns)-1
		full, line := t.full(through), t.line(through)
		switch {
		// A request the summary covers keeps its plan, as approved, while
		// the plans fit: the summary does not replace them.
		case latest || ((i >= len(turns)-fullRequests || t.n <= through) && fits(maxBytes, used, full)):
			parts[i] = full
		case fits(maxBytes, used, line):
			parts[i] = line
		default:
			omitted = i + 1
		}
		if omitted > 0 {
			break
		}
		used += len(parts[i])
	}
	var b strings.Builder
	b.WriteString(header)
	last := 0
	if omitted > 0 {
		last = turns[omitted-1].n
		fmt.Fprintf(&b, leftOut, turns[0].n, last)
	}
	b.WriteString(head)
	for _, p := range parts[omitted:] {
		b.WriteString(p)
	}
	return b.String(), last
}

const leftOut = "\nRequests %d to %d are left out for space (/compact summarizes the session).\n"

func fits(maxBytes, used int, s string) bool { return maxBytes <= 0 || used+len(s) <= maxBytes }

// turns reads the session's requests, and the latest /compact summary with
// the last request it covers.
func (s *Session) turns() (turns []*turn, summary string, through int) {
	recs := s.Records()
	byN := map[int]*turn{}
	for i := range recs {
		r := recs[i]
		switch r.Kind {
		case KindCompaction:
			summary, through = r.Text, r.N
			continue
		case KindRequest:
			t := &turn{n: r.N, request: r.Text}
			byN[r.N] = t
			turns = append(turns, t)
			continue
		}
		t := byN[r.N]
		if t == nil {
			continue
		}
		switch r.Kind {
		case KindPlan:
			if r.Plan != nil {
				t.plan = r.Plan.Markdown()
			}
		case KindCommit:
			t.commits = append(t.commits, r)
		case KindUndo:
			t.undone = append(t.undone, r.Entry)
		case KindDone:
			t.done = &recs[i]
		}
	}
	if len(turns) > 0 && s.holder != nil {
		turns[len(turns)-1].running = true
	}
	return turns, summary, through
}

// full is the request in full: its plan, its diffs, how it ended. A
// request a summary covers keeps only its plan, as it was approved.
func (t *turn) full(through int) string {
	var b strings.Builder
	if t.n <= through {
		if t.plan != "" {
			fmt.Fprintf(&b, "\nRequest %d: %s\nThe approved plan:\n%s\n", t.n, t.request, indent(t.plan))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "\nRequest %d: %s\n", t.n, t.request)
	if t.plan != "" {
		fmt.Fprintf(&b, "The approved plan:\n%s\n", indent(t.plan))
	}
	for _, c := range t.commits {
		diff := c.Diff
		if len(diff) > maxHistoryDiff {
			diff = diff[:maxHistoryDiff] + "\n[diff cut]\n"
		}
		fmt.Fprintf(&b, "Committed %s (journal entry %s):\n%s\n", strings.Join(c.Files, ", "), c.Entry, diff)
	}
	for _, e := range t.undone {
		fmt.Fprintf(&b, "The user undid journal entry %s afterwards: its files are as they were before it.\n", e)
	}
	fmt.Fprintf(&b, "Outcome: %s\n", t.outcome())
	return b.String()
}

// line is the request in a line; nothing for one the summary covers.
func (t *turn) line(through int) string {
	if t.n <= through {
		return ""
	}
	return fmt.Sprintf("\nRequest %d: %s — %s\n", t.n, t.request, t.outcome())
}

func (t *turn) outcome() string {
	files := 0
	for _, c := range t.commits {
		files += len(c.Files)
	}
	switch {
	case t.running:
		return fmt.Sprintf("running: another process is carrying it out now (%d %s committed so far)", files, plural(files, "file", "files"))
	case t.interrupted():
		return fmt.Sprintf("interrupted: the run stopped before it finished (%d %s committed before that)", files, plural(files, "file", "files"))
	case t.done.Success:
		return "done: " + firstLine(t.done.Text)
	}
	return "not done: " + firstLine(t.done.Text)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// Recorder writes the events of request n to the session as they pass to
// next: the plan carried out, each commit, the todo list, the end.
type Recorder struct {
	sess *Session
	n    int
	next event.Sink

	lastPlan *event.Plan
	// Err is the first failure to write, which the run reports.
	Err error
}

// Recorder returns a sink recording request n's events before passing them
// on.
func (s *Session) Recorder(n int, next event.Sink) *Recorder {
	return &Recorder{sess: s, n: n, next: next}
}

// Emit records e if it belongs in the session, then passes it on.
func (r *Recorder) Emit(e event.Event) {
	var rec *Record
	switch v := e.(type) {
	case event.Plan:
		r.lastPlan = &v
	case event.Phase:
		// The plan being carried out: approved, or a simple request's
		// plan of its one file, or a widened one after a re-plan.
		if v.Name == "execute" && r.lastPlan != nil && r.lastPlan.Plan != nil {
			rec = &Record{Kind: KindPlan, Plan: r.lastPlan.Plan}
			r.lastPlan = nil
		}
	case event.Commit:
		rec = &Record{Kind: KindCommit, Entry: v.Entry, Files: v.Files, Diff: v.Diff}
	case event.Todo:
		rec = &Record{Kind: KindTodo, Todo: v.Items}
	case event.Done:
		rec = &Record{Kind: KindDone, Success: v.Success, Text: v.Summary.Message}
	}
	if rec != nil {
		rec.N = r.n
		if err := r.sess.Append(*rec); err != nil && r.Err == nil {
			r.Err = err
		}
	}
	r.next.Emit(e)
}
