package search

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// TestLargeFile searches a generated 50 MB file in which every line matches.
// Neither engine may hold the file, or its million matches, in memory.
func TestSearchLargeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.log"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const lines = 1_000_000 // 50 bytes each
	for i := range lines {
		fmt.Fprintf(w, "%07d lorem ipsum dolor sit amet, needle %07d\n", i+1, i+1)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}

	const allocLimit = 64 << 20 // well under the file's 50 MB
	for name, s := range engines(t, root) {
		t.Run(name+"/every line", func(t *testing.T) {
			res, alloc := searchMeasured(t, s, Query{Pattern: `needle \d+`, MaxResults: 100})
			if !res.Capped || res.TotalMatches != FileMatchBound || len(res.Matches) != 100 {
				t.Errorf("capped %v after %d matches, %d shown", res.Capped, res.TotalMatches, len(res.Matches))
			}
			if m := res.Matches[99]; m.Line != 100 || m.Column != 37 {
				t.Errorf("100th match at %d:%d, want 100:37", m.Line, m.Column)
			}
			if alloc > allocLimit {
				t.Errorf("allocated %d MB", alloc>>20)
			}
		})
		t.Run(name+"/cancelled midway", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := s.Search(ctx, Query{Pattern: `[a-z]+ [a-z]+, \w+ \d+9$`})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want context.DeadlineExceeded", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v to stop", d)
			}
		})
		t.Run(name+"/last line", func(t *testing.T) {
			res, alloc := searchMeasured(t, s, Query{Pattern: fmt.Sprintf("needle %07d", lines), ContextLines: 2})
			if res.Stopped || res.TotalMatches != 1 || len(res.Matches) != 1 {
				t.Fatalf("stopped %v, %d matches", res.Stopped, res.TotalMatches)
			}
			if m := res.Matches[0]; m.Line != lines || len(m.Before) != 2 || m.Before[0].Number != lines-2 {
				t.Errorf("match %s", jsonOf(m))
			}
			if alloc > allocLimit {
				t.Errorf("allocated %d MB", alloc>>20)
			}
		})
	}
}

// searchMeasured runs a search and returns the bytes it allocated.
func searchMeasured(t *testing.T, s *Searcher, o Query) (*Result, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := s.Search(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	t.Logf("allocated %.1f MB", float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
	return res, after.TotalAlloc - before.TotalAlloc
}
