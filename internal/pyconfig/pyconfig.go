// Package pyconfig reads pyright's project configuration as pyright does:
// a pyrightconfig.json, else the [tool.pyright] table of a pyproject.toml,
// in a project's directory. It answers which files the project's own
// checks cover (include, exclude) and where imports are looked up
// (extraPaths, execution environments).
package pyconfig

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// Config is one project's pyright configuration.
type Config struct {
	// File is the workspace-relative path of the file it was read from;
	// empty for a directory without one (pyright's defaults).
	File string
	// Dir is the workspace-relative directory the configuration applies
	// from ("." for the root).
	Dir string
	// Include and Exclude are the patterns of the files the project
	// checks, relative to Dir. Include defaults to Dir itself.
	Include, Exclude []string
	ExtraPaths       []string
	// StubPath is where the project keeps its own stubs, relative to Dir
	// (pyright's default: typings).
	StubPath         string
	Environments     []Environment
	TypeCheckingMode string
	// extends is the configuration it extends, as written.
	extends string
	// includeFrom and excludeFrom are the workspace-relative directories
	// Include's and Exclude's patterns are relative to: Dir, or that of
	// the extended file they came from (inherit).
	includeFrom, excludeFrom string
	// unknownScope says why the files the project covers are not known:
	// an extends chain that could not be followed before it gave both
	// include and exclude ("" when known).
	unknownScope string
}

// Environment is one of pyright's execution environments.
type Environment struct {
	Root       string
	ExtraPaths []string
}

// defaultExclude is what pyright leaves out when a configuration names no
// exclude: dependencies, caches and hidden directories.
var defaultExclude = []string{"**/node_modules", "**/__pycache__", "**/.*"}

type raw struct {
	Include               []string    `json:"include" toml:"include"`
	Exclude               []string    `json:"exclude" toml:"exclude"`
	ExtraPaths            []string    `json:"extraPaths" toml:"extraPaths"`
	StubPath              string      `json:"stubPath" toml:"stubPath"`
	TypeCheckingMode      string      `json:"typeCheckingMode" toml:"typeCheckingMode"`
	ExecutionEnvironments []rawEnvron `json:"executionEnvironments" toml:"executionEnvironments"`
	Extends               string      `json:"extends" toml:"extends"`
}

type rawEnvron struct {
	Root       string   `json:"root" toml:"root"`
	ExtraPaths []string `json:"extraPaths" toml:"extraPaths"`
}

