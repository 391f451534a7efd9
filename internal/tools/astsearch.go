package tools

import (
	"context"
	_ "embed"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed descriptions/ast_search.md
var astSearchDescription string

// Limits of one ast_search call. A 2 MB file parses in a fraction of a
// second, and larger ones are nearly always generated or bundled code; 200
// results fit a model's context with room to spare; the file cap keeps a
// search at the root of a huge monorepo from parsing for minutes.
const (
	astMaxFileBytes = 2 << 20
	astMaxResults   = 200
	astMaxFiles     = 5000
	astMaxWorkers   = 4
	astMaxListed    = 5 // skipped files named in the summary
)

// ASTSearchParams are the arguments of ast_search.
type ASTSearchParams struct {
	Kind     string `json:"kind,omitempty" jsonschema:"symbols to list; give kind or query, not both"`
	Query    string `json:"query,omitempty" jsonschema:"a tree-sitter query (S-expression) to run instead of a kind"`
	Path     string `json:"path,omitempty" jsonschema:"file or directory to search, relative to the workspace root; default the root"`
	Name     string `json:"name,omitempty" jsonschema:"with kind: keep symbols with this exact name or glob (* ? [..]); methods also match as Type.method"`
	Language string `json:"language,omitempty" jsonschema:"only files of this language; with query, the grammar to compile it for"`
}

// ASTSymbol is one symbol found by a kind search.
type ASTSymbol struct {
	Path string `json:"path"`
	syntax.Symbol
}

// ASTCapture is one node captured by a query search.
type ASTCapture struct {
	Path     string          `json:"path"`
	Language syntax.Language `json:"language"`
	syntax.Capture
}

// ASTSkipped is a file the search did not parse.
type ASTSkipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"` // "too large", "binary" or "unreadable"
}

// ASTSearchData is the structured result of ast_search. At most one of
// Symbols and Captures is set: Symbols for a kind, Captures for a query;
// neither when nothing was found.
type ASTSearchData struct {
	Symbols  []ASTSymbol  `json:"symbols,omitempty"`
	Captures []ASTCapture `json:"captures,omitempty"`
	// Total counts every result found; at most astMaxResults are listed.
	Total    int          `json:"total"`
	Files    int          `json:"files"` // files parsed
	Skipped  []ASTSkipped `json:"skipped,omitempty"`
	Capped   bool         `json:"capped"` // the file cap stopped the walk
	Warnings []string     `json:"warnings,omitempty"`
}

// ASTSearch lists symbols or runs tree-sitter queries over workspace files.
type ASTSearch struct {
	root   *workspace.Root
	parser *syntax.Parser
}

// NewASTSearch returns the ast_search tool for root, parsing with p (which
// the caller owns and closes).
func NewASTSearch(root *workspace.Root, p *syntax.Parser) *ASTSearch {
	return &ASTSearch{root: root, parser: p}
}

func (t *ASTSearch) Name() string        { return "ast_search" }
func (t *ASTSearch) Description() string { return astSearchDescription }

// TuneSchema lists the kinds and languages as enums.
func (t *ASTSearch) TuneSchema(s *jsonschema.Schema) {
	var kinds []any
	for _, k := range syntax.Kinds() {
		kinds = append(kinds, k.Plural())
	}
	s.Properties["kind"].Enum = kinds
	var langs []any
	for _, l := range syntax.Languages() {
		langs = append(langs, l.String())
	}
	s.Properties["language"].Enum = langs
}

// astRequest is a validated ast_search call.
type astRequest struct {
	kind  syntax.Kind    // with kind: what to list
	name  *regexp.Regexp // with kind: the name filter, if any
	query string         // with query: its source
	// langs are the languages to search, in order. With a query, only
	// those whose grammar compiled it remain, in queries.
	langs   []syntax.Language
	queries map[syntax.Language]*syntax.Query
	// rejected holds the languages whose grammar refused the query, in
	// the order of langs.
	rejected []syntax.Language
}

func (r *astRequest) close() {
	for _, q := range r.queries {
		q.Close()
	}
}

func (t *ASTSearch) Run(ctx context.Context, p ASTSearchParams) (Result, error) {
	req, res, ok := parseASTParams(p)
	if !ok {
		return res, nil
	}
	start, err := t.root.Resolve(p.Path)
	if err != nil {
		return pathError(err), nil
	}
	info, err := os.Stat(start.Abs)
	if err != nil {
		return fileError(displayPath(p.Path), err), nil
	}
	var single *astFile
	if !info.IsDir() {
		f, res, ok := singleFile(start, info, req)
		if !ok {
			return res, nil
		}
		single = &f
		// Compile the query for the file's grammar only, so an error
		// speaks about the file the model asked about.
		req.langs = []syntax.Language{f.lang}
	}
	if req.query != "" {
		if res, ok := req.compile(); !ok {
			return res, nil
		}
	}
	defer req.close()

	files := []astFile{}
	data := ASTSearchData{}
	if single != nil {
		files = append(files, *single)
	} else if files, data.Capped, err = t.collect(ctx, start, req); err != nil {
		return Result{}, err
	}
	if err := t.search(ctx, files, req); err != nil {
		return Result{}, err
	}
	gather(&data, files, req)
	return Result{Output: formatAST(data, req, start.Rel), Data: data}, nil
}

