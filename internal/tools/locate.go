package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// symbolSite is a place a symbol's name appears: a file, a 1-based line and
// a 1-based byte column pointing at the identifier itself.
type symbolSite struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Kind   string `json:"kind,omitempty"`
	Text   string `json:"text"` // the line, trimmed
}

// maxDeclarations caps how many declarations of one name a lookup follows.
const maxDeclarations = 5

// locator finds where a symbol is, from a position or from its name.
type locator struct {
	root   *workspace.Root
	parser *syntax.Parser
}

// siteAt resolves path/line/column (column optional when name is given: the
// name's first occurrence on the line). It returns a tool error result when
// the model's arguments do not lead anywhere.
func (l locator) siteAt(path string, line, column int, name string) (symbolSite, *Result) {
	p, res, ok := resolveFile(l.root, path)
	if !ok {
		return symbolSite{}, &res
	}
	data, err := l.root.ReadFile(p.Rel)
	if err != nil {
		r := fileError(path, err)
		return symbolSite{}, &r
	}
	text, ok := lineOf(data, line)
	if !ok {
		r := Errorf("%s has no line %d", p.Rel, line)
		return symbolSite{}, &r
	}
	if column == 0 {
		if name == "" {
			r := Errorf("give column, or name to find on line %d", line)
			return symbolSite{}, &r
		}
		column = identColumn(text, name, 1)
		if column == 0 {
			r := Errorf("%q does not appear on %s:%d: %s", name, p.Rel, line, strings.TrimSpace(text))
			return symbolSite{}, &r
		}
	}
	if column < 1 || column > len(text)+1 {
		r := Errorf("%s:%d has %d columns; column %d is outside it", p.Rel, line, len(text), column)
		return symbolSite{}, &r
	}
	return symbolSite{Path: p.Rel, Line: line, Column: column, Text: strings.TrimSpace(text)}, nil
}

// declarations finds where name is declared under dir (a file or a
// directory, default the root), with tree-sitter, nearest paths first.
func (l locator) declarations(ctx context.Context, name, under string) ([]symbolSite, error) {
	start, err := l.root.Resolve(under)
	if err != nil {
		return nil, err
	}
	var files []string
	info, err := os.Stat(start.Abs)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		files = []string{start.Rel}
	} else {
		err = l.root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
			if _, ok := syntax.LanguageForPath(e.Rel); ok && e.Mode.IsRegular() {
				files = append(files, e.Rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	word := []byte(name)
	var sites []symbolSite
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := l.root.ReadFile(rel)
		if err != nil || len(data) > maxParseSize || !bytes.Contains(data, word) {
			continue // cheap filter: most files never mention the name
		}
		lang, _ := syntax.LanguageForPath(rel)
		syms, err := l.parser.Symbols(ctx, lang, data)
		if err != nil {
			continue
		}
		for _, s := range syms {
			if s.Ident != name || !isDeclaration(s.Kind) {
				continue
			}
			text, _ := lineOf(data, s.Line)
			col := identColumn(text, name, s.Column)
			if col == 0 {
				col = s.Column
			}
			sites = append(sites, symbolSite{Path: rel, Line: s.Line, Column: col, Kind: s.Kind.String(), Text: strings.TrimSpace(text)})
		}
	}
	sort.SliceStable(sites, func(i, j int) bool {
		if a, b := strings.Count(sites[i].Path, "/"), strings.Count(sites[j].Path, "/"); a != b {
			return a < b
		}
		return sites[i].Path < sites[j].Path
	})
	return sites, nil
}

// maxParseSize skips generated or vendored giants when looking for a name.
const maxParseSize = 2 << 20

func isDeclaration(k syntax.Kind) bool {
	switch k {
	case syntax.Import, syntax.Export, syntax.Call, syntax.Unknown:
		return false
	}
	return true
}

// lineOf returns 1-based line n of data without its line ending.
func lineOf(data []byte, n int) (string, bool) { return lsp.Line(data, n-1) }

// identColumn returns the 1-based column of the first whole-word occurrence
// of name in line at or after column from, or 0.
func identColumn(line, name string, from int) int {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	start := max(from-1, 0)
	if start > len(line) {
		return 0
	}
	loc := re.FindStringIndex(line[start:])
	if loc == nil {
		if start > 0 {
			return identColumn(line, name, 1)
		}
		return 0
	}
	return start + loc[0] + 1
}

// describeSites lists sites one per line for an error message.
func describeSites(sites []symbolSite) string {
	var b strings.Builder
	for _, s := range sites {
		fmt.Fprintf(&b, "  %s:%d:%d %s  %s\n", s.Path, s.Line, s.Column, s.Kind, s.Text)
	}
	return b.String()
}