// Read returns the configuration in the workspace directory dir (relative
// to root): pyrightconfig.json if there is one, else pyproject.toml's
// [tool.pyright]. found is false when neither configures pyright; err is
// set for a file that does not parse (pyright would refuse it too).
func Read(root, dir string) (c *Config, found bool, err error) {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	var r raw
	file := ""
	if data, err := os.ReadFile(filepath.Join(abs, "pyrightconfig.json")); err == nil {
		file = path.Join(dir, "pyrightconfig.json")
		if err := json.Unmarshal(tsconfig.StripJSONC(data), &r); err != nil {
			return nil, true, fmt.Errorf("%s: %w", file, err)
		}
	} else if data, err := os.ReadFile(filepath.Join(abs, "pyproject.toml")); err == nil {
		var doc struct {
			Tool struct {
				Pyright *raw `toml:"pyright"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return nil, true, fmt.Errorf("%s: %w", path.Join(dir, "pyproject.toml"), err)
		}
		if doc.Tool.Pyright == nil {
			return nil, false, nil
		}
		file, r = path.Join(dir, "pyproject.toml"), *doc.Tool.Pyright
	} else {
		return nil, false, nil
	}
	c = &Config{File: file, Dir: path.Clean(dir), Include: r.Include, Exclude: r.Exclude, ExtraPaths: r.ExtraPaths, StubPath: r.StubPath, TypeCheckingMode: r.TypeCheckingMode, extends: r.Extends}
	for _, e := range r.ExecutionEnvironments {
		c.Environments = append(c.Environments, Environment(e))
	}
	c.includeFrom, c.excludeFrom = c.Dir, c.Dir
	c.inherit(root)
	return c, true, nil
}

// inherit takes include and exclude from the files c extends where c
// sets none: pyright reads the chain from the base up, each file's
// setting replacing its base's whole, with paths relative to the file
// that sets them (pyright 1.1.414, measured: a base's exclude of
// "../legacy" leaves legacy/ out of the extending project; the
// extending file's own exclude replaces it). A link of the chain that
// cannot be read here (outside the workspace, missing, not parsing, a
// loop) leaves the scope unknown while either is still open.
func (c *Config) inherit(root string) {
	if c.Include != nil && c.Exclude != nil {
		return
	}
	c.unknownScope = walkExtends(root, c.File, c.extends, func(base string, r *raw) bool {
		if r == nil {
			return false
		}
		if c.Include == nil && r.Include != nil {
			c.Include, c.includeFrom = r.Include, path.Dir(base)
		}
		if c.Exclude == nil && r.Exclude != nil {
			c.Exclude, c.excludeFrom = r.Exclude, path.Dir(base)
		}
		return c.Include == nil || c.Exclude == nil
	})
}

// extendedPath is the workspace-relative file an extends of ext names
// from the configuration file cur; false when it leaves the workspace.
func extendedPath(root, cur, ext string) (string, bool) {
	if filepath.IsAbs(ext) {
		rel, err := filepath.Rel(root, ext)
		if err != nil {
			return "", false
		}
		ext, cur = filepath.ToSlash(rel), "."
	}
	next := path.Join(path.Dir(cur), filepath.ToSlash(ext))
	if next == ".." || strings.HasPrefix(next, "../") {
		return "", false
	}
	return next, true
}

// Nearest returns the configuration that governs the workspace file rel:
// the nearest directory at or above it, up to the root, that configures
// pyright; the root's defaults when none does.
func Nearest(root, rel string) *Config {
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if c, found, err := Read(root, dir); found && err == nil {
			return c
		}
		if dir == "." || dir == "/" {
			break
		}
	}
	return &Config{Dir: "."}
}

// Covers reports whether the project's own checks cover the workspace file
// rel: included, and not excluded.
func (c *Config) Covers(rel string) bool {
	if _, ok := within(c.Dir, rel); !ok || c.unknownScope != "" {
		return false
	}
	include, includeFrom := c.Include, c.from(c.includeFrom)
	if len(include) == 0 {
		include, includeFrom = []string{"."}, c.Dir
	}
	exclude, excludeFrom := c.Exclude, c.from(c.excludeFrom)
	if len(exclude) == 0 {
		exclude, excludeFrom = defaultExclude, c.Dir
	}
	return matchesAny(include, includeFrom, rel) && !matchesAny(exclude, excludeFrom, rel)
}

// from is dir, or c's own directory for a Config built without Read.
func (c *Config) from(dir string) string {
	if dir == "" {
		return c.Dir
	}
	return dir
}

// Paths returns the import roots the configuration adds (the stub path,
// extraPaths and execution environment roots), workspace-relative.
func (c *Config) Paths() []string {
	var out []string
	add := func(p string) {
		if p != "" && !path.IsAbs(p) {
			out = append(out, path.Clean(path.Join(c.Dir, p)))
		}
	}
	stubs := c.StubPath
	if stubs == "" {
		stubs = "typings"
	}
	add(stubs)
	for _, p := range c.ExtraPaths {
		add(p)
	}
	for _, e := range c.Environments {
		add(e.Root)
		for _, p := range e.ExtraPaths {
			add(p)
		}
	}
	return out
}

// Describe names where the scope comes from, for a reader.
func (c *Config) Describe() string {
	switch {
	case c.unknownScope != "":
		return c.File + " (whose scope is not known: " + c.unknownScope + ")"
	case c.File == "":
		return "pyright's default scope"
	case strings.HasSuffix(c.File, "pyproject.toml"):
		return c.File + " [tool.pyright]"
	}
	return c.File
}

// within returns rel relative to dir, if it is inside it.
func within(dir, rel string) (string, bool) {
	if dir == "." || dir == "" {
		return rel, true
	}
	if rest, ok := strings.CutPrefix(rel, dir+"/"); ok {
		return rest, true
	}
	return "", false
}

// matchesAny reports whether rel (workspace-relative, slash-separated)
// matches one of the patterns, each relative to the workspace directory
// from: a pattern matches the path it names and everything below it.
func matchesAny(patterns []string, from, rel string) bool {
	for _, pat := range patterns {
		full := path.Join(from, filepath.ToSlash(pat))
		if full == "." {
			return true
		}
		if ok, _ := doublestar.Match(full, rel); ok {
			return true
		}
		if ok, _ := doublestar.Match(full+"/**", rel); ok {
			return true
		}
	}
	return false
}
