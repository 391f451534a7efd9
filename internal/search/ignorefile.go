package search

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// ripgrepIgnores returns the ignore rules ripgrep must be handed through
// --ignore-file to see the files [workspace.Root.Walk] sees from p.start, as
// one .gitignore-syntax text whose patterns are relative to the root (rg
// matches an --ignore-file against paths relative to its working directory,
// which is the root).
//
// rg itself reads the .gitignore files at and below the directory it
// searches. What it would get wrong is left to this file:
//   - .git/info/exclude and .anvil/ignore: Walk reads them at the root only
//     (rg would read the first in every nested repository, so it gets
//     --no-ignore-exclude) and ranks them below every .gitignore, which is
//     where rg ranks --ignore-file rules;
//   - the .gitignore files of the root and the directories down to the
//     start: rg is told --no-ignore-parent, because it would otherwise also
//     read those above the root;
//   - the .gitignore files at and above a nested repository: rg stops
//     applying them inside it, Walk does not, so the root's and the start's
//     are repeated here even though rg reads them too.
//
// Walk drops every rule collected so far when it meets an ignored directory
// on the way down to the start; this does the same, asking
// [workspace.Root.Ignored]. A file named as the start needs no rules: both
// engines search it whatever they say.
func (s *Searcher) ripgrepIgnores(p *plan) []byte {
	if p.isFile {
		return nil
	}
	dir := s.root.Dir()
	var rules []string
	rules = appendPatterns(rules, filepath.Join(dir, ".git", "info", "exclude"), ".")
	rules = appendPatterns(rules, filepath.Join(dir, filepath.FromSlash(workspace.IgnoreFile)), ".")
	rules = appendPatterns(rules, filepath.Join(dir, ".gitignore"), ".")
	if p.start.Rel != "." {
		cur := "."
		for _, name := range strings.Split(p.start.Rel, "/") {
			cur = path.Join(cur, name)
			if s.root.Ignored(cur, true) {
				rules = rules[:0]
			}
			rules = appendPatterns(rules, filepath.Join(dir, filepath.FromSlash(cur), ".gitignore"), cur)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return []byte(strings.Join(rules, "\n") + "\n")
}

// appendPatterns appends the patterns of the ignore file at file, found in
// the root-relative directory dir, rewritten relative to the root.
func appendPatterns(rules []string, file, dir string) []string {
	for _, line := range workspace.IgnorePatterns(file) {
		if r := rootRelative(line, dir); r != "" {
			rules = append(rules, r)
		}
	}
	return rules
}

// rootRelative rewrites a .gitignore pattern of directory dir so that it
// means the same relative to the root. A pattern with a slash before its end
// is anchored to its directory; one without matches at any depth below it.
func rootRelative(line, dir string) string {
	if dir == "." {
		return line
	}
	neg := ""
	if strings.HasPrefix(line, "!") {
		neg, line = "!", line[1:]
	}
	trail := ""
	if strings.HasSuffix(line, "/") {
		trail, line = "/", strings.TrimSuffix(line, "/")
	}
	if line == "" {
		return ""
	}
	prefix := "/" + escapeGlob(dir) + "/"
	if strings.Contains(line, "/") {
		return neg + prefix + strings.TrimPrefix(line, "/") + trail
	}
	return neg + prefix + "**/" + line + trail
}

// escapeGlob quotes the glob metacharacters of a directory name.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\*?[]{}!`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
