package tools

import (
	"fmt"
	"sort"
)

// Set is an ordered collection of tools with unique names: the tools one
// agent may call. Dispatching through a Set is what keeps an agent inside its
// tool set, whatever the model asks for.
type Set struct {
	order []string
	byKey map[string]Tool
}

// NewSet returns a set of the given tools. It panics on a duplicate name, a
// wiring mistake.
func NewSet(ts ...Tool) *Set {
	s := &Set{byKey: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		if _, dup := s.byKey[t.Name()]; dup {
			panic(fmt.Sprintf("tools: duplicate tool %q", t.Name()))
		}
		s.order = append(s.order, t.Name())
		s.byKey[t.Name()] = t
	}
	return s
}

// Get returns the named tool, if the set has it.
func (s *Set) Get(name string) (Tool, bool) {
	t, ok := s.byKey[name]
	return t, ok
}

// Tools returns the tools in the order they were added.
func (s *Set) Tools() []Tool {
	out := make([]Tool, len(s.order))
	for i, n := range s.order {
		out[i] = s.byKey[n]
	}
	return out
}

// Names returns the tool names, sorted.
func (s *Set) Names() []string {
	out := append([]string(nil), s.order...)
	sort.Strings(out)
	return out
}

// Only returns a new set holding just the named tools that s has, in s's
// order. Names s lacks are ignored.
func (s *Set) Only(names ...string) *Set {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	var ts []Tool
	for _, n := range s.order {
		if want[n] {
			ts = append(ts, s.byKey[n])
		}
	}
	return NewSet(ts...)
}
