package syntax

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Python maps onto the kinds as follows:
//
//   - functions: def and async def outside a class body, nested ones
//     included. A decorated definition is reported at its `def` line with
//     its decorators leading the signature.
//   - methods: defs directly in a class body (static methods, properties
//     and other decorated ones included), named "Class.method", or
//     "Outer.Inner.method" for nested classes.
//   - classes: class statements, except the two below.
//   - enums: classes deriving from Enum, IntEnum, StrEnum, Flag or IntFlag.
//   - interfaces: classes deriving from typing.Protocol.
//   - types: `type X = …` statements and `X: TypeAlias = …`.
//   - imports: `import a.b` (one per module), `from x import y` (named
//     by module x, relative dots kept) and `from __future__ import`.
//   - exports: the strings in a module-level `__all__` when there is one;
//     otherwise the module's public top-level names (defs, classes,
//     assignments and type aliases not starting with "_"). Imported names
//     are not counted, although `import *` would re-export them.
//   - variables: module-level assignment targets; class attributes and
//     locals are left out.
//   - calls: calls by callee ("self.repo.get"); decorators with arguments
//     are calls too.

const pyQuery = `
(function_definition) @function
(class_definition) @class
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
(module (expression_statement (assignment) @assign))
(module (expression_statement (augmented_assignment) @augassign))
(module (type_alias_statement) @typealias)
(call) @call
`

type pyExtractor struct {
	base
	hasAll bool     // the module assigns __all__
	all    []Symbol // exports from __all__
	public []Symbol // public top-level names, the exports without __all__
}

func (x *pyExtractor) handle(capture string, n *sitter.Node) {
	switch capture {
	case "function":
		x.function(n)
	case "class":
		x.class(n)
	case "import":
		x.importStatement(n)
	case "assign":
		x.assignment(n)
	case "augassign":
		if x.text(field(n, "left")) == "__all__" {
			x.allNames(field(n, "right"))
		}
	case "typealias":
		left := field(n, "left")
		if left == nil {
			return
		}
		id := x.text(left)
		x.add(Type, n, id, id, "", x.flat(n))
		x.publish(n, id, x.flat(n))
	case "call":
		x.addCall(&pyCallee, n)
	}
}

var pyCallee = calleeGrammar{
	member: "attribute", object: "object", property: "attribute",
	call:  "call",
	index: "subscript", indexed: "value",
	wrappers: []string{"parenthesized_expression"},
}

// definition returns the signature of a def or class: its decorators, if
// any, then the header up to the body.
func (x *pyExtractor) definition(n *sitter.Node) string {
	sig := x.sig(n, field(n, "body"))
	p := n.Parent()
	if kindOf(p) != "decorated_definition" {
		return sig
	}
	var parts []string
	for _, c := range namedChildren(p) {
		if c.Kind() == "decorator" {
			parts = append(parts, x.flat(c))
		}
	}
	return oneLine([]byte(strings.Join(append(parts, sig), " ")))
}

// scope returns the class, def or module that n is declared in.
func scope(n *sitter.Node) *sitter.Node {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Kind() {
		case "class_definition", "function_definition", "module":
			return p
		}
	}
	return nil
}

// classPath names class c with the classes enclosing it: "Outer.Inner".
func (x *pyExtractor) classPath(c *sitter.Node) string {
	name := x.text(field(c, "name"))
	if s := scope(c); kindOf(s) == "class_definition" {
		return x.classPath(s) + "." + name
	}
	return name
}

func (x *pyExtractor) function(n *sitter.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	id := x.text(name)
	sig := x.definition(n)
	s := scope(n)
	switch kindOf(s) {
	case "class_definition":
		container := x.classPath(s)
		x.add(Method, n, container+"."+id, id, container, sig)
	default:
		x.add(Function, n, id, id, "", sig)
		if kindOf(s) == "module" {
			x.publish(n, id, sig)
		}
	}
}

