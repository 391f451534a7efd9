package syntax

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// A module's surface is what other files can see of it: each name it
// declares at top level with its "shape", what it exports and where each
// export comes from, and what it imports. Comparing two surfaces of a
// file tells which of its exports a change can affect; the bindings tell
// which files use those exports.
//
// A shape is default-deny: it keeps every token of the declaration,
// comments included, and leaves out only what a written rule proves the
// type checker never reads to type anything outside that text (layout,
// comments that carry no type, and the bodies the per-language rules of
// surface_ecma.go and surface_python.go name, each with the compiler
// behaviour that makes it safe; ARCHITECTURE.md lists them). A construct
// no rule names stays in the shape, and a top-level statement that is no
// one name's declaration is module-wide (its change changes every
// export), so two equal shapes mean equal declarations as far as
// importers can tell, whatever the file holds.

// Surface is one module's surface.
type Surface struct {
	// Opaque, when not empty, says why the module's exports cannot be told
	// apart (CommonJS assignments, `export =`, a syntax error): a change to
	// such a module counts as a change to all of them.
	Opaque string
	// Names maps every top-level name the module declares to its shape.
	// Declarations of one name (overloads, merged interfaces and
	// namespaces, assignments) share one shape.
	Names map[string]Shape
	// ModuleWide is the shape of what belongs to no one name and may still
	// change what the module offers (Python's __all__, conditional
	// definitions, a module __getattr__): when it changes, every export
	// counts as changed.
	ModuleWide Shape
	// Exports maps each exported name to where it comes from.
	Exports map[string]Origin
	// Stars are the modules whose exports this one re-exports whole
	// (`export * from "m"`, Python's `from m import *`).
	Stars []string
	// Imports are the module's bindings to other modules, side-effect
	// imports, dynamic imports and requires included.
	Imports []Binding
}

// Shape is a declaration reduced to what other files can see of it.
type Shape struct {
	// Hash digests the declaration's tokens, comments and the bodies other
	// files cannot see left out.
	Hash string
	// Refs are the names the kept tokens refer to: "x" for a plain
	// identifier, "ns.x" for a member of an identifier (so a namespace
	// import's use names the member).
	Refs []string
}

// Origin says where an exported name comes from: a local name (a
// declaration of this module, or one of its import bindings), or a name of
// another module ("*" for the whole module, `export * as ns`).
type Origin struct {
	Local  string
	Module string
	Name   string
	// TypeOnly: exported as a type alone (`export type { X }`, `export {
	// type X }`), which an importer cannot use as a value (TS1362).
	TypeOnly bool
}

// Binding is one use of another module.
type Binding struct {
	// Local is the name the binding declares; empty for a side-effect
	// import, and a name no source can spell ("\x00…") for a dynamic import
	// or require, so that shapes containing the call refer to it.
	Local string
	// Module is the specifier as written ("./types", "..core", "a.b").
	Module string
	// Name is the imported name: "default", "*" for the whole module (a
	// namespace import, `import a.b`), "" for a side-effect import.
	Name string
	// Members are the names used as Local.member, for a whole-module
	// binding; Whole reports that Local is also used otherwise (passed
	// around, called), so every export matters.
	Members []string
	Whole   bool
	// TypeOnly: imported as a type alone (`import type`, `import { type X
	// }`); a re-export of it is type-only too.
	TypeOnly bool
}

// Surface returns the surface of src, a file in language l. Languages
// without a surface extractor (Go, Rust: their servers report dependants
// themselves) get an opaque surface.
func (p *Parser) Surface(ctx context.Context, l Language, src []byte) (*Surface, error) {
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
	_, t, err := p.tree(st, makeKey(l, src), src)
	if err != nil {
		return nil, err
	}
	defer p.closeTree(t)
	root := t.RootNode()
	var s *Surface
	switch l {
	case TypeScript, TSX, JavaScript:
		s = ecmaSurface(src, root, l != JavaScript)
	case Python:
		s = pythonSurface(src, root)
	default:
		return &Surface{Opaque: "no surface for " + l.String()}, nil
	}
	if s.Opaque == "" && root.HasError() {
		s.Opaque = "the file does not parse"
	}
	return s, nil
}

