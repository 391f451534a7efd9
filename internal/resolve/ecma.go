package resolve

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// ECMA returns the workspace files the TypeScript or JavaScript file from
// (workspace-relative) loads for spec. known is false when spec names
// neither a workspace file nor a package from outside the workspace (an
// installed one, one a package.json declares, or a Node built-in): the
// importer may depend on anything.
func (w *Workspace) ECMA(from, spec string) (targets []string, known bool) {
	key := [2]string{from, spec}
	if a, ok := w.answers[key]; ok {
		return slices.Clone(a.targets), a.known
	}
	targets, known, keep := w.ecma(from, spec)
	if keep {
		w.answers[key] = ecmaAnswer{slices.Clone(targets), known}
	}
	return targets, known
}

// ecmaAnswer is what ECMA answered for an importer and a specifier.
type ecmaAnswer struct {
	targets []string
	known   bool
}

// ecma is ECMA's answer, and whether it may be kept: one that asked
// whether a package is installed may not, since node_modules is not part
// of the state a Workspace is made for.
func (w *Workspace) ecma(from, spec string) (targets []string, known, keep bool) {
	if isBuiltin(spec) {
		return nil, true, true
	}
	dir := path.Dir(from)
	cfg := w.owner(from)
	suffixes := moduleSuffixes(cfg)
	if isRelative(spec) {
		p := path.Join(dir, spec)
		out := w.files(p, suffixes)
		if w.exists[path.Join(p, "package.json")] {
			// A directory with a package.json: its types, typings or
			// typesVersions name the file.
			if ts, ok := w.inPackage(p, ""); ok {
				out = appendNew(out, ts...)
			}
		}
		return appendNew(out, w.viaRootDirs(cfg, dir, spec, suffixes)...), true, true
	}
	if cfg != nil {
		if ts, ok := w.viaPaths(cfg, spec, suffixes); ok {
			return ts, true, true
		}
		if cfg.BaseURL != "" {
			if rel := w.rel(filepath.Join(cfg.BaseURL, filepath.FromSlash(spec))); rel != "" {
				if ts := w.files(rel, suffixes); len(ts) > 0 {
					return ts, true, true
				}
			}
		}
	}
	if strings.HasPrefix(spec, "#") {
		targets, known = w.viaImports(dir, spec)
		return targets, known, true
	}
	name, sub := splitPackage(spec)
	if pkgDir, ok := w.packages[name]; ok {
		targets, known = w.inPackage(pkgDir, sub)
		return targets, known, true
	}
	if w.declared[name] {
		return nil, true, true
	}
	return nil, w.installed(dir, name), false
}

// owner is the project that compiles from.
func (w *Workspace) owner(from string) *tsconfig.Config {
	cfg, ok := w.owners[from]
	if !ok {
		cfg = w.projects.Owner(w.abs(from))
		w.owners[from] = cfg
	}
	return cfg
}

