package shadow

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Work done ahead of need (a large project's batch answer for the
// unchanged tree, computed while the model thinks) is worth something
// only for the disk state it is computed for. So there is at most one
// such job per checker (per workspace: a validator is one workspace's),
// a job's projects run one after the other, a new disk state cancels
// the job of the one before it, and a job starts only once its
// predecessor's processes are gone: a client that changes the disk every
// few seconds leaves one checker process behind it, not one per change.

// BackgroundJob is one job in progress, as 'anvil serve status' shows it.
type BackgroundJob struct {
	// Checker is the batch checker that runs ("tsc 7").
	Checker string `json:"checker"`
	// Why says what the job is for.
	Why string `json:"why"`
	// DiskState is the fingerprint of the disk state it computes for.
	DiskState string `json:"disk_state"`
	// Projects are the projects it runs the checker for, in order; the
	// first is the one running.
	Projects []string  `json:"projects"`
	Started  time.Time `json:"started"`
}

// bgJob is one checker's job.
type bgJob struct {
	BackgroundJob
	cancel context.CancelFunc
	done   chan struct{}
	ended  bool // no project is taken any more (guarded by background.mu)
}

// background holds a validator's jobs, by checker.
type background struct {
	mu   sync.Mutex
	jobs map[string]*bgJob
}

// run has the job of checker compute run(ctx, project) for each of
// projects at state: a running job for state takes the projects it does
// not have yet; one for another state is cancelled, and the new job
// starts once it has ended. parent bounds every job (the validator's
// life); each project's run is bounded by bound.
func (b *background) run(parent context.Context, checker, label, state, why string, projects []string, bound time.Duration, run func(ctx context.Context, project string)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.jobs == nil {
		b.jobs = map[string]*bgJob{}
	}
	prev := b.jobs[checker]
	if prev != nil && !prev.ended && prev.DiskState == state {
		for _, p := range projects {
			if !slices.Contains(prev.Projects, p) {
				prev.Projects = append(prev.Projects, p)
			}
		}
		return
	}
	if prev != nil {
		prev.cancel() // superseded: its disk state is gone
	}
	ctx, cancel := context.WithCancel(parent)
	job := &bgJob{BackgroundJob: BackgroundJob{Checker: label, Why: why, DiskState: state, Projects: slices.Clone(projects), Started: time.Now()},
		cancel: cancel, done: make(chan struct{})}
	b.jobs[checker] = job
	go func() {
		defer close(job.done)
		defer cancel()
		if prev != nil {
			// Its processes are killed and reaped before this job starts
			// any (sandbox.Run returns only then).
			<-prev.done
		}
		for {
			b.mu.Lock()
			if ctx.Err() != nil || len(job.Projects) == 0 {
				job.ended = true
				if b.jobs[checker] == job {
					delete(b.jobs, checker)
				}
				b.mu.Unlock()
				return
			}
			project := job.Projects[0]
			b.mu.Unlock()
			pctx, pcancel := context.WithTimeout(ctx, bound)
			run(pctx, project)
			pcancel()
			b.mu.Lock()
			job.Projects = job.Projects[1:]
			b.mu.Unlock()
		}
	}()
}

// supersede cancels every job computing for a disk state other than
// state: the disk moved on.
func (b *background) supersede(state string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, j := range b.jobs {
		if j.DiskState != state {
			j.cancel()
		}
	}
}

// cancelAll cancels every job in progress and returns how many there
// were.
func (b *background) cancelAll() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, j := range b.jobs {
		if !j.ended {
			j.cancel()
			n++
		}
	}
	return n
}

// list returns the jobs in progress.
func (b *background) list() []BackgroundJob {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []BackgroundJob
	for _, j := range b.jobs {
		if !j.ended {
			bj := j.BackgroundJob
			bj.Projects = slices.Clone(j.Projects)
			out = append(out, bj)
		}
	}
	slices.SortFunc(out, func(x, y BackgroundJob) int {
		if x.Checker < y.Checker {
			return -1
		}
		if x.Checker > y.Checker {
			return 1
		}
		return 0
	})
	return out
}

// wait waits, up to bound, for every job to end (after the validator's
// life was cancelled).
func (b *background) wait(bound time.Duration) {
	b.mu.Lock()
	var dones []chan struct{}
	for _, j := range b.jobs {
		dones = append(dones, j.done)
	}
	b.mu.Unlock()
	deadline := time.After(bound)
	for _, d := range dones {
		select {
		case <-d:
		case <-deadline:
			return
		}
	}
}