// shaper accumulates one shape: the tokens of the nodes it is given,
// minus what a language's skip function leaves out.
type shaper struct {
	src  []byte
	h    []byte // the kept tokens, separated by NUL
	refs map[string]bool
	// skip returns, for a node, the subtree to leave out of the shape (a
	// body other files cannot see), or nil.
	skip func(n *sitter.Node) *sitter.Node
	// ident reports whether a node is an identifier that refers to a
	// declaration (as opposed to a property name); member reports whether
	// it is a member access whose object and property fields name "ns.x".
	ident  func(kind string) bool
	member func(n *sitter.Node) (object, property *sitter.Node)
	// extra, if set, returns a reference a node makes that is not an
	// identifier (a dynamic import's module), or "".
	extra func(n *sitter.Node) string
	// keepComment reports whether a comment's text is code to the
	// checker (JSDoc in JavaScript, a type comment, a pragma); other
	// comments are left out. Nil leaves every comment out.
	keepComment func(text string) bool
	// stringRefs: the words of a string literal are references too
	// (Python, where a string annotation is a forward reference to the
	// names in it); docstrings excepted.
	stringRefs bool
	// attached are the nodes that belong to a statement without being
	// inside it (a type comment after it on its line), by the
	// statement's position: adding the statement adds them.
	attached map[nodeKey][]*sitter.Node
}

// nodeKey names a node of one tree.
type nodeKey struct {
	start, end uint
	kind       string
}

func keyOf(n *sitter.Node) nodeKey { return nodeKey{n.StartByte(), n.EndByte(), n.Kind()} }

func newShaper(src []byte, skip func(*sitter.Node) *sitter.Node, ident func(string) bool, member func(*sitter.Node) (*sitter.Node, *sitter.Node)) *shaper {
	return &shaper{src: src, refs: map[string]bool{}, skip: skip, ident: ident, member: member}
}

// add appends n's tokens and references to the shape.
func (s *shaper) add(n *sitter.Node) {
	if n != nil {
		s.walk(n, false)
	}
}

// walk adds n; noRef is set for the object of a member access already
// recorded as "object.property".
func (s *shaper) walk(n *sitter.Node, noRef bool) {
	if n.Kind() == "comment" {
		if text := s.text(n); s.keepComment != nil && s.keepComment(text) {
			s.literal(text)
			s.commentRefs(text)
		}
		return
	}
	if extras := s.attached[keyOf(n)]; len(extras) > 0 {
		defer func() {
			for _, e := range extras {
				s.walk(e, false)
			}
		}()
	}
	if s.stringRefs && n.Kind() == "string" && !isDocstring(n) {
		s.commentRefs(s.text(n))
	}
	var object *sitter.Node
	if obj, prop := s.member(n); obj != nil && prop != nil && s.ident(obj.Kind()) {
		s.refs[s.text(obj)+"."+s.text(prop)] = true
		object = obj
	} else if s.ident(n.Kind()) && !noRef {
		s.refs[s.text(n)] = true
	}
	if s.extra != nil {
		if r := s.extra(n); r != "" {
			s.refs[r] = true
		}
	}
	count := n.ChildCount()
	if count == 0 {
		s.h = append(s.h, s.src[n.StartByte():n.EndByte()]...)
		s.h = append(s.h, 0)
		return
	}
	var strip *sitter.Node
	if s.skip != nil {
		strip = s.skip(n)
	}
	for i := range count {
		c := n.Child(i)
		switch {
		case c == nil:
		case strip != nil && sameNode(c, strip):
			s.h = append(s.h, "{…}\x00"...)
		default:
			s.walk(c, object != nil && sameNode(c, object))
		}
	}
}

// commentWord finds what a kept comment may refer to: a name, or a
// member of one (`ns.T`), or a module a type is imported from.
var commentWord = regexp.MustCompile(`import\(\s*["']([^"']+)["']\s*\)|([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?`)

