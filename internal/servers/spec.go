// Package servers knows which language server checks which files, finds and
// starts them, keeps one running per (workspace, server), restarts them when
// they crash, and runs the check cycle each one needs: how to get a trusted
// "before" and "after" set of diagnostics out of a server differs by server,
// and that knowledge lives here.
package servers

import (
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"path/filepath"
	"strings"
)

// Mode is how a server delivers diagnostics, which decides how a check
// knows the server has finished with a change.
type Mode string

const (
	// ModePull: the client asks for each file's diagnostics
	// (textDocument/diagnostic); the answer reflects every change sent
	// before it. TypeScript 7's server and pyright.
	ModePull Mode = "pull"
	// ModePushProgress: the server pushes diagnostics for every affected
	// file, open or not, and brackets the work in "diagnosing" progress
	// reports (gopls with verboseWorkDoneProgress).
	ModePushProgress Mode = "push-progress"
	// ModePush: the server pushes, for open files only, with nothing that
	// marks the end of its work; a file counts as checked only once a
	// publish answers the version sent for it (see check_push.go). The
	// default for servers a user configures.
	ModePush Mode = "push"
	// ModeTSServer: TypeScript 6 or older through tsserver's own protocol,
	// which answers synchronously per file (see check_tsserver.go).
	ModeTSServer Mode = "tsserver"
)

// Spec describes one language server.
type Spec struct {
	// Name identifies the server ("gopls") in config, logs and output.
	Name string `json:"name" toml:"name"`
	// Command and Args start it; Command is looked up on PATH, in the
	// workspace's node_modules/.bin and in Anvil's tools directory.
	Command string   `json:"command" toml:"command"`
	Args    []string `json:"args,omitempty" toml:"args"`
	// Languages are the LSP language ids it serves (see [LanguageOf]).
	Languages []string `json:"languages" toml:"languages"`
	// RootMarkers are files that mark a project this server applies to;
	// informational for doctor, since Anvil roots servers at the workspace.
	RootMarkers []string `json:"root_markers,omitempty" toml:"root_markers"`
	// InitOptions is sent as initializationOptions; Settings answers
	// workspace/configuration.
	InitOptions map[string]any `json:"init_options,omitempty" toml:"init_options"`
	Settings    map[string]any `json:"settings,omitempty" toml:"settings"`
	// Mode is how it delivers diagnostics.
	Mode Mode `json:"mode" toml:"mode"`
	// ReportsDependants is true when the server itself reports every file a
	// change affects (gopls); otherwise Anvil finds the importers and asks
	// about them.
	ReportsDependants bool `json:"reports_dependants,omitempty" toml:"reports_dependants"`
	// LazyOpen is true for pull servers that apply a didOpen only when next
	// asked about that file (pyright): a dependant pulled right after a
	// file is opened with new content can still see the old one, so a
	// check opens changed files with their disk content, pulls them, and
	// only then sends the new content as a didChange.
	LazyOpen bool `json:"lazy_open,omitempty" toml:"lazy_open"`
	// PullOpen is true for pull servers whose answer for a closed file is
	// whatever their background analysis has so far (pyright: an empty
	// list right after start, measured): every file a check asks about is
	// opened first, which makes the answer computed on demand.
	PullOpen bool `json:"pull_open,omitempty" toml:"pull_open"`
	// ConfigOverlays are the configuration files (base-name patterns) the
	// server reads from an overlay; a change to another configuration file
	// of its languages cannot be checked before it is written.
	ConfigOverlays []string `json:"config_overlays,omitempty" toml:"config_overlays"`
	// Writes are the caches of the home the server writes (gopls: the go
	// command's); the policy shows it no other place of the home to
	// write. Anvil's own knowledge of its servers: no configuration file
	// sets it.
	Writes []execpolicy.Cache `json:"-" toml:"-"`
	// ReadsDiskIncludes is true for C/C++ servers that read every file but
	// the one asked about from disk (clangd 14): a file that includes a
	// changed file cannot be checked with overlays, and is compiled with
	// the change in a shadow tree instead.
	ReadsDiskIncludes bool `json:"reads_disk_includes,omitempty" toml:"reads_disk_includes"`
	// ResolvesFromDisk is true for servers whose import resolution sees
	// the files on disk only, not an overlay that creates or deletes one
	// (pyright 1.1.414, measured: a stub created beside its module as an
	// overlay leaves the module's importers resolving to the module, and
	// their errors through the stub unreported). A change that creates
	// or deletes a file with dependants is checked by the batch checker
	// over a shadow tree, where the file is really there, or is
	// unverified.
	ResolvesFromDisk bool `json:"resolves_from_disk,omitempty" toml:"resolves_from_disk"`
	// Env is added to the server's environment.
	Env []string `json:"env,omitempty" toml:"env"`

	// version is the TypeScript version the spec was chosen for, if any.
	version string
	// tsserver is the tsserver.js a ModeTSServer spec runs with node.
	tsserver string
	// quietDeprecations: Anvil's TypeScript checks in place of the
	// project's older one, so its batch tsc runs with ignoreDeprecations.
	// TypeScript 6 reports an option it deprecates (moduleResolution
	// node, baseUrl) as an error of the options, and tsc then checks no
	// file's types, which left every batch check of such a project
	// unverified (rxjs 7.8.2); the project's own compiler reports no such
	// error, and the flag changes nothing else that tsc reports.
	quietDeprecations bool
}

// LanguageOf returns the LSP language id of path, or "" when the file is not
// source code Anvil knows (Markdown, JSON, text...).
func LanguageOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++":
		return "cpp"
	case ".java":
		return "java"
	case ".rb":
		return "ruby"
	case ".cs":
		return "csharp"
	case ".php":
		return "php"
	case ".kt":
		return "kotlin"
	case ".swift":
		return "swift"
	case ".lua":
		return "lua"
	case ".zig":
		return "zig"
	}
	return ""
}

func (s Spec) serves(language string) bool {
	for _, l := range s.Languages {
		if l == language {
			return true
		}
	}
	return false
}
