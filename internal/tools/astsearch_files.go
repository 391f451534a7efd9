package tools

import (
	"context"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// astFile is one file to parse and, after the search, what came of it.
type astFile struct {
	rel, abs string
	lang     syntax.Language

	symbols  []syntax.Symbol
	captures []syntax.Capture
	total    int    // results in this file, before any cap
	skipped  string // why the file was not parsed, if it was not
}

// collect walks the directory start for files in the requested languages,
// sorted by path, stopping at astMaxFiles.
func (t *ASTSearch) collect(ctx context.Context, start workspace.Path, req *astRequest) ([]astFile, bool, error) {
	var files []astFile
	capped := false
	err := t.root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
		if e.Mode.Type() != 0 { // directories, and symlinks, which are never followed
			return nil
		}
		lang, ok := syntax.LanguageForPath(e.Rel)
		if !ok || !slices.Contains(req.langs, lang) {
			return nil
		}
		if len(files) == astMaxFiles {
			capped = true
			return fs.SkipAll
		}
		files = append(files, astFile{rel: e.Rel, abs: e.Abs, lang: lang})
		return nil
	})
	slices.SortFunc(files, func(a, b astFile) int { return strings.Compare(a.rel, b.rel) })
	return files, capped, err
}

// search parses the files with a small worker pool; tree-sitter is CPU
// bound, so more workers than cores would only add memory.
func (t *ASTSearch) search(ctx context.Context, files []astFile, req *astRequest) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for range min(astMaxWorkers, runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := t.searchFile(ctx, &files[i], req); err != nil {
					once.Do(func() { firstErr = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// searchFile reads and searches one file. Problems with the file itself
// are recorded as skips; only infrastructure failures are errors.
func (t *ASTSearch) searchFile(ctx context.Context, f *astFile, req *astRequest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := t.root.Stat(f.rel)
	if err != nil {
		f.skipped = "unreadable"
		return nil
	}
	if info.Size() > astMaxFileBytes {
		f.skipped = "too large"
		return nil
	}
	src, err := t.root.ReadFile(f.rel)
	if err != nil {
		f.skipped = "unreadable"
		return nil
	}
	if workspace.IsBinary(src) {
		f.skipped = "binary"
		return nil
	}
	if q := req.queries[f.lang]; q != nil {
		f.captures, f.total, err = t.parser.Match(ctx, q, src, astMaxResults)
		return err
	}
	syms, err := t.parser.Symbols(ctx, f.lang, src)
	if err != nil {
		return err
	}
	for _, s := range syms {
		if s.Kind == req.kind && req.matches(s) {
			f.symbols = append(f.symbols, s)
		}
	}
	f.total = len(f.symbols)
	return nil
}

// matches reports whether s passes the name filter: by its shown name, its
// bare identifier, or Container.Ident for methods.
func (r *astRequest) matches(s syntax.Symbol) bool {
	if r.name == nil {
		return true
	}
	return r.name.MatchString(s.Name) || r.name.MatchString(s.Ident) ||
		(s.Container != "" && r.name.MatchString(s.Container+"."+s.Ident))
}
