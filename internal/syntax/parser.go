package syntax

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// ErrClosed is returned by a [Parser] used after [Parser.Close].
var ErrClosed = errors.New("syntax: parser closed")

// Defaults for [Options], in source bytes. Measured on Go code, a cached
// tree takes 30-40 times its source in C memory, and extracted symbols
// (calls included) about 2.5 times it in Go memory, so the defaults come to
// roughly 150 MB of trees and 80 MB of symbols at most: symbols stay warm
// for a large repository, trees for a package or two.
const (
	DefaultMaxEntries     = 8192
	DefaultMaxSymbolBytes = 32 << 20
	DefaultMaxTreeBytes   = 4 << 20
)

// Options configure a [Parser]'s cache. The zero value selects the
// defaults. Budgets count the source bytes of the files cached.
type Options struct {
	// MaxEntries bounds how many files have anything cached.
	MaxEntries int
	// MaxSymbolBytes bounds the files whose extracted symbols are kept. A
	// file larger than this is parsed but nothing of it is cached.
	MaxSymbolBytes int
	// MaxTreeBytes bounds the files whose parse trees are kept; a tree is
	// evicted long before its file's symbols.
	MaxTreeBytes int
}

// Parser parses source text and extracts symbols, reusing parse trees and
// extracted symbols for content it has seen before. It is safe for
// concurrent use. Its zero value is not usable; call [New], and call
// [Parser.Close] to free the C memory it holds.
//
// Parsing one file is not interruptible: callers bound the size of what
// they parse (ast_search skips files over 2 MB, a fraction of a second of
// parsing) and contexts are checked between steps. The binding's
// cancellable parse entry point leaks its callback registration on every
// call, which is worse for a long-lived process than a short wait.
type Parser struct {
	// life is held for reading by every operation and for writing by Close,
	// so Close waits for in-flight work before it frees queries and trees
	// that work may be using.
	life   sync.RWMutex
	closed bool

	langs [numLanguages]langState
	cache *cache

	// liveTrees counts tree-sitter trees not yet freed: the cached ones
	// plus the per-use copies callers hold. Tests use it to find leaks.
	liveTrees atomic.Int64
}

// langState is what a Parser keeps per language, set up on first use so a
// session that only reads Go never compiles the TypeScript queries.
type langState struct {
	once    sync.Once
	lang    Language
	grammar *sitter.Language
	symbols *sitter.Query // the symbol-extraction query
	err     error
	// parsers holds idle tree-sitter parsers. A parser is single-threaded
	// and cheap to keep; the channel bounds how many idle ones stay alive.
	parsers chan *sitter.Parser
}

// New returns a Parser with the given cache bounds.
func New(opts Options) *Parser {
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.MaxSymbolBytes <= 0 {
		opts.MaxSymbolBytes = DefaultMaxSymbolBytes
	}
	if opts.MaxTreeBytes <= 0 {
		opts.MaxTreeBytes = DefaultMaxTreeBytes
	}
	p := &Parser{}
	p.cache = newCache(opts.MaxEntries, opts.MaxSymbolBytes, opts.MaxTreeBytes, p.closeTree)
	for _, l := range Languages() {
		p.langs[l].lang = l
		p.langs[l].parsers = make(chan *sitter.Parser, runtime.GOMAXPROCS(0))
	}
	return p
}

// Stats describes a Parser's cache, for tests and diagnostics.
type Stats struct {
	Entries   int   // files with symbols or a tree cached
	Trees     int   // parse trees in the cache
	TreeBytes int   // total source size of the cached trees
	LiveTrees int64 // trees not yet freed: cached, or in use by a call
	Hits      uint64
	Misses    uint64
}

// Stats returns the current cache statistics.
func (p *Parser) Stats() Stats {
	s := p.cache.stats()
	s.LiveTrees = p.liveTrees.Load()
	return s
}

// Close frees every tree, parser and query the Parser holds. It waits for
// calls in progress; later calls fail with [ErrClosed]. Close is idempotent.
func (p *Parser) Close() {
	p.life.Lock()
	defer p.life.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	p.cache.purge()
	for i := range p.langs {
		st := &p.langs[i]
		if st.parsers == nil {
			continue
		}
	drain:
		for {
			select {
			case ps := <-st.parsers:
				ps.Close()
			default:
				break drain
			}
		}
		if st.symbols != nil {
			st.symbols.Close()
			st.symbols = nil
		}
	}
}

