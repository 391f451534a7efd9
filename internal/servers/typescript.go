package servers

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Engine chooses how projects pinned to TypeScript 6 or older are checked.
type Engine string

const (
	// EngineAuto: the project's own TypeScript through tsserver (the
	// exact compiler it pins, when installed); TypeScript 7 projects and
	// unpinned ones get the native server.
	EngineAuto Engine = "auto"
	// EngineNative: TypeScript 7's native server (tsc --lsp) for every
	// project. Faster, but a project pinned to an older TypeScript is then
	// checked by a different compiler, whose answers can differ.
	EngineNative Engine = "native"
	// EngineTSServer: tsserver for every project, TypeScript 7 ones
	// included (with the TypeScript 6 Anvil installs, since 7 has none).
	EngineTSServer Engine = "tsserver"
)

func isTypeScriptFamily(language string) bool {
	switch language {
	case "typescript", "typescriptreact", "javascript", "javascriptreact":
		return true
	}
	return false
}

// typeScriptCandidates keeps, of the TypeScript servers in specs, the one
// the engine and the project's TypeScript call for. The other is no
// fallback: it would check the project with a compiler it did not choose.
func (r *Registry) typeScriptCandidates(root string, specs []Spec) []Spec {
	major, _ := r.pins.of(root)
	useTSServer := major > 0 && major < 7
	switch r.engine {
	case EngineNative:
		useTSServer = false
	case EngineTSServer:
		useTSServer = true
	}
	var out []Spec
	for _, s := range specs {
		switch {
		case s.Name == "tsgo" && useTSServer, s.Name == "tsserver" && !useTSServer:
			continue
		}
		out = append(out, s)
	}
	return out
}

// ExplainTypeScript says which TypeScript server checks the workspace at
// root and why, for 'anvil doctor'.
func (r *Registry) ExplainTypeScript(root string) string {
	major, pinned := r.pins.of(root)
	engine := r.engine
	if engine == "" {
		engine = EngineAuto
	}
	var why string
	switch {
	case engine == EngineNative:
		why = "TypeScript 7's server checks every project"
	case engine == EngineTSServer:
		why = "tsserver checks every project"
	case major > 0 && major < 7:
		why = fmt.Sprintf("the project uses TypeScript %s, so that TypeScript's tsserver checks it when installed (the exact compiler, with answers per file); where TypeScript 7's answers for the project are the project's compiler's (proven on the unchanged tree, confirmed at a commit and the end of a turn), its tsc takes a change with many dependants and its server an edit of existing files; typescript_engine = native would check everything with TypeScript 7", pinned)
	case major >= 7:
		why = fmt.Sprintf("the project uses TypeScript %s: TypeScript 7's native server", pinned)
	default:
		why = "the project pins no TypeScript: TypeScript 7's native server, the fastest"
	}
	return "engine " + string(engine) + ": " + why
}

// withTSServer completes a tsserver spec with the tsserver.js to run: the
// project's own TypeScript when it has one (6 or older: 7 ships none),
// else the TypeScript 6 Anvil installs. The note says when the compiler
// that checks differs from the one the project pins. With no tsserver.js
// at all, the spec comes back without one and tried says where it looked.
func (r *Registry) withTSServer(root string, spec Spec) (Spec, string, string) {
	own := filepath.Join(root, "node_modules", "typescript", "lib", "tsserver.js")
	ownVersion := packageVersion(filepath.Join(root, "node_modules", "typescript", "package.json"))
	// The project's own tsserver runs the project's code (its
	// tsserver.js, and the plugins its tsconfig names, which tsserver
	// looks for beside itself): only in a trusted workspace.
	var untrusted error
	if fileExists(own) && majorOf(ownVersion) < 7 {
		untrusted = r.mayRun(root, own, fmt.Sprintf("the project's TypeScript %s (node_modules/typescript)", orUnknown(ownVersion)))
		if untrusted == nil {
			spec.tsserver, spec.version = own, ownVersion
			return spec, "", ""
		}
	}
	_, pinned := r.pins.of(root)
	var places []string
	places = append(places, own)
	if r.toolsDir != "" {
		legacy := filepath.Join(r.toolsDir, "ts-legacy", "node_modules", "typescript", "lib", "tsserver.js")
		places = append(places, legacy)
		if fileExists(legacy) {
			spec.tsserver = legacy
			spec.version = packageVersion(filepath.Join(r.toolsDir, "ts-legacy", "node_modules", "typescript", "package.json"))
			note := fmt.Sprintf("checked with TypeScript %s from Anvil's tools directory", spec.version)
			// In place of the project's older TypeScript, whose compiler
			// has no word against the options 6 deprecates: see
			// Spec.quietDeprecations.
			spec.quietDeprecations = olderTypeScript(ownVersion, pinned, majorOf(spec.version))
			switch {
			case untrusted != nil:
				note += fmt.Sprintf(", not the project's own: %v", untrusted)
			case pinned != "":
				note += fmt.Sprintf(", not the project's own (it pins typescript %s, which is not installed: run the package manager's install in the project to check with it)", pinned)
			case ownVersion != "":
				note += fmt.Sprintf(": the project's TypeScript %s has no tsserver", ownVersion)
			}
			return spec, note, ""
		}
	}
	if untrusted != nil {
		return spec, "", fmt.Sprintf("tsserver: %v; and no tsserver.js of Anvil's in %s", untrusted, strings.Join(places[1:], " or "))
	}
	return spec, "", fmt.Sprintf("tsserver: no tsserver.js in %s", strings.Join(places, " or "))
}

// olderTypeScript reports whether the project's TypeScript (installed, or
// else pinned) is of a major version below major.
func olderTypeScript(installed, pinned string, major int) bool {
	v := nonEmpty(installed, pinned)
	return majorOf(v) > 0 && majorOf(v) < major
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

// NativeCompiler returns TypeScript 7's compiler for the workspace at
// root, where it may stand in for the project's own batch checker while
// their answers agree (see internal/shadow/tsagree.go): under the auto
// engine, for a project that uses TypeScript 6 or older. It is found as
// the native server's binary is (a workspace's own copy only where the
// policy lets the workspace's programs run).
func (r *Registry) NativeCompiler(root string) (BatchCompiler, bool) {
	_, path, ok := r.native(root)
	if !ok {
		return BatchCompiler{}, false
	}
	return typeScript7Compiler(path, typeScriptVersionOf(path)), true
}

// ResolveNative returns TypeScript 7's server for language in the
// workspace at root, where it may stand in for the project's tsserver
// while the two compilers' answers agree: under the same conditions as
// NativeCompiler, whose proof it rests on.
func (r *Registry) ResolveNative(root, language string) (Resolved, bool) {
	spec, path, ok := r.native(root)
	if !ok || !spec.serves(language) {
		return Resolved{}, false
	}
	return Resolved{Spec: spec, Path: path, Env: r.env(spec), Contain: r.containment(spec)}, true
}

// native finds TypeScript 7's spec and binary for a project that could
// take it in place of its own TypeScript: one decision for the compiler
// and the server, so that they never stand in under different terms.
func (r *Registry) native(root string) (Spec, string, bool) {
	if r.engine != "" && r.engine != EngineAuto {
		return Spec{}, "", false
	}
	if major, _ := r.pins.of(root); major == 0 || major >= 7 {
		return Spec{}, "", false
	}
	for _, s := range r.specs {
		if s.Name != "tsgo" {
			continue
		}
		path, _ := r.find(root, s)
		if path == "" {
			return Spec{}, "", false
		}
		return s, path, true
	}
	return Spec{}, "", false
}
