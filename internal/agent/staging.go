package agent

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Staging is the Executor's change set: edits accumulate here, and the
// whole set is validated once after each model turn that staged something
// (several edits in one turn cost one check), so the model sees at once
// what the turn broke, in which file; nothing reaches the disk until a
// clean commit. It implements tools.Stager.
type Staging struct {
	root *workspace.Root
	// svc checks and commits the change set: the workspace's gate, in
	// this process or the daemon's.
	svc    service.Service
	events event.Sink
	// allowed are the paths the Executor may write.
	allowed map[string]bool

	mu   sync.Mutex
	set  *changeset.Set
	last *shadow.Result
	// dirty: something was staged since the last validation.
	dirty bool
	// shown are the files whose pre-existing errors the model has been
	// shown; later reports count them without listing them again.
	shown map[string]bool
	// commitOpts go with each commit (git).
	commitOpts service.GateOptions
}

// NewStaging returns an empty change set that accepts writes to allowed.
func NewStaging(root *workspace.Root, svc service.Service, events event.Sink, allowed []string) *Staging {
	s := &Staging{root: root, svc: svc, events: events, allowed: map[string]bool{}, set: changeset.New(), shown: map[string]bool{}}
	for _, p := range allowed {
		s.allowed[p] = true
	}
	return s
}

// Staged returns path's staged content.
func (s *Staging) Staged(path string) ([]byte, bool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.set.Get(path)
	if !ok {
		return nil, false, false
	}
	return c.Content, c.Delete, true
}

// Paths returns the staged paths.
func (s *Staging) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.Paths()
}

// Set returns the change set.
func (s *Staging) Set() *changeset.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set
}

// Last returns the latest validation result, if any.
func (s *Staging) Last() *shadow.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Allowed reports whether the Executor may write path (workspace-relative).
func (s *Staging) Allowed(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowed[path]
}

// Widen lets the Executor also write paths: the plan was revised to
// include them. What is staged stays staged.
func (s *Staging) Widen(paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range paths {
		s.allowed[p] = true
	}
}

// Stage adds changes; the whole set is validated at the end of the model's
// turn (see TurnEnd). A path outside the plan, or a file that cannot be
// staged (a directory, a binary file), refuses the whole call: nothing is
// staged.
func (s *Staging) Stage(ctx context.Context, specs []changeset.Spec) (string, error) {
	if err := s.apply(specs); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.dirty = true
	n := s.set.Len()
	s.mu.Unlock()
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Path)
	}
	return fmt.Sprintf("staged %s; the change set now has %d %s. The whole change set is validated once this turn's edits are done: the result follows this turn's last tool result.", strings.Join(names, ", "), n, plural(n, "file", "files")), nil
}

// TurnEnd validates the change set if the turn staged something, and
// returns what the model should read of it ("" if nothing was staged).
func (s *Staging) TurnEnd(ctx context.Context) (string, error) {
	s.mu.Lock()
	dirty := s.dirty
	s.mu.Unlock()
	if !dirty {
		return "", nil
	}
	res, err := s.Validate(ctx)
	if err != nil {
		return "", err
	}
	return s.stateReport(res), nil
}

// apply checks every spec, then stages them all.
func (s *Staging) apply(specs []changeset.Spec) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	changes := make([]*changeset.Change, len(specs))
	for i, sp := range specs {
		p, err := s.root.Resolve(sp.Path)
		if err != nil {
			return err
		}
		if err := workspace.CheckWritable(p.Rel); err != nil {
			return fmt.Errorf("nothing was staged: %w", err)
		}
		if !s.allowed[p.Rel] {
			return fmt.Errorf("%s is not among the plan's files; nothing was staged (if the change needs it, call request_replan with the reason)", p.Rel)
		}
		c, ok := s.set.Get(p.Rel)
		if !ok {
			// The base is what the file held when first staged: the state
			// the whole change is validated and committed against.
			c = &changeset.Change{Path: p.Rel}
			if err := c.ReadBase(s.root); err != nil {
				return fmt.Errorf("nothing was staged: %w", err)
			}
		}
		changes[i] = c
	}
	for i, sp := range specs {
		c := changes[i]
		c.Delete = sp.Delete
		c.Content = nil
		if sp.Content != nil {
			c.Content = []byte(*sp.Content)
		}
		c.MatchLineEndings()
		if c.Unchanged() {
			s.set.Remove(c.Path)
		} else {
			s.set.Put(c)
		}
	}
	return nil
}

// Validate checks the whole set for a staging check and emits the cycle.
// A staging check may be narrower than a commit's (it says so): the
// commit's check is always complete.
func (s *Staging) Validate(ctx context.Context) (*shadow.Result, error) {
	set := s.Set()
	s.mu.Lock()
	s.dirty = false
	s.mu.Unlock()
	s.emitValidating(set, 0, 0)
	// A staging check is the language servers' alone: the run stage, if
	// any, comes with the commit (or run_tests).
	out, err := s.svc.Check(ctx, Specs(set), service.GateOptions{Staging: true})
	if err != nil {
		return nil, err
	}
	if len(out.Stale) > 0 {
		return nil, &changeset.StaleError{Paths: out.Stale}
	}
	s.emitResult(set, 0, 0, out.Result)
	return out.Result, nil
}

