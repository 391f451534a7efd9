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

// entry is what is cached for one content: its parse tree while the tree
// budget allows, and the symbols extracted from it once someone has asked.
//
// Who may use a tree while it is evicted? Nobody uses the cached tree
// itself: users get a copy (see [Parser.copyTree]) taken under the cache
// lock, and eviction closes the cached tree under that same lock. A copy
// shares the immutable nodes by reference count, so it stays valid after
// the original is freed, and eviction never waits for users. The symbols
// are plain Go values, shared read-only and copied out.
type entry struct {
	tree *sitter.Tree // guarded by cache.mu; nil when not cached
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

// cache holds entries in two least-recently-used lists with byte budgets
// counted in source bytes. Every entry is in entries; those that still
// hold a tree are also in trees. Trees cost an order of magnitude more
// memory than symbols (see [DefaultMaxTreeBytes]), so trees get the
// smaller budget: a tree is dropped long before the symbols of the
// same file, and a warm kind search needs no tree at all.
//
// simplelru is used under our own lock (rather than the locked lru.Cache)
// so that lookup-and-copy and check-and-insert are each one critical
// section, and so the two lists change together.
type cache struct {
	mu                     sync.Mutex
	entries                *simplelru.LRU[cacheKey, *entry]
	trees                  *simplelru.LRU[cacheKey, *entry]
	entryBytes, treeBytes  int
	maxEntryBytes, maxTree int
	hits, misses           uint64
}

func newCache(maxEntries, maxEntryBytes, maxTreeBytes int, closeTree func(*sitter.Tree)) *cache {
	c := &cache{maxEntryBytes: maxEntryBytes, maxTree: maxTreeBytes}
	// The eviction callbacks run inside lru calls, so always under c.mu.
	trees, err := simplelru.NewLRU(maxEntries, func(_ cacheKey, e *entry) {
		c.treeBytes -= e.size
		closeTree(e.tree)
		e.tree = nil
	})
	if err != nil { // only for a non-positive size, which New rules out
		panic(err)
	}
	entries, err := simplelru.NewLRU(maxEntries, func(k cacheKey, e *entry) {
		c.entryBytes -= e.size
		c.trees.Remove(k)
	})
	if err != nil {
		panic(err)
	}
	c.trees, c.entries = trees, entries
	return c
}

// symbols returns a copy of the extracted symbols cached for key, if any.
// It counts a hit only when it answers; otherwise the caller goes on to
// tree, which counts the hit or miss.
//
// The entry is read after c.mu is released: its symbols wait on e.mu while
// another caller extracts them, and copying them may take a while, neither
// of which should hold up lookups of other files.
func (c *cache) symbols(key cacheKey) ([]Symbol, bool) {
	c.mu.Lock()
	e, ok := c.entries.Get(key)
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	syms, ok := e.cachedSymbols()
	if ok {
		c.mu.Lock()
		c.hits++
		c.mu.Unlock()
	}
	return syms, ok
}

// tree returns the entry for key and a copy of its tree made by copyTree,
// or nil if no tree for key is cached.
func (c *cache) tree(key cacheKey, copyTree func(*sitter.Tree) *sitter.Tree) (*entry, *sitter.Tree) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.trees.Get(key)
	if !ok {
		c.misses++
		return nil, nil
	}
	c.hits++
	c.entries.Get(key) // a use of the tree is a use of the entry
	return e, copyTree(e.tree)
}

// add caches t, a fresh parse of size bytes, and returns the entry and a
// tree for the caller, who owns it. If the tree is already cached (another
// caller parsed the same content at the same time) or does not fit the
// tree budget, the caller keeps t itself. The entry is nil if size is over
// the entry budget.
func (c *cache) add(key cacheKey, size int, t *sitter.Tree, copyTree func(*sitter.Tree) *sitter.Tree) (*entry, *sitter.Tree) {
	if size > c.maxEntryBytes {
		return nil, t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries.Get(key)
	if !ok {
		e = &entry{size: size}
		c.entries.Add(key, e)
		c.entryBytes += size
		for c.entryBytes > c.maxEntryBytes && c.entries.Len() > 1 {
			c.entries.RemoveOldest() // never e: it is the newest
		}
	}
	if e.tree != nil || size > c.maxTree {
		return e, t
	}
	e.tree = t
	c.trees.Add(key, e)
	c.treeBytes += size
	for c.treeBytes > c.maxTree && c.trees.Len() > 1 {
		c.trees.RemoveOldest()
	}
	return e, copyTree(t)
}

// purge evicts every entry, freeing the cached trees.
func (c *cache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.Purge()
	c.trees.Purge()
}

func (c *cache) stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{
		Entries:   c.entries.Len(),
		Trees:     c.trees.Len(),
		TreeBytes: c.treeBytes,
		Hits:      c.hits,
		Misses:    c.misses,
	}
}