// begin enters an operation; the caller must call p.life.RUnlock when done.
func (p *Parser) begin() error {
	p.life.RLock()
	if p.closed {
		p.life.RUnlock()
		return ErrClosed
	}
	return nil
}

// state returns l's per-language state, compiling its symbol query on first
// use. A query that does not compile is a bug in this package, reported as
// an error rather than a panic so one broken grammar cannot take down the
// others.
func (p *Parser) state(l Language) (*langState, error) {
	if !l.valid() {
		return nil, fmt.Errorf("syntax: unsupported language %d", int(l))
	}
	st := &p.langs[l]
	st.once.Do(func() {
		st.grammar = l.grammar()
		q, qerr := sitter.NewQuery(st.grammar, symbolQuery(l))
		if qerr != nil {
			st.err = fmt.Errorf("syntax: %s symbol query: %v", l, qerr)
			return
		}
		st.symbols = q
	})
	return st, st.err
}

// parse parses src with a pooled parser. The caller owns the returned tree.
func (p *Parser) parse(st *langState, src []byte) (*sitter.Tree, error) {
	var ps *sitter.Parser
	select {
	case ps = <-st.parsers:
	default:
		ps = sitter.NewParser()
		if err := ps.SetLanguage(st.grammar); err != nil {
			ps.Close()
			return nil, fmt.Errorf("syntax: %s grammar: %w", st.lang, err)
		}
	}
	tree := ps.Parse(src, nil)
	select {
	case st.parsers <- ps:
	default:
		ps.Close()
	}
	if tree == nil {
		// Only a timeout, cancellation or missing language makes
		// tree-sitter give up, and none of them is set here.
		return nil, fmt.Errorf("syntax: %s parser returned no tree", st.lang)
	}
	p.liveTrees.Add(1)
	return tree, nil
}

// closeTree frees a tree made by parse or copyTree.
func (p *Parser) closeTree(t *sitter.Tree) {
	t.Close()
	p.liveTrees.Add(-1)
}

// copyTree returns a shallow copy of t for one user. tree-sitter trees are
// not safe for concurrent use, but a copy is cheap (it shares the immutable
// nodes and bumps their reference counts), so every use of a cached tree
// works on its own copy.
func (p *Parser) copyTree(t *sitter.Tree) *sitter.Tree {
	p.liveTrees.Add(1)
	return t.Clone()
}

// tree returns a tree for src that the caller owns and must free with
// closeTree, and the cache entry for src (nil if src is too large to cache).
func (p *Parser) tree(st *langState, key cacheKey, src []byte) (*entry, *sitter.Tree, error) {
	if e, t := p.cache.tree(key, p.copyTree); e != nil {
		return e, t, nil
	}
	t, err := p.parse(st, src)
	if err != nil {
		return nil, nil, err
	}
	e, t := p.cache.add(key, len(src), t, p.copyTree)
	return e, t, nil
}

// Symbols returns the symbols of every kind in src, a file in language l,
// sorted by position. Results are cached by content: asking again about the
// same text costs a hash and a copy.
func (p *Parser) Symbols(ctx context.Context, l Language, src []byte) ([]Symbol, error) {
	if err := p.begin(); err != nil {
		return nil, err
	}
	defer p.life.RUnlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := p.state(l)
	if err != nil {
		return nil, err
	}
	key := makeKey(l, src)
	if syms, ok := p.cache.symbols(key); ok {
		return syms, nil
	}
	e, t, err := p.tree(st, key, src)
	if err != nil {
		return nil, err
	}
	defer p.closeTree(t)
	if e == nil {
		return extract(st, t, src), nil
	}
	return e.symbolsOnce(func() []Symbol { return extract(st, t, src) }), nil
}

// extract runs l's symbol query over t and lets the language's extractor
// turn the captured nodes into symbols.
func extract(st *langState, t *sitter.Tree, src []byte) []Symbol {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	x := newExtractor(st.lang, src)
	names := st.symbols.CaptureNames()
	ms := qc.Matches(st.symbols, t.RootNode(), src)
	for m := ms.Next(); m != nil; m = ms.Next() {
		for _, c := range m.Captures {
			n := c.Node // copy: the capture's memory is reused by Next
			x.handle(names[c.Index], &n)
		}
	}
	syms := x.finish()
	slices.SortStableFunc(syms, func(a, b Symbol) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Column != b.Column {
			return a.Column - b.Column
		}
		return int(a.Kind) - int(b.Kind)
	})
	return syms
}
