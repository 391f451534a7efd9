package servers

import (
	"errors"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/state"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
			// Measured: an overlay of tsconfig.json or package.json changes
			// the diagnostics of the project's files at the next pull.
			ConfigOverlays: []string{"tsconfig.json", "tsconfig.*.json", "jsconfig.json", "jsconfig.*.json", "package.json"},
			// Measured by the gate fuzzer (TypeScript 7.0.2): an overlay
			// deleting a module that another re-exports (export * from),
			// or that an import finds through moduleSuffixes, leaves the
			// importer's TS2307 unreported, where tsc reports it; a named
			// import of it is reported. So a change that creates or
			// deletes a file with dependants goes to the batch checker.
			ResolvesFromDisk: true,
			// Like VS Code, the server reports the errors of the style checks
			// (noUnusedLocals, noImplicitReturns...) as warnings unless told
			// otherwise; tsc fails on them, and so must the gate.
			Settings: map[string]any{
				"typescript": map[string]any{"reportStyleChecksAsWarnings": false},
				"javascript": map[string]any{"reportStyleChecksAsWarnings": false},
				"js/ts":      map[string]any{"reportStyleChecksAsWarnings": false},
			},
		},
		{
			// For projects pinned to TypeScript 6 or older: their own
			// compiler's tsserver, through its own protocol, which answers
			// synchronously per file (typescript-language-server only pushes,
			// only for open files, after a debounce, and does not re-publish
			// unchanged diagnostics: it cannot show that it saw a change).
			Name: "tsserver", Command: "node",
			Languages:   []string{"typescript", "typescriptreact", "javascript", "javascriptreact"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			Mode:        ModeTSServer,
			// Measured (TypeScript 6.0.3, by the gate fuzzer on a project
			// pinned to 5.9.3): a module an importer could not resolve,
			// created as an open file, leaves the importer's TS2307 in
			// place (tsserver looks a failed import up again only when a
			// watcher reports the disk changed), so an error the new
			// module brings into the importer went unreported; a deleted
			// module, given as an empty module, hides TS2307 from a
			// side-effect import. As for TypeScript 7's server, a change
			// that creates or deletes a file with dependants goes to the
			// batch checker.
			ResolvesFromDisk: true,
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
			ConfigOverlays:    []string{"go.mod", "go.work"},
			Writes:            []execpolicy.Cache{execpolicy.GoCaches},
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
			Mode:             ModePull,
			LazyOpen:         true,
			PullOpen:         true,
			ResolvesFromDisk: true,
		},
		{
			// Debian 12's clangd 14, measured: no pull diagnostics
			// (textDocument/diagnostic is "method not found"), pushes
			// labelled with the version sent once the client advertises
			// versionSupport, and reads other files (headers) from disk
			// only, so a translation unit that includes a changed header is
			// checked by the compiler in a shadow tree (see
			// internal/shadow/cfamily.go). The background index would
			// write .cache/clangd into the user's tree, so the symbol tools
			// open the translation units that can see a symbol (see
			// internal/tools/cunits.go). clangd 14 refuses a rename that
			// touches more than 50 files (the limit has no flag before 15).
			Name: "clangd", Command: "clangd", Args: []string{"--background-index=false", "--log=error"},
			Languages:         []string{"c", "cpp"},
			RootMarkers:       []string{"compile_commands.json", "compile_flags.txt"},
			Mode:              ModePush,
			ReadsDiskIncludes: true,
			Writes:            []execpolicy.Cache{execpolicy.ClangdCache},
		},
	}
}

// Registry picks the server for a language in a workspace and finds its
// binary.
type Registry struct {
	specs    []Spec
	toolsDir string
	engine   Engine
	lookPath func(string) (string, error)
	policy   *execpolicy.Policy
	pins     typeScriptPins
}

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// Overrides replace built-in specs of the same name field by field and
	// add new ones; they are preferred over built-ins for their languages.
	Overrides []Spec
	// ToolsDir is Anvil's own tools directory (binaries in ToolsDir/bin).
	ToolsDir string
	// TypeScriptEngine chooses the server for projects pinned to
	// TypeScript 6 or older; "" means EngineAuto.
	TypeScriptEngine Engine
	// LookPath finds commands on PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Policy says whether the workspace's own programs
	// (node_modules/.bin, its TypeScript) may run; nil trusts no
	// workspace.
	Policy *execpolicy.Policy
}

