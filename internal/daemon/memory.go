package daemon

import (
	"cmp"
	"os"
	"slices"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
)

// The daemon's children — every workspace's language servers, the batch
// checkers' background runs and the checks in flight — share one memory
// bound (Options.Memory; by default half the machine's memory, or of its
// control group's bound where that is lower). Every
// memoryTick the daemon measures them (resident memory of every process
// it started, from /proc: an upper bound, shared pages counted in each).
// Over the bound it sheds, in order, what no one waits for:
//  1. the background work of every workspace (a batch baseline computed
//     ahead of need: a check computes it itself when it needs it);
//  2. then, on the next tick if still over, the servers of idle
//     workspaces, the least recently used first, until the measured
//     memory of those stopped brings the total under the bound.
//
// A workspace with a request in flight or waiting, or one used in the
// last memoryMinIdle, is never stopped: a check someone waits for is not
// cut by the bound. Each step is written
// to the daemon's log with the figures, and 'anvil serve status' shows
// the bound beside what the children hold.

// memoryTick is how often the children's memory is measured (a scan of
// /proc: a few milliseconds).
const memoryTick = 5 * time.Second

// memoryMinIdle is how long a workspace must have had no request before
// the bound may stop it: an agent's pre-edit and post-edit hooks, seconds
// apart, never find its servers gone in between.
const memoryMinIdle = time.Minute

// MinMemory is the smallest bound the daemon takes: below it every
// workspace would be stopped as soon as it is idle.
const MinMemory = 256 << 20

// DefaultMemory returns the bound the daemon's children share when
// Options.Memory is zero: half the memory the daemon may hold (the
// machine's, or its control group's bound where that is lower: a
// container), or 8 GiB where neither can be read.
func DefaultMemory() int64 {
	if total := proc.MemLimit(); total > 0 {
		return total / 2
	}
	return 8 << 30
}

// spaceMemory is one workspace as the memory bound sees it.
type spaceMemory struct {
	key    string
	rssKiB int64 // its servers' resident memory
	busy   bool  // a request is in flight or waiting
	last   time.Time
}

// idleToStop returns the keys of the idle workspaces to stop, least
// recently used first, so that total (KiB, every child) minus their
// memory fits in bound (KiB); as many as there are when even all of them
// would not do.
func idleToStop(spaces []spaceMemory, totalKiB, boundKiB int64) []string {
	if totalKiB <= boundKiB {
		return nil
	}
	idle := slices.DeleteFunc(slices.Clone(spaces), func(s spaceMemory) bool { return s.busy })
	slices.SortFunc(idle, func(a, b spaceMemory) int { return a.last.Compare(b.last) })
	var out []string
	for _, s := range idle {
		if totalKiB <= boundKiB {
			break
		}
		out = append(out, s.key)
		totalKiB -= s.rssKiB
	}
	return out
}

// watchMemory holds the daemon's children to the memory bound until the
// daemon stops.
func (d *Daemon) watchMemory() {
	t := time.NewTicker(d.opts.memoryTick)
	defer t.Stop()
	shed := false // background work was cancelled on the tick before
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		shed = d.holdMemory(shed)
	}
}

// holdMemory is one tick of the bound: it returns whether it cancelled
// background work this tick (the next tick then measures without it
// before it stops a workspace). /proc is read with the daemon's lock
// released: requests never wait on the measure.
func (d *Daemon) holdMemory(shedBefore bool) bool {
	total := d.childrenKiB()
	bound := d.opts.Memory >> 10
	if total <= bound {
		return false
	}
	if !shedBefore {
		d.mu.Lock()
		n := 0
		for _, s := range d.spaces {
			n += s.app.Validator.CancelBackground()
		}
		d.mu.Unlock()
		if n > 0 {
			d.log.Printf("memory: the daemon's children hold %d MiB, over the bound of %d MiB; %d background %s cancelled",
				total>>10, bound>>10, n, plural(n, "job", "jobs"))
			return true
		}
	}
	// Which workspaces there are, and their servers, under the lock;
	// their memory after.
	type seen struct {
		spaceMemory
		s    *space
		pids []int
	}
	d.mu.Lock()
	var all []seen
	for key, s := range d.spaces {
		x := seen{spaceMemory: spaceMemory{key: key, busy: s.active > 0 || time.Since(s.last) < d.opts.memoryMinIdle, last: s.last}, s: s}
		for _, srv := range s.app.Servers.Running() {
			if pid := srv.PID(); pid != 0 {
				x.pids = append(x.pids, pid)
			}
		}
		all = append(all, x)
	}
	d.mu.Unlock()
	var spaces []spaceMemory
	for i := range all {
		for _, pid := range all[i].pids {
			all[i].rssKiB += proc.TreeRSS(pid)
		}
		spaces = append(spaces, all[i].spaceMemory)
	}
	slices.SortFunc(spaces, func(a, b spaceMemory) int { return cmp.Compare(a.key, b.key) })
	stop := idleToStop(spaces, total, bound)
	if len(stop) == 0 {
		d.log.Printf("memory: the daemon's children hold %d MiB, over the bound of %d MiB, and every workspace is in use", total>>10, bound>>10)
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, key := range stop {
		s := d.spaces[key]
		i := slices.IndexFunc(all, func(x seen) bool { return x.key == key })
		if s == nil || s != all[i].s || s.active > 0 || !s.last.Equal(all[i].last) {
			continue // gone, or used since it was measured
		}
		d.log.Printf("memory: the daemon's children hold %d MiB, over the bound of %d MiB; %s is the least recently used idle workspace (%s); stopping its servers",
			total>>10, bound>>10, key, time.Since(s.last).Round(time.Second))
		delete(d.spaces, key)
		go s.app.Close()
	}
	return false
}

// childrenKiB is the resident memory of every process the daemon started.
func (d *Daemon) childrenKiB() int64 {
	return proc.DescendantsRSS(os.Getpid())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
