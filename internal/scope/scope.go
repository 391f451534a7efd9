// Package scope says which files a project's own checks cover: those a
// tsconfig.json includes (or every TypeScript file where no tsconfig.json
// governs), and for Python those pyright's configuration includes and does
// not exclude. The gate checks a file outside them only when it uses a
// changed file itself, and find_symbol looks there by text, since the
// servers do not.
package scope

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/pyconfig"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// Checks answers for one workspace. Its answers for Python are kept for
// its lifetime: make one per question (configurations change on disk).
type Checks struct {
	root     string
	projects *tsconfig.Projects
	python   map[string]*pyconfig.Config // by directory
}

// New returns the checks of the workspace at root (absolute), finding
// TypeScript projects with projects.
func New(root string, projects *tsconfig.Projects) *Checks {
	return &Checks{root: filepath.Clean(root), projects: projects, python: map[string]*pyconfig.Config{}}
}

// Outside returns "" when the project's own checks cover the workspace
// file rel, else which configuration leaves it out.
func (c *Checks) Outside(rel string) string {
	switch strings.ToLower(path.Ext(rel)) {
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
		abs := filepath.Join(c.root, filepath.FromSlash(rel))
		if c.projects.Owner(abs) != nil {
			return ""
		}
		if cfg := nearestTSConfig(c.root, filepath.Dir(abs)); cfg != "" {
			return relTo(c.root, cfg) + " does not include it"
		}
	case ".py", ".pyi":
		dir := path.Dir(rel)
		cfg, ok := c.python[dir]
		if !ok {
			cfg = pyconfig.Nearest(c.root, rel)
			c.python[dir] = cfg
		}
		if !cfg.Covers(rel) {
			return cfg.Describe() + " leaves it out"
		}
	}
	return ""
}

// nearestTSConfig returns the tsconfig.json (or jsconfig.json) nearest
// above dir, up to root, or "".
func nearestTSConfig(root, dir string) string {
	for {
		for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
			if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
				return filepath.Join(dir, name)
			}
		}
		if dir == root || !strings.HasPrefix(dir, root) || filepath.Dir(dir) == dir {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}

func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}