// moduleSuffixes returns the suffixes a project tries before each
// extension, "" always among them: taking every one the compiler could
// try, whatever their order, over-approximates which file it loads.
func moduleSuffixes(cfg *tsconfig.Config) []string {
	out := []string{""}
	if cfg != nil {
		for _, s := range cfg.ModuleSuffixes {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// files resolves a module path (workspace-relative, without or with an
// extension) to every source file it may name: the file itself, the
// TypeScript source or declaration file an emitted name stands for
// (./a.js is a.ts, or a.d.ts beside a.js), with a module suffix, an
// extension or an index file added. The compiler loads the first that
// exists; all of them are returned, since which one is first can change
// with a file the change set creates, deletes or renames, and a file the
// compiler reads that Anvil leaves out would pass a break as clean.
func (w *Workspace) files(p string, suffixes []string) []string {
	var out []string
	for _, c := range sourceCandidates(path.Clean(p), suffixes) {
		if w.exists[c] {
			out = appendNew(out, c)
		}
	}
	return out
}

// file is the first of files (one source a build output stands for).
func (w *Workspace) file(p string) string {
	if fs := w.files(p, []string{""}); len(fs) > 0 {
		return fs[0]
	}
	return ""
}

var ecmaExts = []string{".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

// outputs maps an emitted extension to the sources that produce it, in
// a fixed order.
var outputs = []struct {
	emitted string
	sources []string
}{
	{".d.ts", []string{".ts", ".tsx"}}, {".js", []string{".ts", ".tsx", ".d.ts"}}, {".jsx", []string{".tsx"}},
	{".mjs", []string{".mts", ".d.mts"}}, {".cjs", []string{".cts", ".d.cts"}},
}

func sourceCandidates(p string, suffixes []string) []string {
	out := []string{p}
	for _, sfx := range suffixes {
		for _, o := range outputs {
			if strings.HasSuffix(p, o.emitted) {
				for _, s := range o.sources {
					out = append(out, strings.TrimSuffix(p, o.emitted)+sfx+s)
				}
			}
		}
		for _, ext := range ecmaExts {
			out = append(out, p+sfx+ext)
		}
		for _, ext := range ecmaExts {
			out = append(out, p+"/index"+sfx+ext)
		}
	}
	return out
}

// viaRootDirs tries a relative specifier in every root directory the
// project merges into one (rootDirs), as the compiler does.
func (w *Workspace) viaRootDirs(cfg *tsconfig.Config, dir, spec string, suffixes []string) []string {
	if cfg == nil || len(cfg.RootDirs) == 0 {
		return nil
	}
	absDir := w.abs(dir)
	var out []string
	for _, rd := range cfg.RootDirs {
		rest, ok := strings.CutPrefix(absDir, rd)
		if !ok {
			continue
		}
		for _, other := range cfg.RootDirs {
			if rel := w.rel(filepath.Join(other, rest, filepath.FromSlash(spec))); rel != "" {
				out = appendNew(out, w.files(rel, suffixes)...)
			}
		}
	}
	return out
}

// viaPaths maps spec through the project's paths: the longest matching
// pattern wins, and the compiler takes the first of its substitutions
// that exists; every one that exists is returned (a created file can
// take the name over).
func (w *Workspace) viaPaths(cfg *tsconfig.Config, spec string, suffixes []string) ([]string, bool) {
	best, bestLen, star := "", -1, ""
	for pat := range cfg.Paths {
		prefix, suffix, wild := strings.Cut(pat, "*")
		switch {
		case !wild && pat == spec:
			if len(pat) > bestLen {
				best, bestLen, star = pat, len(pat), ""
			}
		case wild && strings.HasPrefix(spec, prefix) && strings.HasSuffix(spec, suffix) && len(spec) >= len(prefix)+len(suffix):
			if len(prefix) > bestLen {
				best, bestLen, star = pat, len(prefix), spec[len(prefix):len(spec)-len(suffix)]
			}
		}
	}
	if bestLen < 0 {
		return nil, false
	}
	var out []string
	for _, sub := range cfg.Paths[best] {
		if rel := w.rel(strings.Replace(sub, "*", filepath.FromSlash(star), 1)); rel != "" {
			out = appendNew(out, w.files(rel, suffixes)...)
		}
	}
	// A pattern matched but none of its substitutions exists here: the
	// compiler falls back to other resolution, so this says nothing.
	return out, len(out) > 0
}

// viaImports resolves a "#name" specifier through the "imports" field of
// the nearest package.json above dir.
func (w *Workspace) viaImports(dir, spec string) ([]string, bool) {
	for d := dir; ; d = path.Dir(d) {
		if p := w.packageJSON(d); p != nil {
			if len(p.Imports) == 0 {
				return nil, false
			}
			return w.mapTargets(d, conditionalTargets(p.Imports, spec))
		}
		if d == "." {
			return nil, false
		}
	}
}

// inPackage resolves sub (a subpath, "" for the package itself) of the
// workspace package in pkgDir. Which of exports, typesVersions, types,
// typings, module and main the compiler reads depends on the importer's
// moduleResolution and conditions, so every one that names a workspace
// file is a target; exports (or the fields) decide whether the specifier
// is known.
func (w *Workspace) inPackage(pkgDir, sub string) ([]string, bool) {
	p := w.packageJSON(pkgDir)
	if p == nil {
		return nil, false
	}
	key := "."
	if sub != "" {
		key = "./" + sub
	}
	var out []string
	var known bool
	switch {
	case len(p.Exports) > 0 && string(p.Exports) != "null":
		out, known = w.mapTargets(pkgDir, conditionalTargets(p.Exports, key))
		if sub == "" {
			out = w.alsoTargets(pkgDir, out, p.Types, p.Typings)
		}
	case sub != "":
		out, known = w.mapTargets(pkgDir, []string{"./" + sub})
	default:
		var fields []string
		for _, f := range []string{p.Types, p.Typings, p.Module, p.Main} {
			if f != "" {
				fields = append(fields, f)
			}
		}
		if len(fields) == 0 {
			fields = []string{"./index"}
		}
		out, known = w.mapTargets(pkgDir, fields)
	}
	// typesVersions redirects the subpath (or, for the package itself, its
	// types field) for some compiler versions.
	request := sub
	if request == "" {
		request = strings.TrimPrefix(path.Clean(p.Types+p.Typings), "./")
		if p.Types == "" && p.Typings == "" {
			request = "index"
		}
	}
	for _, m := range p.TypesVersions {
		for pat, subs := range m {
			if star, ok := matchStar(pat, request); ok {
				for _, s := range subs {
					out = w.alsoTargets(pkgDir, out, strings.Replace(s, "*", star, 1))
				}
			}
		}
	}
	return out, known || len(out) > 0
}

// alsoTargets adds the workspace files behind extra package targets, where
// they exist.
func (w *Workspace) alsoTargets(pkgDir string, out []string, targets ...string) []string {
	for _, t := range targets {
		if t == "" {
			continue
		}
		if ts, ok := w.mapTargets(pkgDir, []string{t}); ok {
			out = appendNew(out, ts...)
		}
	}
	sort.Strings(out)
	return out
}

// matchStar matches s against a pattern with at most one "*", returning
// what the star stands for.
func matchStar(pat, s string) (string, bool) {
	prefix, suffix, wild := strings.Cut(pat, "*")
	if !wild {
		return "", pat == s
	}
	if len(s) >= len(prefix)+len(suffix) && strings.HasPrefix(s, prefix) && strings.HasSuffix(s, suffix) {
		return s[len(prefix) : len(s)-len(suffix)], true
	}
	return "", false
}

// mapTargets resolves package-relative targets to workspace files: the
// target itself if the workspace has it (a built declaration file) and
// the source it is built from, since a change to the source changes the
// output once built, and a server resolving through project references
// reads the source directly. A target with neither makes the result
// unknown.
func (w *Workspace) mapTargets(pkgDir string, targets []string) ([]string, bool) {
	if len(targets) == 0 {
		return nil, false
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range targets {
		files := w.sources(pkgDir, path.Join(pkgDir, t))
		if len(files) == 0 {
			return nil, false
		}
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out, true
}

// sources finds the files behind a package file: the file itself if the
// workspace has it, and the source that builds it, through the package's
// tsconfig.json (outDir → rootDir) or the usual layouts (dist/, lib/,
// build/, out/ for src/).
func (w *Workspace) sources(pkgDir, target string) []string {
	var out []string
	if t := w.file(target); t != "" {
		out = append(out, t)
	}
	if cfg := w.projects.Load(w.abs(path.Join(pkgDir, "tsconfig.json"))); cfg != nil && cfg.OutDir != "" {
		outDir := w.rel(cfg.OutDir)
		rootDir := cfg.RootDir
		if rootDir == "" {
			rootDir = w.abs(path.Join(pkgDir, "src"))
		}
		if rest, ok := strings.CutPrefix(target, outDir+"/"); ok && outDir != "" {
			if t := w.file(path.Join(w.rel(rootDir), rest)); t != "" {
				return appendNew(out, t)
			}
		}
	}
	rest := strings.TrimPrefix(target, pkgDir+"/")
	first, tail, _ := strings.Cut(rest, "/")
	switch first {
	case "dist", "lib", "build", "out", "esm", "cjs":
		if t := w.file(path.Join(pkgDir, "src", tail)); t != "" {
			out = appendNew(out, t)
		}
	}
	return out
}

// appendNew appends the items of add that list lacks.
func appendNew(list []string, add ...string) []string {
	for _, s := range add {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// conditionalTargets returns every target an exports or imports map gives
// key, under any condition (over-approximating: the conditions a given
// importer meets decide which one it loads).
func conditionalTargets(m json.RawMessage, key string) []string {
	var s string
	if json.Unmarshal(m, &s) == nil {
		if key == "." {
			return []string{s}
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(m, &obj) != nil {
		var arr []json.RawMessage
		if json.Unmarshal(m, &arr) == nil {
			var out []string
			for _, a := range arr {
				out = append(out, conditionalTargets(a, key)...)
			}
			return out
		}
		return nil
	}
	subpaths := false
	for k := range obj {
		if strings.HasPrefix(k, ".") || strings.HasPrefix(k, "#") {
			subpaths = true
			break
		}
	}
	if !subpaths { // conditions for "." only
		if key != "." {
			return nil
		}
		return values(m, "")
	}
	if v, ok := obj[key]; ok {
		return values(v, "")
	}
	// Patterns: "./*", "./feature/*.js"; the longest prefix wins.
	best, bestLen, star := "", -1, ""
	for k := range obj {
		prefix, suffix, wild := strings.Cut(k, "*")
		if wild && strings.HasPrefix(key, prefix) && strings.HasSuffix(key, suffix) && len(prefix) > bestLen {
			best, bestLen, star = k, len(prefix), key[len(prefix):len(key)-len(suffix)]
		}
	}
	if bestLen < 0 {
		return nil
	}
	return values(obj[best], star)
}

// values collects every string below v (a target, a condition map, a
// fallback array), with "*" replaced by star.
func values(v json.RawMessage, star string) []string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []string{strings.ReplaceAll(s, "*", star)}
	}
	var out []string
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) == nil {
		for _, k := range sortedKeys(obj) {
			out = append(out, values(obj[k], star)...)
		}
		return out
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) == nil {
		for _, a := range arr {
			out = append(out, values(a, star)...)
		}
	}
	return out
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// installed reports whether package name is installed in a node_modules
// directory above dir, outside the workspace's own packages.
func (w *Workspace) installed(dir, name string) bool {
	for d := dir; ; d = path.Dir(d) {
		if st, err := os.Stat(w.abs(path.Join(d, "node_modules", name))); err == nil && st.IsDir() {
			return true
		}
		if d == "." {
			break
		}
	}
	// Types-only packages for a runtime one (@types/node for "node:...",
	// @types/lodash for "lodash").
	typesName := "@types/" + strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "__")
	if st, err := os.Stat(w.abs(path.Join("node_modules", typesName))); err == nil && st.IsDir() {
		return true
	}
	return w.declared[typesName]
}

func isRelative(spec string) bool {
	return spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || strings.HasPrefix(spec, "/")
}

// splitPackage splits "@scope/name/sub/path" into "@scope/name" and
// "sub/path".
func splitPackage(spec string) (name, sub string) {
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) >= 2 {
		name = parts[0] + "/" + parts[1]
		if len(parts) == 3 {
			sub = parts[2]
		}
		return name, sub
	}
	name, sub, _ = strings.Cut(spec, "/")
	return name, sub
}

// isBuiltin reports whether spec is a Node built-in module.
func isBuiltin(spec string) bool {
	if strings.HasPrefix(spec, "node:") || strings.HasPrefix(spec, "bun:") {
		return true
	}
	name, _, _ := strings.Cut(spec, "/")
	switch name {
	case "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto",
		"dgram", "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2", "https", "inspector",
		"module", "net", "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl",
		"stream", "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm",
		"wasi", "worker_threads", "zlib", "test":
		return true
	}
	return false
}
