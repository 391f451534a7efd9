package tools

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/anvil-dev/anvil/internal/search"
	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed descriptions/text_search.md
var textSearchDescription string

// TextSearchParams are the arguments of text_search.
type TextSearchParams struct {
	Pattern         string `json:"pattern" jsonschema:"regular expression (RE2 syntax) to find; a plain string with literal=true"`
	Path            string `json:"path,omitempty" jsonschema:"file or directory to search, relative to the workspace root; default the root"`
	Glob            string `json:"glob,omitempty" jsonschema:"only files matching this glob, relative to path, e.g. *.go or src/**/*.ts; without / it matches file names at any depth"`
	Literal         bool   `json:"literal,omitempty" jsonschema:"match pattern as a plain string, not a regular expression"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"ignore case when matching"`
	MaxResults      int    `json:"max_results,omitempty" jsonschema:"matching lines to show; default 100, at most 1000"`
	ContextLines    int    `json:"context_lines,omitempty" jsonschema:"lines to show before and after each match; 0 to 10, default 0"`
}

// TextSearchData is the structured result of text_search.
type TextSearchData struct {
	Matches      []search.Match `json:"matches"`       // sorted by path, then line
	TotalMatches int            `json:"total_matches"` // matching lines found
	TotalFiles   int            `json:"total_files"`   // files with a match
	Truncated    bool           `json:"truncated"`     // more matches were found than shown
	Stopped      bool           `json:"stopped"`       // the search stopped early: totals are lower bounds
	Capped       bool           `json:"capped"`        // a file's count stopped at search.FileMatchBound: totals are lower bounds
	Engine       string         `json:"engine"`        // "ripgrep" or "go"
}

// TextSearch searches file contents with ripgrep or its Go stand-in.
type TextSearch struct {
	root     *workspace.Root
	searcher *search.Searcher
}

// NewTextSearch returns the text_search tool for root, searching with s
// (which must search the same root).
func NewTextSearch(root *workspace.Root, s *search.Searcher) *TextSearch {
	return &TextSearch{root: root, searcher: s}
}

func (t *TextSearch) Name() string        { return "text_search" }
func (t *TextSearch) Description() string { return textSearchDescription }

// TuneSchema states the numeric bounds and that a pattern cannot be empty.
func (t *TextSearch) TuneSchema(s *jsonschema.Schema) {
	bound := func(name string, lo, hi float64) {
		s.Properties[name].Minimum = &lo
		s.Properties[name].Maximum = &hi
	}
	bound("max_results", 1, search.MaxResultsLimit)
	bound("context_lines", 0, search.MaxContextLines)
	one := 1
	s.Properties["pattern"].MinLength = &one
}

func (t *TextSearch) Run(ctx context.Context, p TextSearchParams) (Result, error) {
	switch {
	case p.Pattern == "":
		return Errorf("pattern is required"), nil
	case p.MaxResults < 0 || p.MaxResults > search.MaxResultsLimit:
		return Errorf("max_results must be between 1 and %d", search.MaxResultsLimit), nil
	case p.ContextLines < 0 || p.ContextLines > search.MaxContextLines:
		return Errorf("context_lines must be between 0 and %d", search.MaxContextLines), nil
	}
	start, err := t.root.Resolve(p.Path)
	if err != nil {
		return pathError(err), nil
	}
	if res, ok := checkSearchPath(t.root, start, p.Path); !ok {
		return res, nil
	}
	res, err := t.searcher.Search(ctx, search.Query{
		Pattern:         p.Pattern,
		Path:            start.Rel,
		Glob:            p.Glob,
		Literal:         p.Literal,
		CaseInsensitive: p.CaseInsensitive,
		MaxResults:      p.MaxResults,
		ContextLines:    p.ContextLines,
	})
	if err != nil {
		return searchError(err, p)
	}
	data := TextSearchData{
		Matches:      res.Matches,
		TotalMatches: res.TotalMatches,
		TotalFiles:   res.TotalFiles,
		Truncated:    res.Truncated,
		Stopped:      res.Stopped,
		Capped:       res.Capped,
		Engine:       res.Engine.String(),
	}
	return Result{Output: formatSearch(data, p, start.Rel), Data: data}, nil
}

// checkSearchPath reports on a path that does not exist, and refuses a
// binary file named directly (one met while walking is skipped quietly).
func checkSearchPath(root *workspace.Root, start workspace.Path, given string) (Result, bool) {
	info, err := root.Stat(start.Rel)
	if err != nil {
		return fileError(displayPath(given), err), false
	}
	if info.IsDir() {
		return Result{}, true
	}
	f, err := root.OpenFile(start.Rel)
	if err != nil {
		return fileError(given, err), false
	}
	defer f.Close()
	head := make([]byte, workspace.SniffLen)
	n, _ := io.ReadFull(f, head)
	if workspace.IsBinary(head[:n]) {
		return Errorf("%s is a binary file; text_search only searches text", start.Rel), false
	}
	return Result{}, true
}

