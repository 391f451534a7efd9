package syntax

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// TypeScript, TSX and JavaScript share one extractor; their grammars agree
// on the node types below, and the TypeScript query adds the type-only
// declarations. The mapping:
//
//   - functions: function and generator declarations, overload and
//     `declare` signatures, and arrow functions, function expressions and
//     generators bound to a const/let/var at any depth
//     (`export const handler = async (req) => {}`); an anonymous
//     `export default function () {}` is the function "default".
//   - methods: class methods (getters, setters, static and #private ones),
//     class fields holding a function (`onError = (e) => {}`), abstract
//     method signatures, method signatures in interfaces and object types,
//     and functions in object literals; named Container.method.
//   - classes: class declarations, abstract classes and class expressions
//     bound to a variable.
//   - interfaces, types (type aliases), enums (including const enums).
//   - imports: ES imports of every form (type-only, side-effect, namespace,
//     `import x = require()`), plus `require("x")` and `import("x")` calls;
//     the name is the module specifier.
//   - exports: exported declarations, `export default …` (named
//     "default"), export lists by their exported name (`export { a as b }`
//     is "b"), `export *` ("*") and `export * as ns` ("ns"), and CommonJS
//     `module.exports`/`exports.x` assignments at the top level.
//   - variables: module-level const/let/var declarators that hold neither
//     a function nor a class.
//   - calls: call and `new` expressions, named by callee ("this.pool.query",
//     "fn().catch"; arguments are dropped).

// ecmaCommonQuery holds the patterns both grammars understand.
const ecmaCommonQuery = `
(function_declaration) @function
(generator_function_declaration) @function
(variable_declarator value: [(arrow_function) (function_expression) (generator_function) (class)]) @declarator
(program (lexical_declaration (variable_declarator) @declarator))
(program (variable_declaration (variable_declarator) @declarator))
(program (export_statement declaration: (lexical_declaration (variable_declarator) @declarator)))
(program (export_statement declaration: (variable_declaration (variable_declarator) @declarator)))
(class_declaration) @class
(method_definition) @method
(pair value: [(arrow_function) (function_expression) (generator_function)]) @pair
(import_statement) @import
(export_statement) @export
(program (expression_statement (assignment_expression left: (member_expression)) @assign))
(call_expression) @call
(new_expression) @call
`

// tsQuery is the TypeScript and TSX symbol query.
const tsQuery = ecmaCommonQuery + `
(function_signature) @function
(abstract_class_declaration) @class
(method_signature) @method
(abstract_method_signature) @method
(public_field_definition value: [(arrow_function) (function_expression) (generator_function)]) @field
(interface_declaration) @interface
(type_alias_declaration) @type
(enum_declaration) @enum
`

// jsQuery is the JavaScript symbol query.
const jsQuery = ecmaCommonQuery + `
(field_definition value: [(arrow_function) (function_expression) (generator_function)]) @field
`

type ecmaExtractor struct {
	base
	// seen holds declarators already handled: a top-level declarator
	// holding a function matches two patterns.
	seen map[uint]bool
}

func (x *ecmaExtractor) handle(capture string, n *sitter.Node) {
	switch capture {
	case "function":
		x.named(Function, n, field(n, "body"))
	case "declarator":
		x.declarator(n)
	case "class":
		x.named(Class, n, field(n, "body"))
	case "method":
		x.member(n, field(n, "name"), field(n, "body"))
	case "field":
		name := field(n, "name") // TypeScript
		if name == nil {
			name = field(n, "property") // JavaScript
		}
		x.member(n, name, field(field(n, "value"), "body"))
	case "pair":
		x.member(n, field(n, "key"), field(field(n, "value"), "body"))
	case "interface":
		x.named(Interface, n, field(n, "body"))
	case "type":
		x.named(Type, n, nil)
	case "enum":
		x.named(Enum, n, field(n, "body"))
	case "import":
		x.importStatement(n)
	case "export":
		x.export(n)
	case "assign":
		x.commonJSExport(n)
	case "call":
		x.call(n)
	}
}

// named adds a declaration of kind k named by n's name field.
func (x *ecmaExtractor) named(k Kind, n, body *sitter.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	id := x.text(name)
	x.add(k, n, id, id, "", x.declSig(n, body))
}

