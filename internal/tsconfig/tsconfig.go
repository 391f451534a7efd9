// Package tsconfig reads TypeScript project files (tsconfig.json,
// jsconfig.json) the way the compiler does, as far as Anvil needs them:
// which files a project includes, how it maps module specifiers to files
// (baseUrl, paths, rootDirs), where its outputs go, and which projects it
// references. Files are JSON with comments and trailing commas; extends
// chains (relative paths and packages in node_modules) are followed.
package tsconfig

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Config is one project file with its extends chain applied. Paths are
// absolute.
type Config struct {
	Path string
	Dir  string

	// Files, Include and Exclude select the project's files; Include and
	// Exclude are patterns, absolute.
	Files   []string
	Include []string
	Exclude []string

	BaseURL  string
	Paths    map[string][]string // pattern → substitutions, absolute
	RootDirs []string
	// ModuleSuffixes are tried, in order, before each extension a
	// relative or mapped specifier may take ([".ios", ""]: ./a is
	// a.ios.ts first).
	ModuleSuffixes []string
	AllowJS        bool
	// SkipLibCheck: the compiler reports no error of a declaration file
	// (an installed package's included).
	SkipLibCheck bool
	OutDir       string
	RootDir      string
	// References are the tsconfig.json files of the referenced projects.
	References []string

	once             sync.Once
	include, exclude []pattern
}

// raw is the part of a project file this package reads.
type raw struct {
	Extends         json.RawMessage `json:"extends"`
	CompilerOptions map[string]json.RawMessage
	Files           *[]string `json:"files"`
	Include         *[]string `json:"include"`
	Exclude         *[]string `json:"exclude"`
	References      []struct {
		Path string `json:"path"`
	} `json:"references"`
}

// maxExtends bounds an extends chain (and catches cycles).
const maxExtends = 16

// Load reads the project file at path.
func Load(path string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c := &Config{Path: abs, Dir: filepath.Dir(abs)}
	opts := map[string]json.RawMessage{}
	optDir := map[string]string{} // where each option was set: relative paths in it are from there
	var files, include, exclude *[]string
	var filesDir, includeDir, excludeDir string
	seen := map[string]bool{}
	for cur, depth := abs, 0; cur != ""; depth++ {
		if depth == maxExtends || seen[cur] {
			return nil, fmt.Errorf("%s: extends chain too long or circular at %s", abs, cur)
		}
		seen[cur] = true
		r, err := readRaw(cur)
		if err != nil {
			if cur == abs {
				return nil, err
			}
			return nil, fmt.Errorf("%s: extends %s: %w", abs, cur, err)
		}
		dir := filepath.Dir(cur)
		for k, v := range r.CompilerOptions {
			if _, set := opts[k]; !set {
				opts[k], optDir[k] = v, dir
			}
		}
		if files == nil && r.Files != nil {
			files, filesDir = r.Files, dir
		}
		if include == nil && r.Include != nil {
			include, includeDir = r.Include, dir
		}
		if exclude == nil && r.Exclude != nil {
			exclude, excludeDir = r.Exclude, dir
		}
		if cur == abs {
			for _, ref := range r.References {
				p := resolvePath(dir, ref.Path)
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					p = filepath.Join(p, "tsconfig.json")
				}
				c.References = append(c.References, p)
			}
		}
		cur, err = nextExtends(dir, r.Extends)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", abs, err)
		}
	}
	str := func(k string) string {
		var s string
		if v, ok := opts[k]; ok && json.Unmarshal(v, &s) == nil {
			return s
		}
		return ""
	}
	pathOpt := func(k string) string {
		if s := str(k); s != "" {
			return resolvePath(optDir[k], s)
		}
		return ""
	}
	c.BaseURL, c.OutDir, c.RootDir = pathOpt("baseUrl"), pathOpt("outDir"), pathOpt("rootDir")
	_ = json.Unmarshal(opts["allowJs"], &c.AllowJS)
	if v, ok := opts["checkJs"]; ok && !c.AllowJS {
		_ = json.Unmarshal(v, &c.AllowJS) // checkJs implies allowJs
	}
	_ = json.Unmarshal(opts["moduleSuffixes"], &c.ModuleSuffixes)
	_ = json.Unmarshal(opts["skipLibCheck"], &c.SkipLibCheck)
	var rootDirs []string
	if json.Unmarshal(opts["rootDirs"], &rootDirs) == nil {
		for _, d := range rootDirs {
			c.RootDirs = append(c.RootDirs, resolvePath(optDir["rootDirs"], d))
		}
	}
	var paths map[string][]string
	if json.Unmarshal(opts["paths"], &paths) == nil && len(paths) > 0 {
		// Substitutions are relative to baseUrl, or (TypeScript 4.1 and
		// later) to the file that set paths.
		base := c.BaseURL
		if base == "" {
			base = optDir["paths"]
		}
		c.Paths = map[string][]string{}
		for pat, subs := range paths {
			for _, s := range subs {
				c.Paths[pat] = append(c.Paths[pat], resolvePath(base, s))
			}
		}
	}
	switch {
	case files != nil:
		for _, f := range *files {
			c.Files = append(c.Files, resolvePath(filesDir, f))
		}
		if include != nil {
			c.Include = absPatterns(includeDir, *include)
		}
	case include != nil:
		c.Include = absPatterns(includeDir, *include)
	default:
		c.Include = []string{filepath.Join(c.Dir, "**", "*")}
	}
	if exclude != nil {
		c.Exclude = absPatterns(excludeDir, *exclude)
	} else {
		for _, d := range []string{"node_modules", "bower_components", "jspm_packages"} {
			c.Exclude = append(c.Exclude, filepath.Join(c.Dir, d))
		}
		if c.OutDir != "" {
			c.Exclude = append(c.Exclude, c.OutDir)
		}
	}
	return c, nil
}

