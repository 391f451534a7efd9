package servers

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/tsconfig"
	"github.com/anvil-dev/anvil/internal/tsserver"
)

// Prepare starts the server if needed and has it load the project of
// files (absolute paths; those not on disk are skipped), so that a check
// run next measures the check, not the load: a TypeScript server loads a
// project on the first question about one of its files, which takes
// seconds on a large one. ctx bounds the start and the load, and should
// be far longer than a check's bound. Once a project is loaded, later
// calls for its files cost nothing. onWait is told when
// the call waits for the server's turn (nil: not told).
func (s *Server) Prepare(ctx context.Context, files []string, onWait func(what string)) error {
	release, err := s.acquire(ctx, onWait, false)
	if err != nil {
		return err
	}
	defer release()
	b, err := s.running(ctx)
	if err != nil {
		return err
	}
	probe, project := "", ""
	projectOf := s.projects()
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			if p := projectOf(f); !s.loaded(b, p) {
				probe, project = f, p
				break
			}
		}
	}
	if probe == "" {
		return nil
	}
	switch c := b.(type) {
	case *tsserver.Client:
		cy := &tsCycle{server: s, client: c}
		if err := cy.open(ctx, []tsserver.OpenFile{{File: probe, ProjectRootPath: s.root}}); err != nil {
			return err
		}
		_, err = c.ProjectInfo(ctx, probe, false)
		cy.restore(err != nil)
	case *lsp.Client:
		if s.resolved.Spec.Mode == ModePull {
			_, err = c.PullDiagnostics(ctx, lsp.URIFromPath(probe))
		}
	}
	if err != nil {
		return err
	}
	s.markLoaded(b, project)
	return nil
}

// Prepared reports whether Prepare has nothing left to do for files: the
// server runs and has loaded their projects.
func (s *Server) Prepared(files []string) bool {
	b := s.current()
	if b == nil || !b.Alive() {
		return false
	}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return s.loaded(b, s.projects()(f))
		}
	}
	return true
}

// projects returns what names the project a server loads for a file:
// for TypeScript, the tsconfig.json that includes it (a project is loaded
// once for all of its files: on date-fns, where each function has a
// directory of its own, asking a loaded project about a new directory's
// file cost 20-210 ms spent on nothing); otherwise, and for a file no
// tsconfig.json includes, its directory. The configurations are read
// once per call of projects.
func (s *Server) projects() func(file string) string {
	if !slices.ContainsFunc(s.resolved.Spec.Languages, isTypeScriptFamily) {
		return filepath.Dir
	}
	projects := tsconfig.NewProjects(s.root)
	return func(file string) string {
		if owner := projects.Owner(file); owner != nil {
			return owner.Path
		}
		return filepath.Dir(file)
	}
}

// loaded reports whether b has loaded project (see projects).
func (s *Server) loaded(b backend, project string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadedBy == b && s.loadedProjects[project]
}

func (s *Server) markLoaded(b backend, project string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadedBy != b {
		s.loadedBy, s.loadedProjects = b, map[string]bool{}
	}
	s.loadedProjects[project] = true
}