// declSig is the signature of declaration n, starting at its `export` or
// `declare` keyword when it has one.
func (x *ecmaExtractor) declSig(n, body *sitter.Node) string {
	from := n
	for p := n.Parent(); p != nil; p = p.Parent() {
		k := p.Kind()
		if k != "export_statement" && k != "ambient_declaration" {
			break
		}
		from = p
	}
	return trimSig(x.sig(from, body))
}

func (x *ecmaExtractor) declarator(n *sitter.Node) {
	if x.seen == nil {
		x.seen = make(map[uint]bool)
	}
	if x.seen[n.StartByte()] {
		return
	}
	x.seen[n.StartByte()] = true
	nameNode := field(n, "name")
	if nameNode == nil {
		return
	}
	name := x.flat(nameNode)
	value := field(n, "value")
	// The signature starts at the declaration keyword (and export), then
	// skips to this declarator, so `const a = 1, f = () => {}` shows f alone.
	decl := n.Parent()
	prefix := ""
	if decl != nil {
		if kw := field(decl, "kind"); kw != nil {
			prefix = x.text(kw) + " "
		} else if decl.Kind() == "variable_declaration" {
			prefix = "var "
		}
		if p := decl.Parent(); p != nil && p.Kind() == "export_statement" {
			prefix = "export " + prefix
		}
	}
	switch kindOf(value) {
	case "arrow_function", "function_expression", "function", "generator_function":
		x.add(Function, n, name, name, "", prefix+trimSig(x.sig(n, field(value, "body"))))
	case "class":
		x.add(Class, n, name, name, "", prefix+trimSig(x.sig(n, field(value, "body"))))
	default:
		x.add(Variable, n, name, name, "", prefix+trimSig(x.flat(n)))
	}
}

// member adds a method: a class or object member n whose name node is
// name, with the given body.
func (x *ecmaExtractor) member(n, name, body *sitter.Node) {
	if name == nil {
		return
	}
	id := x.text(name)
	if k := name.Kind(); k == "string" || k == "computed_property_name" {
		id = x.flat(name)
	}
	container := x.container(n.Parent())
	qual := id
	if container != "" {
		qual = container + "." + id
	}
	x.add(Method, n, qual, id, container, trimSig(x.sig(n, body)))
}

// container names the class, interface, object type or object literal
// whose body is n, or "" if it has no name.
func (x *ecmaExtractor) container(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	owner := n.Parent()
	if n.Kind() == "object" || n.Kind() == "object_type" {
		owner = n
	}
	if owner == nil {
		return ""
	}
	if name := field(owner, "name"); name != nil && owner.Kind() != "object" {
		return x.text(name)
	}
	// Anonymous: a class expression or object literal bound to a name.
	p := owner.Parent()
	switch kindOf(p) {
	case "variable_declarator", "type_alias_declaration":
		return x.flat(field(p, "name"))
	case "pair":
		return x.flat(field(p, "key"))
	case "export_statement":
		return "default"
	}
	return ""
}

func (x *ecmaExtractor) importStatement(n *sitter.Node) {
	src := field(n, "source")
	if src == nil {
		// import x = require("y"): the source sits in the require clause.
		src = field(firstChildOfKind(n, "import_require_clause"), "source")
	}
	if src == nil {
		return
	}
	mod := unquote(x.text(src))
	ident := mod
	if clause := firstChildOfKind(n, "import_clause"); clause != nil {
		for _, c := range namedChildren(clause) {
			switch c.Kind() {
			case "identifier": // default import
				ident = x.text(c)
			case "namespace_import":
				if id := firstChildOfKind(c, "identifier"); id != nil {
					ident = x.text(id)
				}
			}
		}
	}
	x.add(Import, n, mod, ident, "", trimSig(x.flat(n)))
}

