package syntax

import (
	"path"
	"slices"
	"unicode"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Go maps onto the kinds as follows. Every declaration has one kind, so a
// search for types does not repeat the structs found by a search for
// classes:
//
//   - functions: func declarations.
//   - methods: methods, named by receiver as Go writes them, "(*Store).Get"
//     or "Store.Len" (type parameters dropped), with the receiver in the
//     signature; and the methods of interface types ("Getter.Get").
//   - classes: struct types (`type Store struct`), the nearest thing Go has.
//   - interfaces: interface types.
//   - types: every other defined type and alias (`type ID = string`,
//     `type Handler func(...)`).
//   - enums: top-level const blocks that use iota, named by the type of
//     their first constant (or the constant itself when untyped). Their
//     constants are still variables.
//   - imports: import specs, named by import path; Ident is the package
//     name or alias.
//   - exports: exported (capitalised) top-level funcs, types, consts and
//     vars. Methods are left out: they are not top-level identifiers.
//   - variables: top-level const and var names; locals are left out.
//   - calls: call expressions by callee ("fmt.Errorf", "s.mu.Lock"),
//     conversions included, since the grammar cannot tell them apart.

const goQuery = `
(function_declaration) @function
(method_declaration) @method
(type_spec) @type
(type_alias) @type
(method_elem) @method_elem
(import_spec) @import
(source_file (const_declaration) @const)
(source_file (var_declaration) @var)
(call_expression) @call
`

type goExtractor struct {
	base
}

func (x *goExtractor) handle(capture string, n *sitter.Node) {
	switch capture {
	case "function":
		name := field(n, "name")
		if name == nil {
			return
		}
		id := x.text(name)
		sig := x.sig(n, field(n, "body"))
		x.add(Function, n, id, id, "", sig)
		x.export(n, id, sig)
	case "method":
		x.method(n)
	case "type":
		x.typeSpec(n)
	case "method_elem":
		name := field(n, "name")
		if name == nil {
			return
		}
		id := x.text(name)
		container := ""
		if iface := n.Parent(); iface != nil {
			if spec := iface.Parent(); kindOf(spec) == "type_spec" {
				container = x.text(field(spec, "name"))
			}
		}
		qual := id
		if container != "" {
			qual = container + "." + id
		}
		x.add(Method, n, qual, id, container, x.flat(n))
	case "import":
		p := field(n, "path")
		if p == nil {
			return
		}
		imp := unquote(x.text(p))
		ident := path.Base(imp)
		if alias := field(n, "name"); alias != nil {
			ident = x.text(alias)
		}
		x.add(Import, n, imp, ident, "", "import "+x.flat(n))
	case "const":
		x.constDecl(n)
	case "var":
		x.specs(n, "var")
	case "call":
		x.addCall(&goCallee, n)
	}
}

var goCallee = calleeGrammar{
	member: "selector_expression", object: "operand", property: "field",
	call:  "call_expression",
	index: "index_expression", indexed: "operand",
	wrappers: []string{"parenthesized_expression"},
	funcLit:  "func_literal",
}

// export records id as an export if it is exported.
func (x *goExtractor) export(at *sitter.Node, id, sig string) {
	if r, _ := utf8.DecodeRuneInString(id); unicode.IsUpper(r) {
		x.add(Export, at, id, id, "", sig)
	}
}

func (x *goExtractor) method(n *sitter.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	id := x.text(name)
	recv, pointer := "", false
	if list := field(n, "receiver"); list != nil {
		for _, p := range namedChildren(list) {
			if p.Kind() != "parameter_declaration" {
				continue
			}
			t := field(p, "type")
			if kindOf(t) == "pointer_type" {
				pointer = true
				t = t.NamedChild(0)
			}
			recv = stripTypeArgs(x.text(t))
			break
		}
	}
	qual := recv + "." + id
	if pointer {
		qual = "(*" + recv + ")." + id
	}
	x.add(Method, n, qual, id, recv, x.sig(n, field(n, "body")))
}

func (x *goExtractor) typeSpec(n *sitter.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	id := x.text(name)
	t := field(n, "type")
	kind, sig := Type, "type "+x.flat(n)
	switch kindOf(t) {
	case "struct_type", "interface_type":
		// Stop before the field or method list: "type Store struct".
		head := oneLine(x.src[n.StartByte():t.StartByte()])
		kind, sig = Class, "type "+head+" struct"
		if t.Kind() == "interface_type" {
			kind, sig = Interface, "type "+head+" interface"
		}
	}
	x.add(kind, n, id, id, "", sig)
	if isTopLevel(n) {
		x.export(n, id, sig)
	}
}

// isTopLevel reports whether a type spec is declared at package level
// rather than inside a function.
func isTopLevel(spec *sitter.Node) bool {
	decl := spec.Parent()
	return decl != nil && kindOf(decl.Parent()) == "source_file"
}

// constDecl adds a top-level const block's constants, and the block as an
// enum when it counts with iota.
func (x *goExtractor) constDecl(n *sitter.Node) {
	specs := x.specs(n, "const")
	usesIota := slices.ContainsFunc(specs, func(s *sitter.Node) bool {
		v := field(s, "value")
		return v != nil && containsKind(v, "iota")
	})
	if !usesIota {
		return
	}
	name := x.text(field(specs[0], "type"))
	if name == "" {
		name = x.text(field(specs[0], "name"))
	}
	x.add(Enum, n, name, name, "", x.flat(n))
}

// specs adds the names declared by a const or var declaration (kw) as
// variables and exports, and returns its specs.
func (x *goExtractor) specs(n *sitter.Node, kw string) []*sitter.Node {
	var specs []*sitter.Node
	for _, c := range namedChildren(n) {
		switch c.Kind() {
		case "const_spec", "var_spec":
			specs = append(specs, c)
		case "var_spec_list":
			for _, s := range namedChildren(c) {
				if s.Kind() == "var_spec" {
					specs = append(specs, s)
				}
			}
		}
	}
	for _, s := range specs {
		sig := kw + " " + x.flat(s)
		for _, c := range namedChildren(s) {
			// Names are the spec's only direct identifiers: the type is a
			// type_identifier and values sit in an expression_list.
			if c.Kind() != "identifier" {
				continue
			}
			id := x.text(c)
			if id == "_" {
				continue
			}
			x.add(Variable, c, id, id, "", sig)
			x.export(c, id, sig)
		}
	}
	return specs
}

// containsKind reports whether n or a descendant has node type kind.
func containsKind(n *sitter.Node, kind string) bool {
	if n.Kind() == kind {
		return true
	}
	for _, c := range namedChildren(n) {
		if containsKind(c, kind) {
			return true
		}
	}
	return false
}
