package reach

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/resolve"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// keptResolver is the resolver of the last pass and the state it
// resolves, for the next pass over the same state: an agent's edits
// change files' contents, and resolving every import of a project of
// 1,500 files again at each check cost about 60 ms.
type keptResolver struct {
	mu       sync.Mutex
	key      [32]byte
	res      *resolve.Workspace
	projects *tsconfig.Projects
}

// resolverState is what a resolver's answers rest on, but for the
// project files its pass of the projects looked at (kept apart, see
// tsconfig.Projects.Current): the paths there are (with the change's),
// and every JSON and TOML file by stat (package.json; pyproject.toml and
// pyrightconfig.json, whose extraPaths and stubPath name where Python
// imports resolve).
func resolverState(files Files, paths []string) [32]byte {
	h := sha256.New()
	for _, rel := range paths {
		fmt.Fprintf(h, "%s\n", rel)
	}
	for _, rel := range files.Sorted() {
		if strings.HasSuffix(rel, ".json") || strings.HasSuffix(rel, ".toml") {
			st := files[rel]
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\n", rel, st.Size, st.ModTime, st.Digest)
		}
	}
	var key [32]byte
	h.Sum(key[:0])
	return key
}

// resolver returns a resolver for paths, and the pass of the projects it
// resolves with: the one kept when it was made for the same state and
// every project file its pass read is as it was (it is the caller's
// until keepResolver), else a new one; key is the state.
func (g *Graph) resolver(files Files, paths []string) (res *resolve.Workspace, projects *tsconfig.Projects, key [32]byte) {
	key = resolverState(files, paths)
	k := &g.resolved
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.res != nil && k.key == key && k.projects.Current() {
		res, projects = k.res, k.projects
		k.res, k.projects = nil, nil
		return res, projects, key
	}
	projects = g.projects.Pass()
	return resolve.New(g.root.Dir(), paths, projects), projects, key
}

// keepResolver keeps res, made for the state key, for the next pass.
func (g *Graph) keepResolver(key [32]byte, res *resolve.Workspace, projects *tsconfig.Projects) {
	k := &g.resolved
	k.mu.Lock()
	defer k.mu.Unlock()
	k.key, k.res, k.projects = key, res, projects
}