// Commit validates the whole set through the gate as commit attempt of
// maxAttempts and writes it if clean, emitting the cycle. The run stage
// runs as the workspace's policy says (the project's [run] commands).
func (s *Staging) Commit(ctx context.Context, attempt, maxAttempts int, message string) (*service.Outcome, error) {
	set := s.Set()
	s.mu.Lock()
	s.dirty = false // the commit's check covers every staged edit
	s.mu.Unlock()
	s.emitValidating(set, attempt, maxAttempts)
	opts := s.commitOpts
	opts.Progress = func(p service.Progress) {
		if p.Notice {
			s.events.Emit(event.Shadow{Attempt: attempt, MaxAttempts: maxAttempts, Files: set.Paths(), Stage: "waiting", Commit: true, Summary: p.Message})
		}
	}
	out, err := s.svc.Commit(ctx, Specs(set), message, opts)
	if out != nil && out.Result != nil {
		s.emitResult(set, attempt, maxAttempts, out.Result)
	}
	return out, err
}

// RunTests checks the set and, if the servers find it clean, builds it and
// runs the project's tests in a shadow tree: the verdict with its run
// report.
func (s *Staging) RunTests(ctx context.Context) (*shadow.Result, error) {
	out, err := s.svc.Check(ctx, Specs(s.Set()), service.GateOptions{Run: true})
	if err != nil {
		return nil, err
	}
	if len(out.Stale) > 0 {
		return nil, &changeset.StaleError{Paths: out.Stale}
	}
	return out.Result, nil
}

// Specs turns a change set into the specs a service takes, each naming the
// content it was made from, so that a file changed on disk since it was
// staged is refused, not overwritten.
func Specs(set *changeset.Set) []changeset.Spec {
	var out []changeset.Spec
	for _, c := range set.Changes() {
		sp := changeset.Spec{Path: c.Path, Delete: c.Delete, BaseSHA256: changeset.Absent}
		if c.BaseExists {
			sp.BaseSHA256 = changeset.Hash(c.Base)
		}
		if !c.Delete {
			content := string(c.Content)
			sp.Content = &content
		}
		out = append(out, sp)
	}
	return out
}

func (s *Staging) emitValidating(set *changeset.Set, attempt, maxAttempts int) {
	s.events.Emit(event.Shadow{Attempt: attempt, MaxAttempts: maxAttempts, Files: set.Paths(), Stage: "validating", Commit: attempt > 0})
}

func (s *Staging) emitResult(set *changeset.Set, attempt, maxAttempts int, res *shadow.Result) {
	s.mu.Lock()
	s.last = res
	s.mu.Unlock()
	s.events.Emit(event.Shadow{
		Attempt: attempt, MaxAttempts: maxAttempts, Files: set.Paths(), Stage: "result", Verdict: string(res.Verdict),
		New: res.New, Preexisting: len(res.Preexisting), Summary: res.Summary(), Commit: attempt > 0, Run: res.Run,
	})
}

// stateReport is what the model reads after a turn's edits: the
// validation of the whole change set, and what to do about errors in
// files outside the plan.
func (s *Staging) stateReport(res *shadow.Result) string {
	var b strings.Builder
	paths := s.Paths()
	fmt.Fprintf(&b, "Validation of the whole change set after this turn's edits (%d %s: %s): ", len(paths), plural(len(paths), "file", "files"), strings.Join(paths, ", "))
	s.report(&b, res)
	if res.Verdict == shadow.Clean {
		b.WriteString("\nNo new errors so far. Continue with the plan, or commit when it is done.\n")
	}
	b.WriteString(s.outsideState(res))
	return b.String()
}

// report writes res for the model, listing pre-existing errors only for
// the files it has not been shown them for.
func (s *Staging) report(w io.Writer, res *shadow.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res.ModelReport(w, s.shown)
}

// outsideState advises on new errors in files outside the plan: a re-plan
// only when they remain with every file of the plan staged (before that
// they may be what the plan's remaining edits fix).
func (s *Staging) outsideState(res *shadow.Result) string {
	outside := outsidePlan(res, s.Allowed)
	if len(outside) == 0 {
		return ""
	}
	if pending := s.Unstaged(); len(pending) > 0 {
		return fmt.Sprintf("\n%d %s outside the plan %s new errors, but %d of the plan's files %s not staged yet (%s): those edits may fix them. If errors outside the plan remain once every file of the plan is staged, call request_replan.\n",
			len(outside), plural(len(outside), "file", "files"), plural(len(outside), "has", "have"), len(pending), plural(len(pending), "is", "are"), strings.Join(pending, ", "))
	}
	return outsideAdvice(outside)
}

// Unstaged returns the plan's files nothing has been staged for yet.
func (s *Staging) Unstaged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for p := range s.allowed {
		if _, ok := s.set.Get(p); !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
