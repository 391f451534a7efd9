package syntax

import (
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Rust maps onto the kinds as follows:
//
//   - functions: free fns (nested ones included) and `macro_rules!`
//     definitions, the latter named "name!".
//   - methods: fns in impl blocks, named "Type::method" (type parameters
//     dropped; for `impl Trait for Type` the type, not the trait), and fns
//     and fn signatures in trait bodies, named "Trait::method".
//   - classes: structs and unions. Rust has no classes; structs carry the
//     data and, through impls, the methods that classes do elsewhere.
//   - interfaces: traits.
//   - types: type aliases, including associated types defined in impls
//     (`type Item = u32;`); a trait's declarations (`type Item;`) are not
//     type items and are left out.
//   - enums: enums.
//   - imports: use declarations, named by path (`std::fmt::{self,
//     Display}` as written; for `a::B as C` the path a::B and Ident C),
//     and `extern crate`.
//   - exports: items declared plain `pub` (fns, methods, structs, enums,
//     unions, traits, type aliases, consts, statics, mods, and `pub use`
//     re-exports by the name they bind). pub(crate) and pub(super) items
//     stay inside the crate and are left out, as are trait impl methods.
//   - variables: const and static items.
//   - calls: call expressions by callee ("self.data.get", "HashMap::new")
//     and macro invocations ("println!"). Calls inside macro arguments are
//     not parsed by the grammar and are not seen.

const rustQuery = `
(function_item) @function
(function_signature_item) @function
(struct_item) @class
(union_item) @class
(enum_item) @enum
(trait_item) @interface
(type_item) @type
(use_declaration) @import
(extern_crate_declaration) @extern_crate
(const_item) @variable
(static_item) @variable
(mod_item) @mod
(macro_definition) @macro_definition
(call_expression) @call
(macro_invocation) @macro_call
`

type rustExtractor struct {
	base
}

func (x *rustExtractor) handle(capture string, n *sitter.Node) {
	switch capture {
	case "function":
		x.function(n)
	case "class":
		x.item(Class, n)
	case "enum":
		x.item(Enum, n)
	case "interface":
		x.item(Interface, n)
	case "type":
		x.item(Type, n)
	case "variable":
		x.item(Variable, n)
	case "import":
		x.use(n)
	case "extern_crate":
		name := field(n, "name")
		if name == nil {
			return
		}
		id := x.text(name)
		x.add(Import, n, id, id, "", trimSig(x.flat(n)))
	case "mod":
		if name := field(n, "name"); name != nil {
			x.export(n, x.text(name), x.text(name), "", trimSig(x.sig(n, field(n, "body"))))
		}
	case "macro_definition":
		if name := field(n, "name"); name != nil {
			id := x.text(name)
			x.add(Function, n, id+"!", id, "", "macro_rules! "+id)
		}
	case "call":
		x.addCall(&rustCallee, n)
	case "macro_call":
		name := x.flat(field(n, "macro")) + "!"
		x.add(Call, n, name, lastSegment(name), "", x.flat(n))
	}
}

// export records an export for an item declared plain `pub`; container is
// the impl type of a method.
func (x *rustExtractor) export(n *sitter.Node, name, ident, container, sig string) {
	if vis := firstChildOfKind(n, "visibility_modifier"); vis != nil && x.text(vis) == "pub" {
		x.add(Export, n, name, ident, container, sig)
	}
}

func (x *rustExtractor) function(n *sitter.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	id := x.text(name)
	sig := trimSig(x.sig(n, field(n, "body")))
	container := ""
	if list := n.Parent(); kindOf(list) == "declaration_list" {
		switch owner := list.Parent(); kindOf(owner) {
		case "impl_item":
			container = stripTypeArgs(x.flat(field(owner, "type")))
		case "trait_item":
			container = x.text(field(owner, "name"))
		}
	}
	if container == "" {
		x.add(Function, n, id, id, "", sig)
		x.export(n, id, id, "", sig)
		return
	}
	qual := container + "::" + id
	x.add(Method, n, qual, id, container, sig)
	x.export(n, qual, id, container, sig)
}

// item adds a named item (struct, enum, trait, type, const, static).
func (x *rustExtractor) item(k Kind, n *sitter.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	id := x.text(name)
	sig := trimSig(x.sig(n, field(n, "body")))
	x.add(k, n, id, id, "", sig)
	x.export(n, id, id, "", sig)
}

func (x *rustExtractor) use(n *sitter.Node) {
	arg := field(n, "argument")
	if arg == nil {
		return
	}
	name, ident := x.flat(arg), x.flat(arg)
	switch arg.Kind() {
	case "use_as_clause":
		name, ident = x.flat(field(arg, "path")), x.text(field(arg, "alias"))
	case "scoped_identifier":
		ident = x.text(field(arg, "name"))
	}
	sig := trimSig(x.flat(n))
	x.add(Import, n, name, ident, "", sig)
	x.export(n, ident, ident, "", sig)
}

// rustCallee has no subscript: the grammar's index_expression names no
// fields, so `v[0]()` is named by its source. A turbofish
// (`parse::<u32>`) is dropped.
var rustCallee = calleeGrammar{
	member: "field_expression", object: "value", property: "field",
	call:     "call_expression",
	wrappers: []string{"parenthesized_expression", "generic_function"},
}
