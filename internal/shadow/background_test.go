package shadow

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A client that changes the disk again and again (an agent's edits, a
// check after each) leaves at most one background checker process per
// workspace and checker: each new disk state cancels the job of the one
// before, and the next job starts once the earlier one's processes are
// gone. Counted as real child processes of this one.
func TestBackgroundWorkIsOnePerChecker(t *testing.T) {
	files := map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`}
	for i := range 10 {
		files[fmt.Sprintf("src/m%d.ts", i)] = fmt.Sprintf("export const m%d: number = %d;\n", i, i)
	}
	dir := testfs.Tree(t, files)
	h := newHarnessAt(t, dir, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir(), WarmBatch: true, WarmBatchFiles: 1}})
	srv := h.requireServer("typescript")
	if _, ok := srv.BatchCommand(); !ok {
		t.Fatalf("%s has no batch checker", srv.Spec().Name)
	}
	g := &group{server: srv, lang: "typescript", changes: []*changeset.Change{{Path: "src/m0.ts"}}}
	// The last job runs at a low priority: on a loaded machine it takes
	// what the test's deadline allows.
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
	}
	defer cancel()
	most := 0
	sample := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			most = max(most, checkerProcesses(t))
		}
	}
	var last *Snapshot
	for i := range 20 {
		testfs.Write(t, dir, map[string]string{"src/m0.ts": fmt.Sprintf("export const m0: number = %d;\n", 100+i)})
		snap, err := h.v.syncDisk(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h.v.warmBatch(snap, g)
		if jobs := h.v.Background(); len(jobs) != 1 || jobs[0].DiskState != snap.Fingerprint {
			t.Errorf("change %d: background jobs %+v, want one for the disk state %s", i, jobs, snap.Fingerprint)
		}
		sample(150 * time.Millisecond)
		last = snap
	}
	// The last state's answer is computed.
	for len(h.v.Background()) > 0 && ctx.Err() == nil {
		sample(100 * time.Millisecond)
	}
	if c := h.v.batchFor(srv); !c.Ready(filepath.Join(dir, "tsconfig.json"), last.Fingerprint) {
		t.Errorf("the last disk state's answer was not computed (jobs: %+v)", h.v.Background())
	}
	if most > 1 {
		t.Errorf("%d background checker processes at once for one workspace, want at most 1", most)
	}
}

// checkerProcesses counts this process's descendants that run a batch
// checker (tsc's arguments).
func checkerProcesses(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	var checkers []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, the last ')' ends it.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" {
			continue
		}
		parent[pid], _ = strconv.Atoi(fields[1])
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmd, []byte("--noEmit")) {
			checkers = append(checkers, pid)
		}
	}
	me, n := os.Getpid(), 0
	for _, pid := range checkers {
		if slices.Contains(checkers, parent[pid]) {
			continue // one run: a launcher (node's tsc) and the compiler it starts
		}
		for p, hops := parent[pid], 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if p == me {
				n++
				break
			}
		}
	}
	return n
}