// NewRegistry returns a registry of the built-in specs plus overrides.
func NewRegistry(opts RegistryOptions) *Registry {
	r := &Registry{toolsDir: opts.ToolsDir, engine: opts.TypeScriptEngine, lookPath: opts.LookPath, policy: opts.Policy}
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
	if o.PullOpen {
		d.PullOpen = true
	}
	if o.ReportsDependants {
		d.ReportsDependants = true
	}
	if o.Env != nil {
		d.Env = o.Env
	}
	if o.ConfigOverlays != nil {
		d.ConfigOverlays = o.ConfigOverlays
	}
	if o.ReadsDiskIncludes {
		d.ReadsDiskIncludes = true
	}
	if o.ResolvesFromDisk {
		d.ResolvesFromDisk = true
	}
	return d
}

// Specs returns every known spec, overrides first.
func (r *Registry) Specs() []Spec { return append([]Spec(nil), r.specs...) }

// Resolved is a spec with the binary that will run it.
type Resolved struct {
	Spec Spec
	Path string
	// Note tells the user something about the choice that bears on the
	// verdicts (a compiler other than the one the project pins).
	Note string
	// Env is the server's whole environment: the policy's for programs
	// on the host, with the spec's own variables (nil without a policy).
	Env []string
	// Contain keeps the server from the places no program may see (nil
	// without a policy, or one without a helper).
	Contain *proc.Containment
}

// env is the environment spec's server runs with. A server is a program
// that follows the workspace's links and includes wherever they point,
// so it gets what locates the toolchains, never the keys and sockets of
// Anvil's own environment.
func (r *Registry) env(spec Spec) []string {
	if r.policy == nil {
		return slices.Clone(spec.Env)
	}
	return r.policy.Env(spec.Env...)
}

// NoServerError says no usable server was found for a language.
type NoServerError struct {
	Language string
	// Servers names the servers that would serve the language here, in the
	// order they were looked for; Tried says what was looked for, and where.
	Servers []string
	Tried   []string
	// Fix says what the user can do, in the words 'anvil doctor' uses.
	Fix string
}

func (e *NoServerError) Error() string {
	if len(e.Tried) == 0 {
		return fmt.Sprintf("no language server is configured for %s; %s", e.Language, e.Fix)
	}
	return fmt.Sprintf("no language server found for %s (tried %s); %s", e.Language, strings.Join(e.Tried, "; "), e.Fix)
}

// InstallFix is the fix for a server that is not installed.
func InstallFix(toolsDir, server string) string {
	if server == "clangd" {
		return "install Debian's clangd (apt-get install clangd, or scripts/install-deps.sh), or set command in [servers.clangd] of your config file (~/.config/anvil/config.toml, or the project's .anvil/config.toml once trusted_projects lists the workspace) to the binary"
	}
	return fmt.Sprintf("run scripts/install-servers.sh (it installs the servers into %s/bin), or set command in [servers.%s] of your config file (~/.config/anvil/config.toml, or the project's .anvil/config.toml once trusted_projects lists the workspace) to the binary", toolsDir, server)
}

// ConfigureFix is the fix for a language no server is configured for.
func ConfigureFix(language string) string {
	return fmt.Sprintf("add a [servers.NAME] table with command and languages = [%q] to your config file (~/.config/anvil/config.toml, or the project's .anvil/config.toml once trusted_projects lists the workspace)", language)
}

