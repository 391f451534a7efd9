// Package resolve maps the module specifiers a file imports to the
// workspace files the compiler would load for them, so that the files
// depending on a change can be found: TypeScript and JavaScript through
// relative paths, the tsconfig.json's baseUrl, paths and rootDirs, and
// the names of the workspace's own packages (npm, pnpm and yarn
// workspaces, with their exports maps, mapped back from build outputs to
// sources); Python through every import root of the workspace (the root,
// src layouts, the parents of top-level packages, pyright's extraPaths
// and execution environments).
//
// Resolution over-approximates rather than misses: where a specifier
// could name several files, all are returned, and a specifier that names
// neither a workspace file nor a known outside package is reported as
// unknown, so that the caller counts the importer as depending on
// anything.
package resolve

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// Workspace resolves specifiers against one state of a workspace's files
// (their paths, and the contents of its package.json and tsconfig
// files): it may be kept for later passes over the same state, and keeps
// its answers. It is not safe for concurrent use.
type Workspace struct {
	root     string
	exists   map[string]bool // workspace-relative, slash-separated
	projects *tsconfig.Projects
	owners   map[string]*tsconfig.Config // by importing file: asked once, not at each import
	// answers keeps ECMA's answers by importer and specifier, but for
	// those that looked into node_modules, which is not part of the
	// state a Workspace is made for.
	answers map[[2]string]ecmaAnswer

	packages map[string]string // workspace package name → its directory
	declared map[string]bool   // dependency names some package.json declares
	pkgJSON  map[string]*packageJSON
	pyRoots  []string
}

// New returns a resolver over files (workspace-relative paths) of the
// workspace at root (absolute). projects may be shared between calls; a
// pass of them (tsconfig.Projects.Pass) spares a stat per import.
func New(root string, files []string, projects *tsconfig.Projects) *Workspace {
	w := &Workspace{root: root, exists: make(map[string]bool, len(files)), projects: projects, owners: map[string]*tsconfig.Config{}, answers: map[[2]string]ecmaAnswer{},
		packages: map[string]string{}, declared: map[string]bool{}, pkgJSON: map[string]*packageJSON{}}
	for _, f := range files {
		w.exists[f] = true
	}
	for _, f := range files {
		if path.Base(f) != "package.json" {
			continue
		}
		p := w.packageJSON(path.Dir(f))
		if p == nil {
			continue
		}
		if p.Name != "" {
			w.packages[p.Name] = path.Dir(f)
		}
		for _, deps := range []map[string]string{p.Dependencies, p.DevDependencies, p.PeerDependencies, p.OptionalDependencies} {
			for name := range deps {
				w.declared[name] = true
			}
		}
	}
	w.pyRoots = pythonRoots(root, files, w.exists)
	return w
}

// Exists reports whether rel is one of the workspace's files.
func (w *Workspace) Exists(rel string) bool { return w.exists[rel] }

// Add makes rel (a file a change set creates) resolvable.
func (w *Workspace) Add(rel string) { w.exists[rel] = true }

type packageJSON struct {
	Name    string `json:"name"`
	Types   string `json:"types"`
	Typings string `json:"typings"`
	// TypesVersions maps a version range to subpath patterns and their
	// substitutions.
	TypesVersions        map[string]map[string][]string `json:"typesVersions"`
	Main                 string                         `json:"main"`
	Module               string                         `json:"module"`
	Exports              json.RawMessage                `json:"exports"`
	Imports              json.RawMessage                `json:"imports"`
	Dependencies         map[string]string              `json:"dependencies"`
	DevDependencies      map[string]string              `json:"devDependencies"`
	PeerDependencies     map[string]string              `json:"peerDependencies"`
	OptionalDependencies map[string]string              `json:"optionalDependencies"`
}

// packageJSON reads dir/package.json (dir workspace-relative), cached.
func (w *Workspace) packageJSON(dir string) *packageJSON {
	if p, ok := w.pkgJSON[dir]; ok {
		return p
	}
	var p *packageJSON
	if data, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(dir), "package.json")); err == nil {
		p = &packageJSON{}
		if json.Unmarshal(data, p) != nil {
			p = nil
		}
	}
	w.pkgJSON[dir] = p
	return p
}

func (w *Workspace) abs(rel string) string { return filepath.Join(w.root, filepath.FromSlash(rel)) }

// rel returns abs relative to the root, or "" if it is outside.
func (w *Workspace) rel(abs string) string {
	r, err := filepath.Rel(w.root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(r)
}
