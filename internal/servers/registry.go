package servers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Defaults returns the built-in server specs. The measured facts behind each
// setting are in ARCHITECTURE.md.
func Defaults() []Spec {
	return []Spec{
		{
			// TypeScript 7's native server: pull-only, answers for files
			// that are not open, a few milliseconds per warm check.
			Name: "tsgo", Command: "tsc", Args: []string{"--lsp", "--stdio"},
			Languages:   []string{"typescript", "typescriptreact", "javascript", "javascriptreact"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			Mode:        ModePull,
		},
		{
			// For projects pinned to TypeScript 6 or older. It only pushes,
			// only for open files, after a 300 ms debounce.
			Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
			Languages:   []string{"typescript", "typescriptreact", "javascript", "javascriptreact"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			Mode:        ModePush,
			// Its diagnostics come 300–800 ms after a change (a debounce that
			// grows with file length) plus a 50 ms publish delay.
			Quiet: time.Second,
		},
		{
			// diagnosticsDelay 0 makes gopls diagnose importers in other
			// packages at once instead of after 1 s; verbose progress gives
			// the "diagnosing" reports the check waits on.
			Name: "gopls", Command: "gopls",
			Languages:         []string{"go"},
			RootMarkers:       []string{"go.mod", "go.work"},
			InitOptions:       map[string]any{"diagnosticsDelay": "0s", "verboseWorkDoneProgress": true},
			Mode:              ModePushProgress,
			ReportsDependants: true,
		},
		{
			// Workspace mode: in the default open-files-only mode a pull for
			// a closed file returns an empty list that looks clean but is not.
			Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"},
			Languages:   []string{"python"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "requirements.txt"},
			Settings: map[string]any{"python": map[string]any{"analysis": map[string]any{
				"diagnosticMode": "workspace", "autoSearchPaths": true, "useLibraryCodeForTypes": true,
			}}},
			Mode:     ModePull,
			LazyOpen: true,
		},
	}
}

// Registry picks the server for a language in a workspace and finds its
// binary.
type Registry struct {
	specs    []Spec
	toolsDir string
	lookPath func(string) (string, error)
}

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// Overrides replace built-in specs of the same name field by field and
	// add new ones; they are preferred over built-ins for their languages.
	Overrides []Spec
	// ToolsDir is Anvil's own tools directory (binaries in ToolsDir/bin).
	ToolsDir string
	// LookPath finds commands on PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

// NewRegistry returns a registry of the built-in specs plus overrides.
func NewRegistry(opts RegistryOptions) *Registry {
	r := &Registry{toolsDir: opts.ToolsDir, lookPath: opts.LookPath}
	if r.lookPath == nil {
		r.lookPath = exec.LookPath
	}
	defaults := Defaults()
	used := map[string]bool{}
	for _, o := range opts.Overrides {
		merged := o
		for _, d := range defaults {
			if d.Name == o.Name {
				merged = merge(d, o)
				used[d.Name] = true
			}
		}
		r.specs = append(r.specs, merged)
	}
	for _, d := range defaults {
		if !used[d.Name] {
			r.specs = append(r.specs, d)
		}
	}
	return r
}

// merge lays the set fields of o over d.
func merge(d, o Spec) Spec {
	if o.Command != "" {
		d.Command = o.Command
	}
	if o.Args != nil {
		d.Args = o.Args
	}
	if o.Languages != nil {
		d.Languages = o.Languages
	}
	if o.RootMarkers != nil {
		d.RootMarkers = o.RootMarkers
	}
	if o.InitOptions != nil {
		d.InitOptions = o.InitOptions
	}
	if o.Settings != nil {
		d.Settings = o.Settings
	}
	if o.Mode != "" {
		d.Mode = o.Mode
	}
	if o.LazyOpen {
		d.LazyOpen = true
	}
	if o.ReportsDependants {
		d.ReportsDependants = true
	}
	if o.Quiet != 0 {
		d.Quiet = o.Quiet
	}
	if o.Env != nil {
		d.Env = o.Env
	}
	return d
}

// Specs returns every known spec, overrides first.
func (r *Registry) Specs() []Spec { return append([]Spec(nil), r.specs...) }

// Resolved is a spec with the binary that will run it.
type Resolved struct {
	Spec Spec
	Path string
}

// NoServerError says no usable server was found for a language.
type NoServerError struct {
	Language string
	// Servers names the servers that would serve the language here, in the
	// order they were looked for; Tried says what was looked for, and where.
	Servers []string
	Tried   []string
}

func (e *NoServerError) Error() string {
	if len(e.Tried) == 0 {
		return fmt.Sprintf("no language server is configured for %s", e.Language)
	}
	return fmt.Sprintf("no language server found for %s (tried %s); run scripts/install-servers.sh or see 'anvil doctor'",
		e.Language, strings.Join(e.Tried, "; "))
}

// Resolve returns the server for language in the workspace at root.
func (r *Registry) Resolve(root, language string) (Resolved, error) {
	noServer := &NoServerError{Language: language}
	for _, spec := range r.candidates(root, language) {
		path, tried := r.find(root, spec)
		if path != "" {
			return Resolved{Spec: spec, Path: path}, nil
		}
		noServer.Servers = append(noServer.Servers, spec.Name)
		noServer.Tried = append(noServer.Tried, tried)
	}
	return Resolved{}, noServer
}

// candidates lists the specs for language in preference order. For
// TypeScript and JavaScript the project's pinned TypeScript decides: 7 or
// unpinned runs the native server; 6 or older runs typescript-language-server
// with that TypeScript's tsserver.
func (r *Registry) candidates(root, language string) []Spec {
	var out []Spec
	for _, s := range r.specs {
		if s.serves(language) {
			out = append(out, s)
		}
	}
	if !isTypeScriptFamily(language) {
		return out
	}
	// The other TypeScript server is no fallback: it would check the project
	// with a TypeScript the project does not use.
	major, version := projectTypeScript(root)
	legacy := major > 0 && major < 7
	var chosen []Spec
	for _, s := range out {
		switch {
		case s.Name == "tsgo" && legacy, s.Name == "typescript-language-server" && !legacy:
			continue
		case s.Name == "typescript-language-server":
			s.InitOptions = withTSServer(s.InitOptions, r.tsserverPath(root))
			s.version = version
		}
		chosen = append(chosen, s)
	}
	return chosen
}

func isTypeScriptFamily(language string) bool {
	switch language {
	case "typescript", "typescriptreact", "javascript", "javascriptreact":
		return true
	}
	return false
}

func withTSServer(opts map[string]any, tsserver string) map[string]any {
	out := map[string]any{}
	for k, v := range opts {
		out[k] = v
	}
	if tsserver != "" {
		out["tsserver"] = map[string]any{"path": tsserver}
	}
	return out
}

// tsserverPath is the tsserver.js that typescript-language-server should
// run: the project's own, else the TypeScript 6 Anvil installs beside it.
func (r *Registry) tsserverPath(root string) string {
	own := filepath.Join(root, "node_modules", "typescript", "lib", "tsserver.js")
	if fileExists(own) {
		return own
	}
	if r.toolsDir != "" {
		legacy := filepath.Join(r.toolsDir, "ts-legacy", "node_modules", "typescript", "lib", "tsserver.js")
		if fileExists(legacy) {
			return legacy
		}
	}
	return ""
}

// find locates spec's binary: on PATH, in root's node_modules/.bin, then in
// the tools directory. For tsc, only a TypeScript 7 binary qualifies, since
// older tsc has no --lsp. It returns "" and a description of the search
// when nothing fits.
func (r *Registry) find(root string, spec Spec) (string, string) {
	cmd := spec.Command
	if strings.ContainsRune(cmd, filepath.Separator) {
		if !filepath.IsAbs(cmd) {
			cmd = filepath.Join(root, cmd)
		}
		if fileExists(cmd) {
			return cmd, ""
		}
		return "", fmt.Sprintf("%s: %s does not exist", spec.Name, cmd)
	}
	var places []string
	if p, err := r.lookPath(cmd); err == nil {
		places = append(places, p)
	}
	places = append(places, filepath.Join(root, "node_modules", ".bin", cmd))
	if r.toolsDir != "" {
		places = append(places, filepath.Join(r.toolsDir, "bin", cmd))
	}
	var rejected []string
	for _, p := range places {
		if !fileExists(p) {
			continue
		}
		if spec.Name == "tsgo" {
			if v := typeScriptVersionOf(p); majorOf(v) < 7 {
				rejected = append(rejected, fmt.Sprintf("%s is TypeScript %s", p, orUnknown(v)))
				continue
			}
		}
		return p, ""
	}
	desc := fmt.Sprintf("%s: %q on PATH, in node_modules/.bin", spec.Name, cmd)
	if r.toolsDir != "" {
		desc += " and in " + filepath.Join(r.toolsDir, "bin")
	}
	if len(rejected) > 0 {
		desc += "; rejected " + strings.Join(rejected, ", ") + " (the native server needs TypeScript 7)"
	}
	return "", desc
}

func orUnknown(v string) string {
	if v == "" {
		return "of unknown version"
	}
	return v
}

// projectTypeScript returns the major version (0 if none) and version text
// of the TypeScript the project uses: the installed node_modules/typescript
// if present, else the range pinned in package.json.
func projectTypeScript(root string) (int, string) {
	if v := packageVersion(filepath.Join(root, "node_modules", "typescript", "package.json")); v != "" {
		return majorOf(v), v
	}
	data, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return 0, ""
	}
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return 0, ""
	}
	spec := pkg.DevDependencies["typescript"]
	if spec == "" {
		spec = pkg.Dependencies["typescript"]
	}
	return majorOf(spec), spec
}

