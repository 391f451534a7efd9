// Package search finds the lines that match a pattern in the files of a
// workspace. It sits between internal/workspace, whose walk defines which
// files exist, and the text_search tool, which formats the answer.
//
// A [Searcher] runs ripgrep when it is installed and a pure-Go engine when it
// is not. Both engines search the same files, the ones [workspace.Root.Walk]
// visits: .gitignore files (nested, with negations), .git/info/exclude and
// .anvil/ignore apply, hidden files are searched, .git and symlinks are not.
// Both skip binary files (any NUL byte), match within single lines and
// return the same [Result], sorted by path and line, so no caller needs to
// know which engine ran.
//
// Known differences, all at the edges: ripgrep 13 honours .rgignore files,
// which only its --no-ignore (dropping .gitignore too) turns off; inside a
// git repository nested below the start, ripgrep stops applying the
// .gitignore files of the directories between the start and it. RE2 and
// ripgrep's regex syntax differ on a few forms: Go rejects nested
// repetition (a**) and counts over 1000, ripgrep 13 rejects (?<name>...)
// and \Q...\E, and Go's \b is ASCII-only (its \d, \s and \w are made
// Unicode-aware, as ripgrep's are).
package search

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// Limits of one search. MaxResultsLimit and MaxContextLines bound what a
// caller may ask for. DefaultMatchBound is where a search stops, so that a
// pattern matching nearly every line of a huge tree answers quickly.
// FileMatchBound is where the search of one file stops: ripgrep holds a
// file's output in memory until the file is done, and a log of a million
// matching lines would otherwise cost it hundreds of megabytes.
const (
	DefaultMaxResults = 100
	MaxResultsLimit   = 1000
	MaxContextLines   = 10
	DefaultMatchBound = 100_000
	FileMatchBound    = 10_000
)

// Engine names the implementation that ran a search.
type Engine int

const (
	// Go is the pure-Go engine: [workspace.Root.Walk] plus package regexp.
	Go Engine = iota
	// Ripgrep runs the rg executable.
	Ripgrep
)

// String returns "ripgrep" or "go".
func (e Engine) String() string {
	if e == Ripgrep {
		return "ripgrep"
	}
	return "go"
}

// Query describes one search.
type Query struct {
	// Pattern is a regular expression in RE2 syntax (the syntax of Go's
	// regexp and of ripgrep's default engine), or a literal string when
	// Literal is set. A match never spans lines.
	Pattern string
	// Path is the file or directory to search, relative to the root or
	// absolute inside it. Empty means the whole workspace.
	Path string
	// Glob keeps only the files it matches (doublestar syntax: *, **, ?,
	// [...], {a,b}). A glob without "/" is matched against file names at any
	// depth ("*_test.go"); one with "/" against the path relative to Path
	// ("internal/**/*.go" when Path is the root).
	Glob            string
	Literal         bool
	CaseInsensitive bool
	// MaxResults bounds Result.Matches: 0 means DefaultMaxResults, and more
	// than MaxResultsLimit is cut to it.
	MaxResults int
	// ContextLines asks for that many lines before and after each match
	// (0 to MaxContextLines).
	ContextLines int
}

// Match is one matching line.
type Match struct {
	Path   string `json:"path"`   // relative to the workspace root, slash-separated
	Line   int    `json:"line"`   // 1-based
	Column int    `json:"column"` // 1-based byte offset of the first match in the line
	// Text is the line without its terminator. A line longer than about 300
	// characters is cut to a window around the match, marked with "…".
	Text   string `json:"text"`
	Before []Line `json:"before,omitempty"` // context lines, in order
	After  []Line `json:"after,omitempty"`
}

// Line is a context line. Context lines never repeat: a line within the
// context of two matches belongs to the first, and a matching line is never
// context.
type Line struct {
	Number int    `json:"line"`
	Text   string `json:"text"`
}

// Result is the answer to one search.
type Result struct {
	// Matches holds the first MaxResults matches in path, then line, order.
	Matches []Match
	// TotalMatches and TotalFiles count every matching line and file found.
	TotalMatches int
	TotalFiles   int
	// Truncated reports whether more matches were found than Matches holds.
	Truncated bool
	// Stopped reports whether the search ended early at the match bound. The
	// totals are then lower bounds and Matches, while sorted, may not be the
	// first ones of the whole tree.
	Stopped bool
	// Capped reports whether some file had FileMatchBound matching lines,
	// the most counted in one file: the totals are then lower bounds.
	Capped bool
	Engine Engine
}