func (x *pyExtractor) class(n *sitter.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	id := x.text(name)
	kind := Class
	if supers := field(n, "superclasses"); supers != nil {
		for _, b := range namedChildren(supers) {
			base := b
			if b.Kind() == "subscript" { // Protocol[T]
				base = field(b, "value")
			}
			switch lastSegment(x.text(base)) {
			case "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag":
				kind = Enum
			case "Protocol":
				kind = Interface
			}
		}
	}
	sig := x.definition(n)
	x.add(kind, n, id, id, "", sig)
	if kindOf(scope(n)) == "module" {
		x.publish(n, id, sig)
	}
}

func (x *pyExtractor) importStatement(n *sitter.Node) {
	sig := x.flat(n)
	switch n.Kind() {
	case "future_import_statement":
		x.add(Import, n, "__future__", "__future__", "", sig)
	case "import_from_statement":
		mod := x.text(field(n, "module_name"))
		ident := mod
		// One imported name binds that name: `from x import y as z` is z.
		if names := childrenByField(n, "name"); len(names) == 1 {
			ident = x.boundName(names[0])
		}
		x.add(Import, n, mod, ident, "", sig)
	default: // import a.b, c as d
		for _, c := range namedChildren(n) {
			mod := c
			if c.Kind() == "aliased_import" {
				mod = field(c, "name")
			}
			if mod == nil || mod.Kind() != "dotted_name" {
				continue
			}
			ident := x.boundName(c)
			if c.Kind() == "dotted_name" {
				// `import os.path` binds os.
				ident, _, _ = strings.Cut(x.text(c), ".")
			}
			x.add(Import, c, x.text(mod), ident, "", sig)
		}
	}
}

// boundName is the local name an imported name binds: its alias, or itself.
func (x *pyExtractor) boundName(n *sitter.Node) string {
	if n.Kind() == "aliased_import" {
		return x.text(field(n, "alias"))
	}
	return x.text(n)
}

func (x *pyExtractor) assignment(n *sitter.Node) {
	left := field(n, "left")
	if left == nil {
		return
	}
	sig := x.flat(n)
	if x.text(left) == "__all__" {
		x.allNames(field(n, "right"))
	}
	kind := Variable
	if t := field(n, "type"); t != nil && lastSegment(x.text(t)) == "TypeAlias" {
		kind = Type
	}
	targets := []*sitter.Node{left}
	if k := left.Kind(); k == "pattern_list" || k == "tuple_pattern" {
		targets = namedChildren(left)
	}
	for _, t := range targets {
		if t.Kind() != "identifier" {
			continue // attributes and subscripts bind no new name
		}
		id := x.text(t)
		x.add(kind, t, id, id, "", sig)
		x.publish(t, id, sig)
	}
}

// allNames records the string entries of an __all__ list or tuple.
func (x *pyExtractor) allNames(list *sitter.Node) {
	x.hasAll = true
	if list == nil {
		return
	}
	for _, c := range namedChildren(list) {
		if c.Kind() != "string" {
			continue
		}
		id := x.stringValue(c)
		x.all = append(x.all, symbolAt(Export, c, id, id, "", "__all__ entry "+x.flat(c)))
	}
}

// stringValue returns a string literal's content without quotes or prefix.
func (x *pyExtractor) stringValue(n *sitter.Node) string {
	var b strings.Builder
	for _, c := range namedChildren(n) {
		if c.Kind() == "string_content" {
			b.WriteString(x.text(c))
		}
	}
	return b.String()
}

// publish remembers a public module-level name as a candidate export.
func (x *pyExtractor) publish(at *sitter.Node, id, sig string) {
	if strings.HasPrefix(id, "_") {
		return
	}
	x.public = append(x.public, symbolAt(Export, at, id, id, "", sig))
}

func (x *pyExtractor) finish() []Symbol {
	if x.hasAll {
		return append(x.syms, x.all...)
	}
	return append(x.syms, x.public...)
}
