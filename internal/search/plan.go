package search

import (
	"errors"
	"os"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// plan is a search with its options checked and resolved, the same for both
// engines.
type plan struct {
	pattern    string
	literal    bool
	fold       bool
	start      workspace.Path // the file or directory searched
	isFile     bool
	glob       *globFilter // nil keeps every file
	maxResults int
	context    int
	empty      bool // nothing can match, so no engine needs to run
}

func (s *Searcher) plan(q Query) (*plan, error) {
	start, err := s.root.Resolve(q.Path)
	if err != nil {
		return nil, err
	}
	if inGitDir(start.Rel) {
		return nil, &workspace.PathError{Path: q.Path, Err: errors.New("the .git directory is never searched")}
	}
	info, err := os.Stat(start.Abs)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return nil, &workspace.PathError{Path: q.Path, Err: errors.New("not a regular file or directory")}
	}
	p := &plan{
		pattern:    q.Pattern,
		literal:    q.Literal,
		fold:       q.CaseInsensitive,
		start:      start,
		isFile:     !info.IsDir(),
		maxResults: q.MaxResults,
		context:    min(max(q.ContextLines, 0), MaxContextLines),
	}
	if p.maxResults <= 0 {
		p.maxResults = DefaultMaxResults
	}
	p.maxResults = min(p.maxResults, MaxResultsLimit)
	if q.Glob != "" {
		if err := p.setGlob(s.root, q.Glob); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func inGitDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}

// setGlob checks glob and, when its leading directories name a directory
// below the start, starts the search there: "internal/**/*.go" then walks
// internal only, in both engines.
func (p *plan) setGlob(root *workspace.Root, glob string) error {
	g := strings.TrimPrefix(glob, "./")
	if !doublestar.ValidatePattern(g) {
		return &GlobError{Glob: glob, Msg: "check its brackets and braces"}
	}
	if strings.HasPrefix(g, "/") || g == ".." || strings.HasPrefix(g, "../") || strings.Contains(g, "/../") {
		return &GlobError{Glob: glob, Msg: "a glob is matched against paths below the searched path; it cannot start with / or contain .."}
	}
	dir := p.start.Rel
	if p.isFile {
		dir = path.Dir(dir)
	}
	p.glob = &globFilter{pattern: g, dir: dir, base: !strings.Contains(g, "/")}
	if p.isFile || p.glob.base {
		return nil
	}
	base, rest := doublestar.SplitPattern(g)
	if base == "." {
		return nil
	}
	narrow := path.Join(p.start.Rel, base)
	if inGitDir(narrow) {
		return &workspace.PathError{Path: glob, Err: errors.New("the .git directory is never searched")}
	}
	np, err := root.Resolve(narrow)
	if err != nil || np.Rel != narrow {
		return nil // through a symlink: leave it to the filter, which finds nothing
	}
	info, err := os.Stat(np.Abs)
	switch {
	case err != nil || !info.IsDir():
		p.empty = true // every match would have to lie below base
	default:
		p.start = np
		p.glob = &globFilter{pattern: rest, dir: narrow, base: false}
	}
	return nil
}

// globFilter is the Glob option, matched as list_files matches its pattern.
type globFilter struct {
	pattern string
	dir     string // what the pattern is relative to, root-relative ("." for the root)
	base    bool   // the pattern has no "/": match base names
}

// match reports whether the file at rel (root-relative) is kept.
func (g *globFilter) match(rel string) bool {
	switch {
	case g.base:
		rel = path.Base(rel)
	case g.dir != ".":
		rel = strings.TrimPrefix(rel, g.dir+"/")
	}
	return doublestar.MatchUnvalidated(g.pattern, rel)
}

// nameGlob returns a glob every kept file's base name matches, written so
// that ripgrep's glob syntax reads it as doublestar does. ripgrep uses it to
// skip files early; the filter still decides. ok is false when no such glob
// can be given safely.
func (g *globFilter) nameGlob() (string, bool) {
	seg := g.pattern
	if i := strings.LastIndexByte(seg, '/'); i >= 0 {
		seg = seg[i+1:]
	}
	if seg == "" || strings.Contains(seg, "**") || strings.Count(seg, "{") != strings.Count(seg, "}") {
		return "", false
	}
	// Empty alternatives and edge-case classes are read differently by the
	// two glob libraries.
	for _, odd := range []string{"{,", ",}", ",,", "{}", "[]", "[!]", "[^]"} {
		if strings.Contains(seg, odd) {
			return "", false
		}
	}
	for _, c := range seg {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("._-*?{},[]!^+~@#%= ", c):
		default:
			return "", false
		}
	}
	return seg, true
}
