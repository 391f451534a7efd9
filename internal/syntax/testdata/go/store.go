// Package store keeps users in memory.
package store

import (
	"context"
	"errors"
	"fmt"
	stdsync "sync"

	_ "embed"
)

import "strings"

// ErrNotFound is returned for a missing key.
var ErrNotFound = errors.New("store: not found")

var (
	defaultStore *Store
	hits, misses int
)

const MaxKeys = 1 << 20

// Color is an enum.
type Color int

const (
	Red Color = iota
	Green
	Blue
)

const (
	a = 1
	b = 2
)

// Store is a concurrency-safe map.
type Store struct {
	mu   stdsync.Mutex
	data map[string]string
}

// Getter reads values.
type Getter interface {
	Get(ctx context.Context, key string) (string, error)
	fmt.Stringer
}

type ID = string

type (
	Handler func(key string) error
	pair    struct{ k, v string }
)

type List[T any] struct {
	items []T
}

// New returns an empty store.
func New() *Store {
	return &Store{data: make(map[string]string)}
}

// Get returns the value for key.
func (s *Store) Get(ctx context.Context, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.data[key]
	if !ok {
		return "", fmt.Errorf("get %q: %w", key, ErrNotFound)
	}
	return v, nil
}

func (s Store) Len() int { return len(s.data) }

func (l *List[T]) Push(v T) {
	l.items = append(l.items, v)
}

func normalize(key string,
	upper bool) string {
	if upper {
		return strings.ToUpper(key)
	}
	return strings.ToLower(strings.TrimSpace(key))
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}