// PatternError reports a pattern the engine rejected. Msg is the engine's
// own explanation, meant for whoever wrote the pattern.
type PatternError struct {
	Pattern string
	Msg     string
	// LineBreak reports that the pattern was refused because it would match
	// a line break ("\n"), which no match may span.
	LineBreak bool
}

func (e *PatternError) Error() string { return fmt.Sprintf("invalid pattern %q: %s", e.Pattern, e.Msg) }

// GlobError reports an unusable glob.
type GlobError struct {
	Glob string
	Msg  string
}

func (e *GlobError) Error() string { return fmt.Sprintf("invalid glob %q: %s", e.Glob, e.Msg) }

// Searcher searches one workspace. It is safe for concurrent use.
type Searcher struct {
	root    *workspace.Root
	rg      string // path of the rg executable; "" selects the Go engine
	workers int    // files the Go engine searches at once
	bound   int    // matches counted before a search stops
}

// Options configure a [Searcher]. The zero value is ready to use.
type Options struct {
	// LookPath finds the "rg" executable; nil means [exec.LookPath]. When it
	// fails, the searcher runs the Go engine: tests use it to run both
	// engines on one machine.
	LookPath func(file string) (string, error)
}

// New returns a searcher for root. It looks for ripgrep once, here.
func New(root *workspace.Root, opts Options) *Searcher {
	s := &Searcher{root: root, workers: runtime.GOMAXPROCS(0), bound: DefaultMatchBound}
	lookPath := opts.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if p, err := lookPath("rg"); err == nil {
		s.rg = p
	}
	return s
}

// Engine reports which engine the searcher runs.
func (s *Searcher) Engine() Engine {
	if s.rg != "" {
		return Ripgrep
	}
	return Go
}

// Search runs one search. Errors a caller can fix come back as
// [*PatternError], [*GlobError], a [*workspace.PathError] (a path outside the
// root, or inside .git) or an error wrapping [io/fs.ErrNotExist]; any other
// error is a failure of the machine (ripgrep could not run, the context
// ended).
func (s *Searcher) Search(ctx context.Context, q Query) (*Result, error) {
	p, err := s.plan(q)
	if err != nil {
		return nil, err
	}
	res := &Result{Engine: s.Engine()}
	col := newCollector(p.maxResults)
	switch {
	case p.empty:
	case s.rg != "":
		err = s.searchRipgrep(ctx, p, col)
	default:
		err = s.searchGo(ctx, p, col)
	}
	if err != nil {
		return nil, err
	}
	col.finish(res)
	if s.rg != "" {
		s.confine(res)
	}
	return res, nil
}

// confine checks ripgrep's matches against the files as read inside the
// root. rg opens files by path, following whatever a directory on the way
// is at that moment: a directory swapped for a symlink while it runs could
// make it read a file outside. Every match shown must be in a file that
// opens inside the root (see [workspace.Root.OpenFile]) and have its text
// on that line there; the others are dropped. Each file is read once, a
// line at a time.
func (s *Searcher) confine(res *Result) {
	byPath := map[string][]int{} // path → indexes into res.Matches
	var order []string
	for i, m := range res.Matches {
		if _, ok := byPath[m.Path]; !ok {
			order = append(order, m.Path)
		}
		byPath[m.Path] = append(byPath[m.Path], i)
	}
	keep := make([]bool, len(res.Matches))
	for _, p := range order {
		f, err := s.root.OpenFile(p)
		if err != nil {
			continue
		}
		idx := byPath[p] // in line order: matches are sorted
		r := bufio.NewReader(f)
		for n, k := 1, 0; k < len(idx); n++ {
			line, err := r.ReadString('\n')
			for k < len(idx) && res.Matches[idx[k]].Line == n {
				keep[idx[k]] = strings.Contains(comparable(line), comparable(strings.Trim(res.Matches[idx[k]].Text, "…")))
				k++
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	kept := res.Matches[:0]
	for i, m := range res.Matches {
		if keep[i] {
			kept = append(kept, m)
		}
	}
	res.Matches = kept
}

// comparable drops what may differ between a line as read and as an
// engine shows it: invalid UTF-8 (shown as U+FFFD) and the line ending.
func comparable(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.ReplaceAll(s, "\uFFFD", "")
	return strings.TrimRight(s, "\r\n")
}
