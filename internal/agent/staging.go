package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/gate"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Staging is the Executor's change set: edits accumulate here, each one
// validated with the whole set so the model sees at once what it broke,
// in which file; nothing reaches the disk until a clean commit. It
// implements tools.Stager.
type Staging struct {
	root   *workspace.Root
	gate   *gate.Gate
	events event.Sink
	// allowed are the paths the Executor may write.
	allowed map[string]bool

	mu   sync.Mutex
	set  *changeset.Set
	last *shadow.Result
}

// NewStaging returns an empty change set that accepts writes to allowed.
func NewStaging(root *workspace.Root, g *gate.Gate, events event.Sink, allowed []string) *Staging {
	s := &Staging{root: root, gate: g, events: events, allowed: map[string]bool{}, set: changeset.New()}
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

// Stage adds changes and validates the whole set. A path outside the plan,
// or a file that cannot be staged (a directory, a binary file), refuses the
// whole call: nothing is staged.
func (s *Staging) Stage(ctx context.Context, specs []changeset.Spec) (string, error) {
	if err := s.apply(specs); err != nil {
		return "", err
	}
	res, err := s.Validate(ctx)
	if err != nil {
		return "", err
	}
	return s.stateReport(specs, res), nil
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
func (s *Staging) Validate(ctx context.Context) (*shadow.Result, error) {
	set := s.Set()
	s.emitValidating(set, 0, 0)
	// A staging check is the language servers' alone: the run stage, if
	// any, comes with the commit (or run_tests).
	res, err := s.gate.Plain().Check(ctx, set, 0)
	if err != nil {
		return nil, err
	}
	s.emitResult(set, 0, 0, res)
	return res, nil
}

// Commit validates the whole set through the gate as commit attempt of
// maxAttempts and writes it if clean, emitting the cycle.
func (s *Staging) Commit(ctx context.Context, attempt, maxAttempts int, message string) (gate.Outcome, error) {
	set := s.Set()
	s.emitValidating(set, attempt, maxAttempts)
	waiting := func(holder string) {
		s.events.Emit(event.Shadow{Attempt: attempt, MaxAttempts: maxAttempts, Files: set.Paths(), Stage: "waiting", Commit: true,
			Summary: "waiting for another Anvil run to finish committing in this workspace (" + holder + ")"})
	}
	out, err := s.gate.Commit(ctx, set, attempt, message, waiting)
	if out.Result != nil {
		s.emitResult(set, attempt, maxAttempts, out.Result)
	}
	return out, err
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

func (s *Staging) stateReport(specs []changeset.Spec, res *shadow.Result) string {
	var b strings.Builder
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Path)
	}
	fmt.Fprintf(&b, "staged %s; the change set now has %d %s.\n", strings.Join(names, ", "), s.Set().Len(), plural(s.Set().Len(), "file", "files"))
	fmt.Fprintf(&b, "Validation of the whole change set: ")
	res.Report(&b)
	if res.Verdict == shadow.Clean {
		b.WriteString("\nNo new errors so far. Continue with the plan, or commit when it is done.\n")
	}
	b.WriteString(outsideAdvice(outsidePlan(res, s.Allowed)))
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
