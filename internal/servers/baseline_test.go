package servers

import (
	"context"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// What a check would ask a server, as the strategy counts it: an "after"
// per file, a "before" per file that exists unless kept for the disk
// state (by the process that answered), and none for tsserver's
// dependants when only new errors are read.
func TestQuestionsCountWhatACheckAsks(t *testing.T) {
	edit := FileChange{Path: "/w/a.py", OldExists: true}
	created := FileChange{Path: "/w/new.py"}
	config := FileChange{Path: "/w/pyproject.toml", OldExists: true, Config: true}
	deps := []string{"/w/b.py", "/w/c.py", "/w/d.py"}
	// The batch checker found b and c clean at the disk state (a.py is
	// not on disk: an edit of it is not of the disk state).
	clean := map[string]bool{"/w/b.py": true, "/w/c.py": true}
	for _, tc := range []struct {
		name string
		mode Mode
		req  CheckRequest
		kept []string // befores kept for the key "k"
		want int
	}{
		{"an edit and its importers, nothing kept", ModePull, CheckRequest{Files: []FileChange{edit}, Dependants: deps, BaselineKey: "k"}, nil, 8},
		{"two importers' befores kept", ModePull, CheckRequest{Files: []FileChange{edit}, Dependants: deps, BaselineKey: "k"}, deps[:2], 6},
		{"kept for another disk state", ModePull, CheckRequest{Files: []FileChange{edit}, Dependants: deps, BaselineKey: "other"}, deps, 8},
		{"a created file has no before, configuration no question", ModePull, CheckRequest{Files: []FileChange{created, config}, Dependants: deps[:1]}, nil, 3},
		{"tsserver, new errors only", ModeTSServer, CheckRequest{Files: []FileChange{edit}, Dependants: deps, NewErrorsOnly: true}, nil, 4},
		{"tsserver, new errors only, a created file", ModeTSServer, CheckRequest{Files: []FileChange{edit, created}, Dependants: deps, NewErrorsOnly: true}, nil, 9},
		{"a pull server asks both sides whatever is read, where it has dependants", ModePull, CheckRequest{Files: []FileChange{edit}, Dependants: deps, NewErrorsOnly: true}, nil, 8},
		{"a pull server, new errors only, an edit alone: the after", ModePull, CheckRequest{Files: []FileChange{edit}, NewErrorsOnly: true}, nil, 1},
		{"a pull server, new errors only, a created file: both sides", ModePull, CheckRequest{Files: []FileChange{edit, created}, NewErrorsOnly: true}, nil, 3},
		{"the batch checker's clean files asked after the change only", ModePull, CheckRequest{Files: []FileChange{created}, Dependants: deps, BaselineKey: "k", CleanAtDisk: clean}, nil, 5},
		{"the batch checker's clean files, no disk state named", ModePull, CheckRequest{Files: []FileChange{created}, Dependants: deps, CleanAtDisk: clean}, nil, 7},
		{"the batch checker's clean files, a changed file's base not the disk's", ModePull, CheckRequest{Files: []FileChange{edit}, Dependants: deps, BaselineKey: "k", CleanAtDisk: clean}, nil, 8},
		{"clean and kept count once", ModePull, CheckRequest{Files: []FileChange{created}, Dependants: deps, BaselineKey: "k", CleanAtDisk: clean}, deps[1:], 4},
		{"tsserver, a created file: it cannot take the change back, so the clean files' befores are asked", ModeTSServer, CheckRequest{Files: []FileChange{created}, Dependants: deps, BaselineKey: "k", CleanAtDisk: clean}, nil, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(Resolved{Spec: Spec{Name: "x", Mode: tc.mode}}, "/w", nil, nil, 0)
			proc := &fakeBackend{}
			s.client = proc
			b := s.baselineFor("k", proc)
			for _, p := range tc.kept {
				b.put(p, []lsp.Diagnostic{})
			}
			if got := s.Questions(tc.req); got != tc.want {
				t.Errorf("Questions = %d, want %d", got, tc.want)
			}
		})
	}
}

// fakeBackend stands for a server process that answered.
type fakeBackend struct{}

func (fakeBackend) Alive() bool                        { return true }
func (fakeBackend) Exited() <-chan struct{}            { return nil }
func (fakeBackend) ExitError() error                   { return nil }
func (fakeBackend) PID() int                           { return 1 }
func (fakeBackend) Info() lsp.ServerInfo               { return lsp.ServerInfo{} }
func (fakeBackend) Kill()                              {}
func (fakeBackend) Shutdown(ctx context.Context) error { return nil }
func (fakeBackend) OutputBytes() uint64                { return 0 }
func (fakeBackend) Contained() bool                    { return true }

// A warm-up, which nobody waits on, gives the server's turn up to any
// check or query that finds it busy; it never takes the turn from
// another warm-up, and a check never from a check.
func TestAWarmUpYieldsTheServer(t *testing.T) {
	for _, tc := range []struct {
		name                string
		holderWarm, askWarm bool
		wantTurn            bool
	}{
		{"a check takes the turn from a warm-up", true, false, true},
		{"a warm-up waits behind a warm-up", true, true, false},
		{"a check waits behind a check", false, false, false},
		{"a warm-up waits behind a check", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(Resolved{Spec: Spec{Name: "x"}}, "/w", nil, nil, 0)
			hctx, end := context.WithCancel(context.Background())
			defer end()
			if tc.holderWarm {
				var done func()
				hctx, done = s.yielding(hctx)
				defer done()
			}
			release, err := s.acquire(hctx, nil, tc.holderWarm)
			if err != nil {
				t.Fatal(err)
			}
			// The holder works until its context ends, then gives the
			// turn back, as a cycle cut short does.
			go func() { <-hctx.Done(); release() }()
			actx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if tc.askWarm {
				var done func()
				actx, done = s.yielding(actx)
				defer done()
			}
			got, err := s.acquire(actx, nil, tc.askWarm)
			if (err == nil) != tc.wantTurn {
				t.Fatalf("turn taken: %v (%v), want %v", err == nil, err, tc.wantTurn)
			}
			if err == nil {
				got()
			}
		})
	}
}