// parseASTParams checks the arguments that need no file system. On
// failure it returns the tool error to report.
func parseASTParams(p ASTSearchParams) (*astRequest, Result, bool) {
	hasKind, hasQuery := strings.TrimSpace(p.Kind) != "", strings.TrimSpace(p.Query) != ""
	switch {
	case hasKind && hasQuery:
		return nil, Errorf("give either kind or query, not both: kind lists symbols, query runs a raw tree-sitter query"), false
	case !hasKind && !hasQuery:
		return nil, Errorf("give kind (e.g. \"functions\") to list symbols, or query to run a tree-sitter query"), false
	case hasQuery && p.Name != "":
		return nil, Errorf("name only filters kind searches; in a query, use a predicate such as (#eq? @name \"foo\") or (#match? @name \"^foo\")"), false
	}
	req := &astRequest{langs: syntax.Languages(), query: p.Query}
	if p.Language != "" {
		l, ok := syntax.ParseLanguage(p.Language)
		if !ok {
			return nil, Errorf("unknown language %q; use one of typescript, tsx, javascript, go, python, rust", p.Language), false
		}
		req.langs = []syntax.Language{l}
		if l == syntax.TypeScript {
			// TSX is TypeScript with JSX: a TypeScript search covers it.
			req.langs = append(req.langs, syntax.TSX)
		}
	}
	if hasQuery {
		return req, Result{}, true
	}
	k, ok := syntax.ParseKind(p.Kind)
	if !ok {
		return nil, Errorf("unknown kind %q; use one of %s", p.Kind, kindList()), false
	}
	req.kind = k
	if p.Name != "" {
		re, err := globRegexp(p.Name)
		if err != nil {
			return nil, Errorf("invalid name pattern %q: %v", p.Name, err), false
		}
		req.name = re
	}
	return req, Result{}, true
}

// compile compiles the query for every requested language, keeping those
// whose grammar accepts it; it fails only if none does.
func (r *astRequest) compile() (Result, bool) {
	r.queries = make(map[syntax.Language]*syntax.Query)
	var errs []string
	var ok []syntax.Language
	for _, l := range r.langs {
		q, err := syntax.NewQuery(l, r.query)
		if err != nil {
			r.rejected = append(r.rejected, l)
			errs = append(errs, err.Error())
			continue
		}
		r.queries[l] = q
		ok = append(ok, l)
	}
	if len(ok) == 0 {
		what := "any searched language"
		if len(r.langs) == 1 {
			what = r.langs[0].String()
		}
		return Errorf("the query does not compile for %s:\n%s", what, strings.Join(errs, "\n")), false
	}
	r.langs = ok
	return Result{}, true
}

func kindList() string {
	var names []string
	for _, k := range syntax.Kinds() {
		names = append(names, k.Plural())
	}
	return strings.Join(names, ", ")
}

// singleFile checks that an explicitly named file can be searched.
func singleFile(start workspace.Path, info fs.FileInfo, req *astRequest) (astFile, Result, bool) {
	if !info.Mode().IsRegular() {
		return astFile{}, Errorf("%s is not a regular file", start.Rel), false
	}
	lang, ok := syntax.LanguageForPath(start.Rel)
	if !ok {
		return astFile{}, Errorf("%s is not in a supported language; ast_search reads TypeScript, JavaScript, Go, Python and Rust files (use text_search for others)", start.Rel), false
	}
	if !slices.Contains(req.langs, lang) {
		return astFile{}, Errorf("%s is %s, not the requested language", start.Rel, lang), false
	}
	if info.Size() > astMaxFileBytes {
		return astFile{}, Errorf("%s is %d MB, over the %d MB limit for parsing; use text_search, or read_file with a line range", start.Rel, info.Size()>>20, astMaxFileBytes>>20), false
	}
	return astFile{rel: start.Rel, abs: start.Abs, lang: lang}, Result{}, true
}

// globRegexp compiles a name glob. Unlike path.Match, * also matches "/",
// ":" and ".", so "*http" finds the import "net/http" and "*.query" finds
// the call "this.db.query". ? matches one character, [...] a class ([!...]
// negated), and \ escapes the next character.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			// A ] right after [ or [! is a member, as in path.Match.
			j := i + 1
			if j < len(glob) && (glob[j] == '!' || glob[j] == '^') {
				j++
			}
			if j < len(glob) && glob[j] == ']' {
				j++
			}
			end := strings.IndexByte(glob[j:], ']')
			if end < 0 {
				return nil, errors.New("unclosed [")
			}
			class := glob[i+1 : j+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, "[", `\[`) + "]")
			i = j + end
		case '\\':
			if i+1 < len(glob) {
				i++
				b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	b.WriteString(`)$`)
	return regexp.Compile(b.String())
}
