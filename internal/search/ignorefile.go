package search

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
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
// on the way down to the start; this does the same, asking Walk which
// directories are ignored. A file named as the start needs no rules: both
// engines search it whatever they say.
func (s *Searcher) ripgrepIgnores(ctx context.Context, p *plan) ([]byte, error) {
	if p.isFile {
		return nil, nil
	}
	dir := s.root.Dir()
	var rules []string
	rules = appendPatterns(rules, filepath.Join(dir, ".git", "info", "exclude"), ".")
	rules = appendPatterns(rules, filepath.Join(dir, filepath.FromSlash(workspace.IgnoreFile)), ".")
	rules = appendPatterns(rules, filepath.Join(dir, ".gitignore"), ".")
	if p.start.Rel != "." {
		parent := "."
		for _, name := range strings.Split(p.start.Rel, "/") {
			cur := path.Join(parent, name)
			visible, err := s.visible(ctx, parent, cur)
			if err != nil {
				return nil, err
			}
			if !visible {
				rules = rules[:0]
			}
			rules = appendPatterns(rules, filepath.Join(dir, filepath.FromSlash(cur), ".gitignore"), cur)
			parent = cur
		}
	}
	if len(rules) == 0 {
		return nil, nil
	}
	return []byte(strings.Join(rules, "\n") + "\n"), nil
}

// visible reports whether Walk, listing the directory parent, shows its
// child directory rel, i.e. whether the ignore rules leave rel in.
func (s *Searcher) visible(ctx context.Context, parent, rel string) (bool, error) {
	start := workspace.Path{Abs: filepath.Join(s.root.Dir(), filepath.FromSlash(parent)), Rel: parent}
	found := false
	err := s.root.Walk(ctx, start, workspace.WalkOptions{MaxDepth: 1}, func(e workspace.Entry) error {
		switch {
		case e.Rel == rel:
			found = true
			return fs.SkipAll
		case e.Rel > rel:
			return fs.SkipAll // entries come in lexical order
		}
		return nil
	})
	return found, err
}

// appendPatterns appends the patterns of the ignore file at file, found in
// the root-relative directory dir, rewritten relative to the root. Lines are
// read as workspace reads them: "\r" trimmed, blanks and comments skipped.
func appendPatterns(rules []string, file, dir string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return rules
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
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
