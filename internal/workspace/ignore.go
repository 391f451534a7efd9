package workspace

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IgnoreFile is the workspace-level ignore file Anvil reads beside the
// .gitignore files. Its patterns use .gitignore syntax and apply from the root.
const IgnoreFile = ".anvil/ignore"

// ignoreRules is the stack of patterns that apply inside one directory: the
// root-level files plus the .gitignore of every directory from the root down.
// It is immutable; [ignoreRules.enter] returns a new value, so sibling
// directories never see each other's patterns.
type ignoreRules struct {
	patterns []gitignore.Pattern
}

// rootRules loads the patterns that apply to the whole tree. Later patterns
// win in gitignore matching, so the order is: .git/info/exclude, then
// .anvil/ignore, and each directory's .gitignore is appended as the walk
// descends.
func rootRules(root string) ignoreRules {
	var ps []gitignore.Pattern
	for _, rel := range RootIgnoreFiles() {
		ps = append(ps, readPatterns(filepath.Join(root, filepath.FromSlash(rel)), nil)...)
	}
	return ignoreRules{patterns: ps}
}

// RootIgnoreFiles are the ignore files a walk applies from the root that
// are not the project's own files (slash-separated, relative to the
// root), in the order they apply.
func RootIgnoreFiles() []string {
	return []string{".git/info/exclude", IgnoreFile}
}

// enter returns the rules for directory dir (absolute), whose slash-separated
// path relative to the root is rel ("." for the root).
func (r ignoreRules) enter(dir, rel string) ignoreRules {
	var domain []string
	if rel != "." {
		domain = strings.Split(rel, "/")
	}
	more := readPatterns(filepath.Join(dir, ".gitignore"), domain)
	if len(more) == 0 {
		return r
	}
	ps := make([]gitignore.Pattern, 0, len(r.patterns)+len(more))
	ps = append(ps, r.patterns...)
	ps = append(ps, more...)
	return ignoreRules{patterns: ps}
}

// ignored reports whether the entry at rel (slash-separated, relative to the
// root) is excluded. A directory is always ignored if it is .git.
func (r ignoreRules) ignored(rel string, isDir bool) bool {
	if isDir && path.Base(rel) == ".git" {
		return true
	}
	if len(r.patterns) == 0 {
		return false
	}
	parts := strings.Split(rel, "/")
	// Last matching pattern wins, as in git.
	for i := len(r.patterns) - 1; i >= 0; i-- {
		switch r.patterns[i].Match(parts, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

func readPatterns(file string, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, line := range IgnorePatterns(file) {
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// IgnorePatterns returns the patterns of the ignore file at file
// (.gitignore syntax), as the workspace reads them: one a line, without a
// trailing "\r", blank lines and comments left out. A file that cannot be
// read has none.
func IgnorePatterns(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		lines = append(lines, line)
	}
	return lines
}