func (x *ecmaExtractor) export(n *sitter.Node) {
	if d := field(n, "declaration"); d != nil {
		x.exportDeclaration(n, d, hasChild(n, "default"))
		return
	}
	if v := field(n, "value"); v != nil {
		// export default <expression>
		ident := "default"
		body := field(v, "body")
		switch v.Kind() {
		case "identifier":
			ident = x.text(v)
		case "function_expression", "arrow_function", "generator_function", "function", "class":
			if name := field(v, "name"); name != nil {
				ident = x.text(name)
			}
			k := Function
			if v.Kind() == "class" {
				k = Class
			}
			x.add(k, v, ident, ident, "", trimSig(x.sig(n, body)))
		}
		x.add(Export, n, "default", ident, "", trimSig(x.sig(n, body)))
		return
	}
	stmt := trimSig(x.flat(n))
	found := false
	for _, c := range namedChildren(n) {
		switch c.Kind() {
		case "export_clause":
			for _, spec := range namedChildren(c) {
				if spec.Kind() != "export_specifier" {
					continue
				}
				local := x.flat(field(spec, "name"))
				name := local
				if alias := field(spec, "alias"); alias != nil {
					name = x.flat(alias)
				}
				x.add(Export, spec, name, local, "", stmt)
			}
			found = true
		case "namespace_export":
			name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(x.flat(c)), "*"))
			name = strings.TrimSpace(strings.TrimPrefix(name, "as"))
			x.add(Export, n, unquote(name), unquote(name), "", stmt)
			found = true
		case "identifier": // TypeScript `export = x`
			x.add(Export, n, "default", x.text(c), "", stmt)
			found = true
		}
	}
	if !found && hasChild(n, "*") {
		x.add(Export, n, "*", "*", "", stmt)
	}
}

// exportDeclaration adds the exports of `export <declaration>`.
func (x *ecmaExtractor) exportDeclaration(stmt, d *sitter.Node, isDefault bool) {
	switch d.Kind() {
	case "lexical_declaration", "variable_declaration":
		for _, c := range namedChildren(d) {
			if c.Kind() != "variable_declarator" {
				continue
			}
			name := x.flat(field(c, "name"))
			x.add(Export, c, name, name, "", trimSig(x.sig(stmt, field(field(c, "value"), "body"))))
		}
		return
	case "ambient_declaration":
		// export declare function f(): the declaration is wrapped once more.
		for _, c := range namedChildren(d) {
			x.exportDeclaration(stmt, c, isDefault)
		}
		return
	}
	nameNode := field(d, "name")
	if nameNode == nil {
		return
	}
	id := unquote(x.text(nameNode))
	name := id
	if isDefault {
		name = "default"
	}
	x.add(Export, stmt, name, id, "", trimSig(x.sig(stmt, field(d, "body"))))
}

// commonJSExport adds exports for top-level `module.exports = …`,
// `module.exports.x = …` and `exports.x = …`.
func (x *ecmaExtractor) commonJSExport(n *sitter.Node) {
	left := x.flat(field(n, "left"))
	right := field(n, "right")
	stmt := trimSig(x.flat(n))
	switch {
	case left == "module.exports":
		if kindOf(right) == "object" {
			for _, p := range namedChildren(right) {
				var key *sitter.Node
				switch p.Kind() {
				case "shorthand_property_identifier":
					key = p
				case "pair", "method_definition":
					key = field(p, "key")
					if key == nil {
						key = field(p, "name")
					}
				}
				if key != nil {
					id := unquote(x.text(key))
					x.add(Export, p, id, id, "", stmt)
				}
			}
			return
		}
		ident := "default"
		if kindOf(right) == "identifier" {
			ident = x.text(right)
		}
		x.add(Export, n, "default", ident, "", stmt)
	case strings.HasPrefix(left, "module.exports."), strings.HasPrefix(left, "exports."):
		id := lastSegment(left)
		x.add(Export, n, id, id, "", stmt)
	}
}

func (x *ecmaExtractor) call(n *sitter.Node) {
	fn := field(n, "function")
	if fn == nil {
		fn = field(n, "constructor") // new_expression
	}
	if fn == nil {
		return
	}
	name := x.callee(&ecmaCallee, fn)
	x.add(Call, n, name, lastSegment(strings.TrimSuffix(name, "()")), "", x.flat(n))
	// require("x") and import("x") load modules too.
	if name == "require" || name == "import" {
		if args := field(n, "arguments"); args != nil && args.NamedChildCount() > 0 {
			if arg := args.NamedChild(0); arg != nil && (arg.Kind() == "string" || arg.Kind() == "template_string") {
				mod := unquote(x.text(arg))
				x.add(Import, n, mod, mod, "", x.flat(n))
			}
		}
	}
}

var ecmaCallee = calleeGrammar{
	member: "member_expression", object: "object", property: "property",
	call:  "call_expression",
	index: "subscript_expression", indexed: "object",
	// `await db.query<T>()` parses as a call of an await expression.
	wrappers: []string{"await_expression", "parenthesized_expression", "non_null_expression"},
}
