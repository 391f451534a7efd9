package syntax

import (
	"crypto/sha256"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// cacheKey identifies a parse by content. The same bytes parse differently
// as TypeScript and TSX, so the language is part of the key.
type cacheKey struct {
	lang Language
	sum  [sha256.Size]byte
}

func makeKey(l Language, src []byte) cacheKey {
	return cacheKey{lang: l, sum: sha256.Sum256(src)}
}

// entry is one cached parse: the tree and, once someone has asked, the
// symbols extracted from it.
//
// Who may use a tree while it is evicted? Nobody uses the cached tree
// itself: users get a copy (see [Parser.copyTree]) taken under the cache
// lock, and eviction closes the cached tree under that same lock. A copy
// shares the immutable nodes by reference count, so it stays valid after
// the original is freed, and eviction never waits for users. The symbols
// are plain Go values, shared read-only and copied out.
type entry struct {
	tree *sitter.Tree // guarded by treeCache.mu; nil once evicted
	size int          // source bytes

	mu        sync.Mutex // serialises extraction, so it runs once per entry
	symbols   []Symbol
	extracted bool
}

// cachedSymbols returns a copy of the symbols if they have been extracted.
func (e *entry) cachedSymbols() ([]Symbol, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.extracted {
		return nil, false
	}
	return append([]Symbol(nil), e.symbols...), true
}

// symbolsOnce returns a copy of the entry's symbols, running extract to
// fill them if no one has yet. Concurrent callers wait for the first.
func (e *entry) symbolsOnce(extract func() []Symbol) []Symbol {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.extracted {
		e.symbols = extract()
		e.extracted = true
	}
	return append([]Symbol(nil), e.symbols...)
}

// treeCache is a least-recently-used cache of parses, bounded both in
// entries and in total source bytes. simplelru is used under our own lock
// (rather than the locked lru.Cache) so that lookup-and-copy and
// check-and-insert are each one critical section.
type treeCache struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[cacheKey, *entry]
	bytes    int
	maxBytes int
	hits     uint64
	misses   uint64
}

func newTreeCache(maxEntries, maxBytes int, closeTree func(*sitter.Tree)) *treeCache {
	c := &treeCache{maxBytes: maxBytes}
	// The eviction callback runs inside lru calls, so always under c.mu.
	lru, err := simplelru.NewLRU(maxEntries, func(_ cacheKey, e *entry) {
		c.bytes -= e.size
		if e.tree != nil {
			closeTree(e.tree)
			e.tree = nil
		}
	})
	if err != nil { // only for a non-positive size, which New rules out
		panic(err)
	}
	c.lru = lru
	return c
}

// symbols returns a copy of the extracted symbols cached for key, if any.
// It counts a hit only when it answers; otherwise the caller goes on to
// get, which counts the hit or miss for the tree.
func (c *treeCache) symbols(key cacheKey) ([]Symbol, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(key)
	if !ok {
		return nil, false
	}
	syms, ok := e.cachedSymbols()
	if ok {
		c.hits++
	}
	return syms, ok
}

// get returns the entry for key and a copy of its tree made by copyTree,
// or nil if key is not cached.
func (c *treeCache) get(key cacheKey, copyTree func(*sitter.Tree) *sitter.Tree) (*entry, *sitter.Tree) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(key)
	if !ok {
		c.misses++
		return nil, nil
	}
	c.hits++
	return e, copyTree(e.tree)
}

// add caches t, a fresh parse of size bytes, and returns the entry and a
// tree for the caller. If another caller cached the same content first,
// their entry is kept and the caller keeps t. A source too large for the
// cache is not cached: the entry is nil and the caller keeps t.
func (c *treeCache) add(key cacheKey, size int, t *sitter.Tree, copyTree func(*sitter.Tree) *sitter.Tree) (*entry, *sitter.Tree) {
	if size > c.maxBytes {
		return nil, t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.lru.Get(key); ok {
		return e, t
	}
	e := &entry{tree: t, size: size}
	c.lru.Add(key, e)
	c.bytes += size
	for c.bytes > c.maxBytes && c.lru.Len() > 1 {
		c.lru.RemoveOldest()
	}
	return e, copyTree(t)
}

// purge evicts every entry, freeing the cached trees.
func (c *treeCache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Purge()
}

func (c *treeCache) stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Entries: c.lru.Len(), Bytes: c.bytes, Hits: c.hits, Misses: c.misses}
}
