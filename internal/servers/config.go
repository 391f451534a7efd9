package servers

import (
	"path"
	"path/filepath"
	"strings"
)

// Build and type-checking configuration is code: a change to it changes
// what every file of its project means. These are the files each
// language's checking reads, by base name.
var configFiles = map[string][]string{
	"go":         {"go.mod", "go.sum", "go.work", "go.work.sum"},
	"typescript": {"tsconfig.json", "tsconfig.*.json", "jsconfig.json", "jsconfig.*.json", "package.json"},
	"python":     {"pyproject.toml", "pyrightconfig.json"},
	// cargo reads its configuration (rustflags, a target, cfgs) from
	// .cargo/config.toml in the workspace and above, and rustup the
	// toolchain the project pins.
	"rust": {"Cargo.toml", "Cargo.lock", ".cargo/config.toml", ".cargo/config", "rust-toolchain.toml", "rust-toolchain"},
	// The compile database gives each translation unit its flags (a
	// define, an include directory, a forced include); .clangd adds to
	// them for clangd.
	"c": {"compile_commands.json", "compile_flags.txt", ".clangd"},
}

// ConfigLanguage returns the language whose checking the file at p
// configures ("go" for go.mod, "typescript" for tsconfig.json and
// package.json...), or "" if it configures none.
func ConfigLanguage(p string) string {
	p = filepath.ToSlash(p)
	for lang, patterns := range configFiles {
		for _, pat := range patterns {
			if ok, _ := path.Match(pat, lastElems(p, strings.Count(pat, "/")+1)); ok {
				return lang
			}
		}
	}
	return ""
}

// lastElems returns p's last n path elements (a pattern ".cargo/config"
// names a file by its folder too).
func lastElems(p string, n int) string {
	i := len(p)
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndex(p[:i], "/")
	}
	return p[i+1:]
}

// TakesConfig reports whether the server reads the configuration file p
// from an overlay, so that a change to it can be checked before it is
// written: gopls takes go.mod and go.work, TypeScript 7's server takes
// tsconfig.json and package.json. Others read configuration only from
// disk.
func (s Spec) TakesConfig(p string) bool {
	base := filepath.Base(p)
	for _, pat := range s.ConfigOverlays {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	return false
}

// LanguageID is the LSP language id of a file to show a server: its
// source language, or for a configuration file the id editors give it.
func LanguageID(p string) string {
	if l := LanguageOf(p); l != "" {
		return l
	}
	return configLanguageID(p)
}

// configLanguageID is the LSP language id of a configuration file's
// overlay.
func configLanguageID(p string) string {
	switch base := filepath.Base(p); {
	case base == "go.mod":
		return "go.mod"
	case base == "go.work":
		return "go.work"
	case base == "go.sum" || base == "go.work.sum":
		return "go.sum"
	case strings.HasSuffix(base, ".json"):
		return "json"
	case strings.HasSuffix(base, ".toml"):
		return "toml"
	}
	return "plaintext"
}