// commentRefs adds the references of a comment the checker reads (JSDoc
// types, type comments): every word, over-approximately, since its
// grammar is not parsed here.
func (s *shaper) commentRefs(text string) {
	for _, m := range commentWord.FindAllStringSubmatch(text, -1) {
		switch {
		case m[1] != "":
			s.refs[dynamicLocal(m[1])] = true
		case m[3] != "":
			s.refs[m[2]+"."+m[3]] = true
		default:
			s.refs[m[2]] = true
		}
	}
}

// isDocstring reports whether a string is a statement of its own, which
// no checker reads as a type.
func isDocstring(n *sitter.Node) bool {
	p := n.Parent()
	return p != nil && p.Kind() == "expression_statement" && p.NamedChildCount() == 1
}

// sameNode reports whether a and b are the same node of one tree.
func sameNode(a, b *sitter.Node) bool {
	return a.StartByte() == b.StartByte() && a.EndByte() == b.EndByte() && a.Kind() == b.Kind()
}

// literal appends a marker to the shape, for what is not a node.
func (s *shaper) literal(text string) {
	s.h = append(s.h, text...)
	s.h = append(s.h, 0)
}

func (s *shaper) text(n *sitter.Node) string { return string(s.src[n.StartByte():n.EndByte()]) }

// shape returns the digest and the references.
func (s *shaper) shape() Shape {
	sum := sha256.Sum256(s.h)
	refs := make([]string, 0, len(s.refs))
	for r := range s.refs {
		refs = append(refs, r)
	}
	slices.Sort(refs)
	return Shape{Hash: hex.EncodeToString(sum[:16]), Refs: refs}
}

// shapes collects the shapers of a module's names, in declaration order,
// so that several declarations of one name make one shape.
type shapes struct {
	order []string
	by    map[string]*shaper
	new   func() *shaper
}

func newShapes(mk func() *shaper) *shapes {
	return &shapes{by: map[string]*shaper{}, new: mk}
}

// of returns name's shaper, creating it on first use.
func (ss *shapes) of(name string) *shaper {
	s, ok := ss.by[name]
	if !ok {
		s = ss.new()
		ss.by[name] = s
		ss.order = append(ss.order, name)
	}
	return s
}

func (ss *shapes) done() map[string]Shape {
	out := make(map[string]Shape, len(ss.by))
	for _, name := range ss.order {
		out[name] = ss.by[name].shape()
	}
	return out
}

// memberUses fills, for each binding with a local name, the members used
// through it in the whole file (bodies included: an importer that uses a
// changed member anywhere must be checked), and whether the name is also
// used otherwise. It matters for whole-module bindings, and for Python's
// `from pkg import name`, whose name may be a submodule.
func memberUses(root *sitter.Node, src []byte, bindings []Binding, ident func(string) bool, member func(*sitter.Node) (*sitter.Node, *sitter.Node), imports map[string]bool) {
	locals := map[string]int{}
	for i, b := range bindings {
		if b.Local != "" && !strings.HasPrefix(b.Local, "\x00") {
			locals[b.Local] = i
		}
	}
	if len(locals) == 0 {
		return
	}
	members := map[int]map[string]bool{}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if obj, prop := member(n); obj != nil && prop != nil && ident(obj.Kind()) {
			if i, ok := locals[string(src[obj.StartByte():obj.EndByte()])]; ok {
				if members[i] == nil {
					members[i] = map[string]bool{}
				}
				members[i][string(src[prop.StartByte():prop.EndByte()])] = true
				return // the object is accounted for; the property is not a use
			}
		}
		if imports[n.Kind()] {
			return // the binding's own declaration
		}
		if ident(n.Kind()) {
			if i, ok := locals[string(src[n.StartByte():n.EndByte()])]; ok {
				bindings[i].Whole = true
			}
		}
		for i := range n.ChildCount() {
			if c := n.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(root)
	for i, ms := range members {
		for m := range ms {
			bindings[i].Members = append(bindings[i].Members, m)
		}
		slices.Sort(bindings[i].Members)
	}
}