// searchError turns what the searcher refused into a tool error; anything
// else is a failure of the machine.
func searchError(err error, p TextSearchParams) (Result, error) {
	var pe *search.PatternError
	var ge *search.GlobError
	var wpe *workspace.PathError
	switch {
	case errors.As(err, &pe) && pe.LineBreak:
		return Errorf("pattern %q would match a line break, but matches never span lines; search for the text of one line", p.Pattern), nil
	case errors.As(err, &pe) && p.Literal:
		return Errorf("invalid pattern: %s", pe.Msg), nil
	case errors.As(err, &pe):
		return Errorf("invalid regular expression %q: %s\n(escape special characters such as . ( [ with a backslash, or set literal=true to search for the text as written)", p.Pattern, pe.Msg), nil
	case errors.As(err, &ge):
		return Errorf("invalid glob %q: %s", p.Glob, ge.Msg), nil
	case errors.As(err, &wpe):
		return pathError(err), nil
	case errors.Is(err, fs.ErrNotExist):
		return fileError(displayPath(p.Path), err), nil
	}
	return Result{}, err
}

func formatSearch(d TextSearchData, p TextSearchParams, where string) string {
	var b strings.Builder
	if len(d.Matches) == 0 {
		fmt.Fprintf(&b, "no matches for %q in %s", p.Pattern, searchPlace(where))
		if p.Glob != "" {
			fmt.Fprintf(&b, " (files matching %s)", p.Glob)
		}
		b.WriteString("\n")
		var hints []string
		if !p.Literal {
			hints = append(hints, "the pattern is a regular expression (literal=true searches for the text as written)")
		}
		if !p.CaseInsensitive {
			hints = append(hints, "matching is case-sensitive (case_insensitive=true ignores case)")
		}
		hints = append(hints, "ignored files (.gitignore, .anvil/ignore) and binary files are not searched")
		fmt.Fprintf(&b, "note: %s\n", strings.Join(hints, "; "))
		return b.String()
	}
	path, last := "", 0 // the file being printed and its last line shown
	for _, m := range d.Matches {
		first := m.Line
		if len(m.Before) > 0 {
			first = m.Before[0].Number
		}
		switch {
		case m.Path != path:
			if path != "" {
				b.WriteString("\n")
			}
			path = m.Path
		case p.ContextLines > 0 && first > last+1:
			b.WriteString("--\n")
		}
		for _, l := range m.Before {
			fmt.Fprintf(&b, "%s-%d- %s\n", m.Path, l.Number, l.Text)
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", m.Path, m.Line, m.Column, m.Text)
		last = m.Line
		for _, l := range m.After {
			fmt.Fprintf(&b, "%s-%d- %s\n", m.Path, l.Number, l.Text)
			last = l.Number
		}
	}
	b.WriteString("\n")
	b.WriteString(searchSummary(d, p))
	return b.String()
}

func searchSummary(d TextSearchData, p TextSearchParams) string {
	shownFiles := 0
	for i, m := range d.Matches {
		if i == 0 || m.Path != d.Matches[i-1].Path {
			shownFiles++
		}
	}
	matches := func(n int) string { return commas(n) + plural(n, " match", " matches") }
	files := func(n int) string { return commas(n) + plural(n, " file", " files") }
	narrow := "narrow with path or glob"
	if shown := cmp.Or(p.MaxResults, search.DefaultMaxResults); shown < search.MaxResultsLimit {
		narrow += fmt.Sprintf(", or raise max_results (up to %d)", search.MaxResultsLimit)
	}
	switch {
	case d.Stopped:
		return fmt.Sprintf("... search stopped after %s in %s (it stops at %s); the %d shown are not necessarily the first in path order; %s\n",
			matches(d.TotalMatches), files(d.TotalFiles), commas(search.DefaultMatchBound), len(d.Matches), narrow)
	case d.Truncated:
		total, more := matches(d.TotalMatches), ""
		if n := d.TotalFiles - shownFiles; n > 0 {
			more = fmt.Sprintf("%s more %s", commas(n), plural(n, "file", "files"))
		}
		if d.Capped {
			total = "at least " + total
			more = strings.TrimPrefix(more+"; ", "; ") + fmt.Sprintf("counting stops at %s lines per file", commas(search.FileMatchBound))
		}
		if more != "" {
			more = " (" + more + ")"
		}
		return fmt.Sprintf("... showing first %d of %s%s; %s\n", len(d.Matches), total, more, narrow)
	default:
		return fmt.Sprintf("%s in %s\n", matches(d.TotalMatches), files(d.TotalFiles))
	}
}

func searchPlace(rel string) string {
	if rel == "." {
		return "the workspace"
	}
	return rel
}

// commas formats n with thousands separators: 2345 -> "2,345".
func commas(n int) string {
	if n < 0 {
		return "-" + commas(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
