package servers

import (
	"slices"
	"sync"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// baseline keeps the "before" answers of one disk state (named by
// [CheckRequest.BaselineKey]) as one server process gave them. A check
// writes it while it holds the server's turn; the strategy reads how much
// of it a check could reuse ([Server.BaselineHolds]) without the turn, so
// the answers are behind their own lock.
type baseline struct {
	mu      sync.Mutex
	answers map[string][]lsp.Diagnostic
}

func newBaseline() *baseline {
	return &baseline{answers: map[string][]lsp.Diagnostic{}}
}

// get returns the answer kept for path.
func (b *baseline) get(path string) ([]lsp.Diagnostic, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.answers[path]
	return d, ok
}

// put keeps the answer for path.
func (b *baseline) put(path string, d []lsp.Diagnostic) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.answers[path] = d
}

// holds counts the paths with an answer kept.
func (b *baseline) holds(paths []string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, p := range paths {
		if _, ok := b.answers[p]; ok {
			n++
		}
	}
	return n
}

// befores is where a cycle finds the "before" answers it need not ask:
// the server's own, kept for the disk state, and the files the project's
// batch checker found without an error at that state. Neither applies
// where a changed file's base is not the disk's content: the "before" is
// then not the disk state the two describe.
type befores struct {
	cache *baseline
	clean map[string]bool
}

// beforesFor returns the answers kept for req's disk state, as the
// server process c gave them.
func (s *Server) beforesFor(req CheckRequest, c backend) befores {
	if req.BaselineKey == "" || !basesOnDisk(req.Files) {
		return befores{cache: newBaseline()}
	}
	return befores{cache: s.baselineFor(req.BaselineKey, c), clean: req.CleanAtDisk}
}

// get returns the server's own "before" of path, if kept.
func (b befores) get(path string) ([]lsp.Diagnostic, bool) { return b.cache.get(path) }

// isClean reports whether the batch checker found path without an error.
func (b befores) isClean(path string) bool { return b.clean[path] }

// put keeps the server's answer for path.
func (b befores) put(path string, d []lsp.Diagnostic) { b.cache.put(path, d) }

// cleanSpares reports whether a cycle of mode spares the "before" of the
// files the batch checker found clean (CheckRequest.CleanAtDisk): a pull
// server takes it as no error; tsserver asks it only of those with an
// error after the change, which it can do where it can take the change
// back (editsOnly). Either way no file the server would find an error in
// before and after is judged by the batch checker's answer alone, bar a
// pull server's.
func cleanSpares(mode Mode, files []FileChange) bool {
	return mode == ModePull || (mode == ModeTSServer && EditsInPlace(files))
}

// BaselineHolds counts the files (absolute) whose "before" the server
// keeps for the disk state key: the questions a check of them at that
// state would not ask again. Zero for an empty key, another state, or a
// process other than the one that answered.
func (s *Server) BaselineHolds(key string, files []string) int {
	s.mu.Lock()
	b, same := s.baseline, key != "" && key == s.baselineKey && s.client != nil && s.client == s.baselineFrom
	s.mu.Unlock()
	if !same || b == nil {
		return 0
	}
	return b.holds(files)
}

// Questions counts what a check of req would ask the server: an "after"
// of each file to check, and a "before" of each that exists, but those
// it keeps for req's disk state, and those tsserver asks only where the
// "after" has an error (CheckRequest.NewErrorsOnly: counted as none) and
// those the batch checker found clean (CheckRequest.CleanAtDisk).
func (s *Server) Questions(req CheckRequest) int {
	afters := len(req.Dependants)
	asked := 0 // befores asked whatever is kept
	var before []string
	for _, f := range req.Files {
		if f.Config {
			continue
		}
		if !f.Delete {
			afters++
		}
		switch {
		case f.OldExists && s.resolved.Spec.LazyOpen:
			asked++ // pulled at its disk content in every check (check_pull.go)
		case f.OldExists:
			before = append(before, f.Path)
		}
	}
	// Only the "after" is asked where the "before" waits for an error
	// after the change: tsserver's edits, and a pull server's
	// (defersBefores).
	tsserverDefers := req.NewErrorsOnly && EditsInPlace(req.Files) && s.resolved.Spec.Mode == ModeTSServer
	if tsserverDefers || defersBefores(s.resolved.Spec, req) {
		return afters
	}
	before = append(before, req.Dependants...)
	if len(req.CleanAtDisk) > 0 && req.BaselineKey != "" && cleanSpares(s.resolved.Spec.Mode, req.Files) && basesOnDisk(req.Files) {
		before = slices.DeleteFunc(before, func(p string) bool { return req.CleanAtDisk[p] })
	}
	return afters + asked + len(before) - s.BaselineHolds(req.BaselineKey, before)
}
