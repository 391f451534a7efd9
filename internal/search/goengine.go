package search

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// searchGo is the pure-Go engine. One goroutine walks the tree with
// [workspace.Root.Walk], so the file set is the workspace's by construction;
// s.workers goroutines search the files it finds, and the calling goroutine
// collects their results. All of them have ended when it returns.
func (s *Searcher) searchGo(ctx context.Context, p *plan, col *collector) error {
	m, err := compile(p)
	if err != nil {
		return err
	}
	var counted atomic.Int64
	if p.isFile {
		if p.glob != nil && !p.glob.match(p.start.Rel) {
			return nil
		}
		r, err := newScanner(m, p, &counted, s.bound).file(ctx, s.root, p.start.Rel)
		if err != nil && err != errBound {
			return err
		}
		col.add(r.matches, r.count)
		col.stopped = err == errBound
		return nil
	}

	walkCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stopped atomic.Bool
	files := make(chan workspace.Entry, 256)
	results := make(chan fileResult, 64)

	var walkErr error
	walkDone := make(chan struct{})
	go func() {
		defer close(walkDone)
		defer close(files)
		walkErr = s.root.Walk(walkCtx, p.start, workspace.WalkOptions{}, func(e workspace.Entry) error {
			// Only regular files: symlinks are not followed, as in ripgrep,
			// and a FIFO would block the reader.
			if e.Mode.Type() != 0 || (p.glob != nil && !p.glob.match(e.Rel)) {
				return nil
			}
			select {
			case files <- e:
				return nil
			case <-walkCtx.Done():
				return walkCtx.Err()
			}
		})
	}()

	// Workers send every result: the loop below drains results until all
	// of them are done, so a send never blocks for good.
	var workers sync.WaitGroup
	for range max(s.workers, 1) {
		workers.Go(func() {
			sc := newScanner(m, p, &counted, s.bound)
			for e := range files {
				if walkCtx.Err() != nil {
					continue // stopping: drain what the walker had queued
				}
				r, err := sc.file(walkCtx, s.root, e.Rel)
				if err == errBound && stopped.CompareAndSwap(false, true) {
					cancel()
				}
				if r.count > 0 {
					results <- r
				}
			}
		})
	}
	go func() {
		workers.Wait()
		close(results)
	}()

	for r := range results {
		col.add(r.matches, r.count)
	}
	<-walkDone
	if err := ctx.Err(); err != nil {
		return err
	}
	col.stopped = stopped.Load()
	if walkErr != nil && !col.stopped {
		return walkErr
	}
	return nil
}
