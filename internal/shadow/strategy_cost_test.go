package shadow

import (
	"testing"
	"time"
)

// The strategy takes whichever is expected to finish first, in questions
// asked of the server against batch runs: rows from rich (pyright, 78
// files; 61 importers of style.py) and date-fns (tsserver) as measured
// (docs/benchmarks.md). A check of a file or two teaches nothing: its
// cost is the file's import chain, not its importers'.
func TestStrategyChoosesTheFasterEstimate(t *testing.T) {
	type check struct {
		asked   int
		elapsed time.Duration
	}
	type batchRun struct {
		elapsed time.Duration
		both    bool // beside the unchanged tree's run
	}
	for _, tc := range []struct {
		name      string
		server    string
		taught    []check // checks the server ran before
		questions int
		batch     float64 // a learned batch run, ms (0: the prior)
		// taughtBatch are batch runs the checker made before.
		taughtBatch []batchRun
		kept        bool // the batch checker's answer for the unchanged tree is kept
		runs        int
		wantBatch   bool
	}{
		{name: "rich's first interface change, nothing kept", server: "pyright", questions: 124, wantBatch: false},
		{name: "rich's first interface change after a session of one-file checks", server: "pyright",
			taught: []check{{2, 1500 * time.Millisecond}, {2, 570 * time.Millisecond}, {2, 700 * time.Millisecond}}, questions: 124, wantBatch: false},
		{name: "rich's later interface change, the importers' answers kept, the batch run's too", server: "pyright",
			taught: []check{{124, 15500 * time.Millisecond}}, questions: 62, batch: 10600, kept: true, wantBatch: false},
		{name: "a Python change reaching 300 files, no before kept", server: "pyright", questions: 600, batch: 10600, kept: true, wantBatch: true},
		{name: "a server slowed past the batch run by what it learned", server: "pyright",
			taught: []check{{124, 60 * time.Second}}, questions: 124, batch: 10600, kept: true, wantBatch: true},
		{name: "tsserver, 40 importers, tsc's answer kept", server: "tsserver", questions: 80, kept: true, wantBatch: false},
		{name: "tldraw's later interface change, 608 importers, their befores unknown, tsc's answer kept (24-25 s a run)", server: "tsserver", questions: 1216, batch: 25000, kept: true, wantBatch: true},
		{name: "tldraw's later interface change, 608 importers tsc found clean (their befores known), 28 ms a question", server: "tsserver",
			taught: []check{{608, 17400 * time.Millisecond}}, questions: 608, batch: 25000, kept: true, wantBatch: false},
		{name: "tsserver, 80 importers, asked after the change only", server: "tsserver", questions: 80, wantBatch: false},
		{name: "tsserver, 600 importers, tsc's answer kept", server: "tsserver", questions: 1200, kept: true, wantBatch: true},
		{name: "a turn's end on date-fns after one run of tsc beside the unchanged tree (10 s), 150 importers", server: "tsserver", questions: 300,
			taughtBatch: []batchRun{{10 * time.Second, true}}, wantBatch: false},
		{name: "a run beside the unchanged tree's (13 s) counts as 1.7 runs, once that tree's answer is kept", server: "tsserver", questions: 360,
			taughtBatch: []batchRun{{13 * time.Second, true}}, kept: true, wantBatch: true},
		{name: "tsserver, 600 importers over 16 projects", server: "tsserver", questions: 1200, kept: true, runs: 16, wantBatch: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := costs{perQuestion: map[string]float64{}, batch: map[string]float64{}}
			for _, ch := range tc.taught {
				c.learnQuestions(tc.server, ch.asked, ch.elapsed)
			}
			if tc.batch > 0 {
				c.learn(c.batch, tc.server, tc.batch)
			}
			for _, r := range tc.taughtBatch {
				c.learnBatch(tc.server, r.elapsed, r.both)
			}
			runs := max(tc.runs, 1)
			perFile, batchRun := c.perFileRun(tc.server, tc.questions), c.batchRun(tc.server, tc.kept)
			if got := batchFaster(perFile, batchRun, runs); got != tc.wantBatch {
				t.Errorf("batch chosen %v, want %v (file by file %.0f ms, %d batch runs of %.0f ms)", got, tc.wantBatch, perFile, runs, batchRun)
			}
		})
	}
}