// typeScriptVersionOf finds the version of the TypeScript package a tsc
// binary belongs to, following its symlink (node_modules/.bin/tsc →
// ../typescript/bin/tsc) up to the package.json.
func typeScriptVersionOf(bin string) string {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	dir := filepath.Dir(real)
	for range 3 {
		if v := packageVersion(filepath.Join(dir, "package.json")); v != "" {
			return v
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

func packageVersion(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var pkg struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Name != "typescript" {
		return ""
	}
	return pkg.Version
}

// majorOf reads the major version from a version or an npm range
// ("7.0.2", "^5.4.0", "~6.0", ">=5"); 0 when there is none ("latest", "*").
func majorOf(v string) int {
	v = strings.TrimLeft(v, "^~>=v ")
	digits := v
	if i := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = v[:i]
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0
	}
	return n
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

// IsNoServer reports whether err says no server was available.
func IsNoServer(err error) bool {
	var ns *NoServerError
	return errors.As(err, &ns)
}

// DefaultToolsDir is where scripts/install-servers.sh puts servers:
// $ANVIL_TOOLS_DIR, else $XDG_DATA_HOME/anvil/tools, else
// ~/.local/share/anvil/tools. getenv is os.Getenv outside tests.
func DefaultToolsDir(getenv func(string) string) string {
	if d := getenv("ANVIL_TOOLS_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "anvil", "tools")
	}
	return filepath.Join(getenv("HOME"), ".local", "share", "anvil", "tools")
}