func readRaw(path string) (*raw, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r raw
	if err := json.Unmarshal(StripJSONC(data), &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// nextExtends resolves the first configuration an extends value names
// (a string, or since TypeScript 5.0 an array, whose later entries win: the
// chain visits them in reverse).
func nextExtends(dir string, v json.RawMessage) (string, error) {
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	var one string
	if json.Unmarshal(v, &one) != nil {
		var many []string
		if json.Unmarshal(v, &many) != nil || len(many) == 0 {
			return "", nil
		}
		// A chain has one parent per file here; the last entry wins over
		// the others in TypeScript, so it is the one followed.
		one = many[len(many)-1]
	}
	return resolveExtends(dir, one)
}

// resolveExtends finds the file an extends entry names: a path relative
// to dir, or a package (or file in a package) in node_modules above dir.
func resolveExtends(dir, spec string) (string, error) {
	candidates := func(p string) []string {
		return []string{p, p + ".json", filepath.Join(p, "tsconfig.json")}
	}
	if strings.HasPrefix(spec, ".") || filepath.IsAbs(spec) {
		for _, c := range candidates(resolvePath(dir, spec)) {
			if isFile(c) {
				return c, nil
			}
		}
		return "", fmt.Errorf("extends %q: not found", spec)
	}
	for d := dir; ; d = filepath.Dir(d) {
		pkg := filepath.Join(d, "node_modules", filepath.FromSlash(spec))
		for _, c := range candidates(pkg) {
			if isFile(c) {
				return c, nil
			}
		}
		if field := tsconfigField(filepath.Join(pkg, "package.json")); field != "" {
			if c := filepath.Join(pkg, field); isFile(c) {
				return c, nil
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("extends %q: no such package in node_modules", spec)
}

func tsconfigField(pkgJSON string) string {
	data, err := os.ReadFile(pkgJSON)
	if err != nil {
		return ""
	}
	var p struct {
		TSConfig string `json:"tsconfig"`
	}
	_ = json.Unmarshal(data, &p)
	return p.TSConfig
}

func resolvePath(dir, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

func absPatterns(dir string, pats []string) []string {
	out := make([]string, len(pats))
	for i, p := range pats {
		out[i] = resolvePath(dir, p)
	}
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