// TSServerFix is the fix for a project whose TypeScript has no tsserver.
const TSServerFix = "run the package manager's install in the project (npm install, pnpm install, yarn) so that its own TypeScript checks it, or scripts/install-servers.sh for Anvil's TypeScript 6 (set ANVIL_TOOLS_DIR if the tools are elsewhere)"

// Resolve returns the server for language in the workspace at root.
func (r *Registry) Resolve(root, language string) (Resolved, error) {
	noServer := &NoServerError{Language: language, Fix: ConfigureFix(language)}
	for _, spec := range r.candidates(root, language) {
		path, tried := r.find(root, spec)
		if path != "" && spec.Mode == ModeTSServer {
			var note string
			spec, note, tried = r.withTSServer(root, spec)
			if spec.tsserver != "" {
				return Resolved{Spec: spec, Path: path, Note: note, Env: r.env(spec), Contain: r.containment(spec)}, nil
			}
			path = ""
		}
		if path != "" {
			return Resolved{Spec: spec, Path: path, Env: r.env(spec), Contain: r.containment(spec)}, nil
		}
		if len(noServer.Servers) == 0 {
			noServer.Fix = InstallFix(r.toolsDir, spec.Name)
			if spec.Mode == ModeTSServer && strings.Contains(tried, "tsserver.js") {
				noServer.Fix = TSServerFix
			}
		}
		noServer.Servers = append(noServer.Servers, spec.Name)
		noServer.Tried = append(noServer.Tried, tried)
	}
	return Resolved{}, noServer
}

// candidates lists the specs for language in preference order. For
// TypeScript and JavaScript the engine and the project's pinned TypeScript
// decide between the native server and tsserver (see typescript.go).
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
	return r.typeScriptCandidates(root, out)
}

// find locates spec's binary: on PATH, in root's node_modules/.bin, then in
// the tools directory. For tsc, only a TypeScript 7 binary qualifies, since
// older tsc has no --lsp. A binary in the workspace (node_modules/.bin, a
// relative command) runs only where the policy lets the workspace's own
// programs run. It returns "" and a description of the search when
// nothing fits.
func (r *Registry) find(root string, spec Spec) (string, string) {
	cmd := spec.Command
	if strings.ContainsRune(cmd, filepath.Separator) {
		if !filepath.IsAbs(cmd) {
			cmd = filepath.Join(root, cmd)
		}
		if !fileExists(cmd) {
			return "", fmt.Sprintf("%s: %s does not exist", spec.Name, cmd)
		}
		if err := r.mayRun(root, cmd, spec.Name+" "+cmd); err != nil {
			return "", err.Error()
		}
		return cmd, ""
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
		if err := r.mayRun(root, p, p); err != nil {
			rejected = append(rejected, err.Error())
			continue
		}
		if spec.Name == "tsgo" {
			if v := typeScriptVersionOf(p); majorOf(v) < 7 {
				rejected = append(rejected, fmt.Sprintf("%s is TypeScript %s (the native server needs TypeScript 7)", p, orUnknown(v)))
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
		desc += "; rejected " + strings.Join(rejected, ", ")
	}
	return "", desc
}

// containment is how the policy keeps a server from what it must not
// see, and from writing any cache but its own.
func (r *Registry) containment(spec Spec) *proc.Containment {
	if r.policy == nil {
		return nil
	}
	return r.policy.Containment(spec.Writes...)
}

// mayRun asks the policy whether the program at path may run for the
// workspace at root.
func (r *Registry) mayRun(root, path, what string) error {
	p := r.policy
	if p == nil {
		p = execpolicy.New(execpolicy.Options{Root: root})
	}
	return p.Program(execpolicy.Origin{What: what, Path: path})
}

func orUnknown(v string) string {
	if v == "" {
		return "of unknown version"
	}
	return v
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
// ~/.local/share/anvil/tools. getenv reads the environment Anvil started with.
func DefaultToolsDir(getenv func(string) string) string {
	if d := getenv("ANVIL_TOOLS_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "anvil", "tools")
	}
	return filepath.Join(state.Home(getenv), ".local", "share", "anvil", "tools")
}
