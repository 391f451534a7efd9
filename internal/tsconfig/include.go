package tsconfig

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Extensions a project includes through its patterns: TypeScript always,
// JavaScript with allowJs (or checkJs). JSON files come in only through
// files or imports.
var (
	tsExtensions = []string{".ts", ".tsx", ".mts", ".cts"}
	jsExtensions = []string{".js", ".jsx", ".mjs", ".cjs"}
)

// pattern is an include or exclude pattern, compiled.
type pattern struct {
	re *regexp.Regexp
	// prefix is the part before the first wildcard: what follows it was
	// matched by wildcards, which skip hidden files and dependency
	// directories the way the compiler's do.
	prefix string
	// named are the parts the pattern names literally after its prefix.
	named []string
}

// Includes reports whether the project takes the file at abs (absolute)
// among its files, as tsc -p would: named in files, or matched by an
// include pattern and by no exclude pattern, with an extension the project
// compiles.
func (c *Config) Includes(abs string) bool {
	abs = filepath.Clean(abs)
	if slices.Contains(c.Files, abs) {
		return true
	}
	if !c.compiles(abs) {
		return false
	}
	c.compileOnce()
	p := filepath.ToSlash(abs)
	if !slices.ContainsFunc(c.include, func(pt pattern) bool { return pt.matches(p) }) {
		return false
	}
	return !slices.ContainsFunc(c.exclude, func(pt pattern) bool { return pt.matches(p) })
}

func (c *Config) compiles(abs string) bool {
	ext := strings.ToLower(filepath.Ext(abs))
	if slices.Contains(tsExtensions, ext) {
		return true
	}
	return c.AllowJS && slices.Contains(jsExtensions, ext)
}

func (c *Config) compileOnce() {
	c.once.Do(func() {
		for _, p := range c.Include {
			c.include = append(c.include, compile(p, false))
		}
		for _, p := range c.Exclude {
			c.exclude = append(c.exclude, compile(p, true))
		}
	})
}

func (pt pattern) matches(p string) bool {
	if !pt.re.MatchString(p) {
		return false
	}
	rest := strings.TrimPrefix(p, pt.prefix)
	for _, part := range strings.Split(rest, "/") {
		if slices.Contains(pt.named, part) {
			continue
		}
		switch {
		case strings.HasPrefix(part, "."):
			return false
		case part == "node_modules" || part == "bower_components" || part == "jspm_packages":
			return false
		}
	}
	return true
}

// compile turns a tsconfig pattern into a regexp the way the compiler
// does: "**/" is any number of directories, "*" any characters within one
// part, "?" one character. A pattern whose last part has neither a
// wildcard nor an extension names a directory and matches what is below
// it; an exclude pattern also matches what is below whatever it matches.
func compile(pat string, exclude bool) pattern {
	parts := strings.Split(filepath.ToSlash(pat), "/")
	last := parts[len(parts)-1]
	if !strings.ContainsAny(last, "*?") && !strings.Contains(last, ".") {
		parts = append(parts, "**", "*")
	}
	var pt pattern
	var b strings.Builder
	b.WriteString("^")
	wild := false
	for i, part := range parts {
		if !wild && strings.ContainsAny(part, "*?") {
			wild = true
			pt.prefix = strings.Join(parts[:i], "/") + "/"
		}
		if wild && !strings.ContainsAny(part, "*?") {
			pt.named = append(pt.named, part)
		}
		if part == "**" {
			b.WriteString(`(?:[^/]+/)*`)
			continue
		}
		for _, r := range part {
			switch r {
			case '*':
				b.WriteString(`[^/]*`)
			case '?':
				b.WriteString(`[^/]`)
			default:
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		if i < len(parts)-1 {
			b.WriteString("/")
		}
	}
	if !wild {
		pt.prefix = strings.Join(parts, "/")
	}
	if exclude {
		b.WriteString(`(?:/.*)?`)
	}
	b.WriteString("$")
	pt.re = regexp.MustCompile(b.String())
	return pt
}
