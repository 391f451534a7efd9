package syntax

import (
	"regexp"
	"slices"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The surface of a TypeScript or JavaScript module.
//
// What a TypeScript shape leaves out (typed is set), each rule with the
// compiler behaviour that makes it safe:
//   - The body of a function, method, accessor or arrow function that
//     declares its return type, when the body assigns no name declared
//     outside it (nor a member of one, `f.x = …`, other than `this`'s):
//     a declared return type is the function's type whatever the body
//     says, and TypeScript binds expando members only in the scope that
//     declares the function, never from another body.
//   - The body of a setter: an accessor's type is its getter's return
//     type or its setter's parameter annotation, never the setter's body.
//   - The body of a constructor, only when every instance field of the
//     class declares its type: under noImplicitAny TypeScript infers an
//     unannotated field's type from the constructor's assignments (4.0).
//     Likewise a static block, when every static field declares its type.
//   - The initializer of a variable or class field that declares its
//     type: the declared type is the variable's.
//   - Comments, except pragmas (`@ts-…`, `@jsx…`), `@internal` (which
//     stripInternal turns into a declaration's absence) and triple-slash
//     directives: TypeScript reads no other comment of a .ts file.
//
// JavaScript keeps everything: bodies (checkJs infers from return
// statements and from `this.x` in any method) and every comment (JSDoc is
// JavaScript's type system, checkJs or not: a .ts importer sees the
// types it declares). A JavaScript comment before a declaration joins its
// shape; one that declares a name itself (`@typedef`, `@callback`,
// `@import`) is module-wide.
//
// An export's or import's type-only modifier (`export type { X }`,
// `import { type X }`) is part of its interface: an importer that uses a
// type-only export as a value fails (TS1362), and a type-only import
// makes the re-export of it type-only.
//
// Top-level expression statements (`f.displayName = "x"`, which TypeScript
// turns into a property of f) join the shape of every local name they
// refer to, and are module-wide when they refer to none. Other top-level
// statements that declare no name (blocks, which may hoist a var) are
// module-wide. CommonJS exports and `export =` make the module opaque.

var (
	tripleSlash     = regexp.MustCompile(`^///\s*<`)
	tripleSlashPath = regexp.MustCompile(`^///\s*<reference\s+path\s*=\s*["']([^"']+)["']`)
	commonJSExport  = regexp.MustCompile(`^(module\.exports|exports)\b`)
	// jsDocDeclares finds the JSDoc tags that declare a name of their own.
	jsDocDeclares = regexp.MustCompile(`@(typedef|callback|import)\b`)
	// jsDocImport finds the modules a JSDoc comment imports types from:
	// import("m") in a type, and the @import tag.
	jsDocImport = regexp.MustCompile(`import\(\s*["']([^"']+)["']\s*\)|@import\b[^*]*?\bfrom\s*["']([^"']+)["']`)
)

// typedComment reports whether a comment of a .ts file is read by the
// compiler.
func typedComment(text string) bool {
	return strings.HasPrefix(text, "///") || strings.Contains(text, "@ts-") || strings.Contains(text, "@jsx") || strings.Contains(text, "@internal")
}

// ecmaIdent reports whether a node type names a declaration.
func ecmaIdent(kind string) bool {
	switch kind {
	case "identifier", "type_identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern":
		return true
	}
	return false
}

// ecmaMember returns the object and property of a member access whose
// object is a plain name: a.b in code and in types.
func ecmaMember(n *sitter.Node) (object, property *sitter.Node) {
	switch n.Kind() {
	case "member_expression":
		if p := field(n, "property"); p != nil && p.Kind() == "property_identifier" {
			return field(n, "object"), p
		}
	case "nested_type_identifier":
		return field(n, "module"), field(n, "name")
	}
	return nil, nil
}

// ecmaSkip returns the part of n a TypeScript shape leaves out, or nil,
// by the rules above.
func ecmaSkip(src []byte, n *sitter.Node) *sitter.Node {
	switch n.Kind() {
	case "function_declaration", "generator_function_declaration", "function_expression", "function",
		"generator_function", "arrow_function":
		if field(n, "return_type") != nil {
			return quietBody(src, n)
		}
	case "method_definition":
		name := field(n, "name")
		ctor := name != nil && name.Kind() == "property_identifier" && string(src[name.StartByte():name.EndByte()]) == "constructor"
		switch {
		case ctor:
			if class := enclosingClassBody(n); class != nil && allFieldsTyped(class, false) {
				return quietBody(src, n)
			}
		case hasChild(n, "set"):
			return field(n, "body")
		case field(n, "return_type") != nil:
			return quietBody(src, n)
		}
	case "variable_declarator", "public_field_definition":
		if field(n, "type") != nil {
			return field(n, "value")
		}
	case "class_static_block":
		if class := n.Parent(); class != nil && class.Kind() == "class_body" && allFieldsTyped(class, true) {
			return field(n, "body")
		}
	}
	return nil
}

// enclosingClassBody returns the class body a method is a member of.
func enclosingClassBody(method *sitter.Node) *sitter.Node {
	if p := method.Parent(); p != nil && p.Kind() == "class_body" {
		return p
	}
	return nil
}

// allFieldsTyped reports whether every field of a class body, static or
// instance as asked, declares its type.
func allFieldsTyped(body *sitter.Node, static bool) bool {
	for _, m := range namedChildren(body) {
		if m.Kind() != "public_field_definition" || hasChild(m, "static") != static {
			continue
		}
		if field(m, "type") == nil {
			return false
		}
	}
	return true
}

// quietBody returns the body of a function-like node when the body
// assigns nothing declared outside it, else nil (the body stays in the
// shape). Names are compared without scopes: a name declared anywhere in
// the function counts as its own, which can only keep more bodies than
// a scope-exact rule for assignments to members, and for assignments to
// plain names TypeScript never widens an outer declaration's type.
func quietBody(src []byte, fn *sitter.Node) *sitter.Node {
	body := field(fn, "body")
	if body == nil || body.Kind() != "statement_block" {
		return body
	}
	own := map[string]bool{}
	var declared func(n *sitter.Node)
	declared = func(n *sitter.Node) {
		switch n.Kind() {
		case "required_parameter", "optional_parameter":
			if p := field(n, "pattern"); p != nil {
				identifiers(src, p, own)
			}
		case "variable_declarator":
			if p := field(n, "name"); p != nil {
				identifiers(src, p, own)
			}
		case "function_declaration", "class_declaration", "generator_function_declaration":
			if p := field(n, "name"); p != nil {
				own[string(src[p.StartByte():p.EndByte()])] = true
			}
		case "catch_clause":
			if p := field(n, "parameter"); p != nil {
				identifiers(src, p, own)
			}
		case "identifier":
			if p := n.Parent(); p != nil && (p.Kind() == "formal_parameters" || p.Kind() == "arrow_function") {
				own[string(src[n.StartByte():n.EndByte()])] = true
			}
		}
		for i := range n.NamedChildCount() {
			if c := n.NamedChild(i); c != nil {
				declared(c)
			}
		}
	}
	declared(fn)
	outside := false
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if outside {
			return
		}
		switch n.Kind() {
		case "assignment_expression", "augmented_assignment_expression":
			if root := assignedRoot(field(n, "left")); root != nil {
				name := string(src[root.StartByte():root.EndByte()])
				if root.Kind() != "this" && !own[name] {
					outside = true
					return
				}
			}
		}
		for i := range n.NamedChildCount() {
			if c := n.NamedChild(i); c != nil {
				walk(c)
			}
		}
	}
	walk(body)
	if outside {
		return nil
	}
	return body
}

// assignedRoot returns the name at the root of an assignment's target
// (x in x, x.a.b, x[i]), `this`, or nil for a pattern or anything else.
func assignedRoot(n *sitter.Node) *sitter.Node {
	for n != nil {
		switch n.Kind() {
		case "identifier", "this":
			return n
		case "member_expression", "subscript_expression":
			n = field(n, "object")
		case "parenthesized_expression", "non_null_expression":
			n = n.NamedChild(0)
		default:
			// A destructuring target: every name in it is assigned.
			return n
		}
	}
	return nil
}

// identifiers adds the identifiers under n to set.
func identifiers(src []byte, n *sitter.Node, set map[string]bool) {
	if n.Kind() == "identifier" || n.Kind() == "shorthand_property_identifier_pattern" {
		set[string(src[n.StartByte():n.EndByte()])] = true
	}
	for i := range n.NamedChildCount() {
		if c := n.NamedChild(i); c != nil {
			identifiers(src, c, set)
		}
	}
}

// dynamicImport returns the module a call imports at run time
// (import("m"), require("m")), or "".
func dynamicImport(src []byte, n *sitter.Node) string {
	if n.Kind() != "call_expression" {
		return ""
	}
	fn := field(n, "function")
	if fn == nil {
		return ""
	}
	if k := fn.Kind(); k != "import" && !(k == "identifier" && string(src[fn.StartByte():fn.EndByte()]) == "require") {
		return ""
	}
	args := field(n, "arguments")
	if args == nil || args.NamedChildCount() == 0 {
		return ""
	}
	arg := args.NamedChild(0)
	if arg.Kind() != "string" {
		return ""
	}
	return unquote(string(src[arg.StartByte():arg.EndByte()]))
}

func dynamicLocal(module string) string { return "\x00import:" + module }

type ecmaSurfacer struct {
	src    []byte
	typed  bool
	s      *Surface
	names  *shapes
	wide   *shaper
	orphan []*sitter.Node // top-level expression statements
	// attached are the JavaScript comments before each top-level
	// statement, which belong to its declaration (JSDoc).
	attached map[nodeKey][]*sitter.Node
}

func ecmaSurface(src []byte, root *sitter.Node, typed bool) *Surface {
	x := &ecmaSurfacer{src: src, typed: typed, s: &Surface{Exports: map[string]Origin{}}, attached: map[nodeKey][]*sitter.Node{}}
	x.names = newShapes(x.shaper)
	x.wide = x.shaper()
	var leading []*sitter.Node
	for _, c := range namedChildren(root) {
		if c.Kind() == "comment" {
			if x.topComment(c) {
				leading = append(leading, c)
			}
			continue
		}
		if len(leading) > 0 {
			x.attached[keyOf(c)] = leading
			leading = nil
		}
		x.statement(c)
	}
	for _, c := range leading {
		x.wide.add(c)
	}
	x.orphans()
	x.s.Names = x.names.done()
	x.s.ModuleWide = x.wide.shape()
	x.dynamicImports(root)
	memberUses(root, src, x.s.Imports, ecmaIdent, ecmaMember, map[string]bool{"import_statement": true})
	return x.s
}

// orphans adds the top-level expression statements: each joins the local
// names it refers to, and one that refers to none is module-wide.
func (x *ecmaSurfacer) orphans() {
	for _, n := range x.orphan {
		probe := x.shaper()
		probe.add(n)
		joined := false
		for _, r := range probe.shape().Refs {
			name, _, _ := strings.Cut(r, ".")
			if _, ok := x.names.by[name]; ok {
				x.names.of(name).add(n)
				joined = true
			}
		}
		if !joined {
			x.wide.add(n)
		}
	}
}

// topComment handles a comment between top-level statements and reports
// whether it belongs to the next statement (a JavaScript comment that
// declares nothing itself: JSDoc of that statement).
func (x *ecmaSurfacer) topComment(n *sitter.Node) bool {
	text := x.text(n)
	if m := tripleSlashPath.FindStringSubmatch(text); m != nil {
		spec := m[1]
		if !strings.HasPrefix(spec, ".") && !strings.HasPrefix(spec, "/") {
			spec = "./" + spec
		}
		x.s.Imports = append(x.s.Imports, Binding{Local: dynamicLocal(spec), Module: spec, Name: "*", Whole: true})
	}
	switch {
	case x.typed && typedComment(text), !x.typed && jsDocDeclares.MatchString(text):
		x.wide.add(n)
		return false
	case x.typed:
		return false
	}
	return true
}

func (x *ecmaSurfacer) shaper() *shaper {
	sh := newShaper(x.src, nil, ecmaIdent, ecmaMember)
	sh.attached = x.attached
	if x.typed {
		sh.skip = func(n *sitter.Node) *sitter.Node { return ecmaSkip(x.src, n) }
		sh.keepComment = typedComment
	} else {
		sh.keepComment = func(string) bool { return true }
	}
	sh.extra = func(n *sitter.Node) string {
		if m := dynamicImport(x.src, n); m != "" {
			return dynamicLocal(m)
		}
		return ""
	}
	return sh
}

func (x *ecmaSurfacer) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(x.src[n.StartByte():n.EndByte()])
}

func (x *ecmaSurfacer) statement(n *sitter.Node) {
	switch n.Kind() {
	case "hash_bang_line", "empty_statement":
	case "import_statement":
		x.importStatement(n)
	case "export_statement":
		x.exportStatement(n)
	case "expression_statement":
		if commonJSExport.MatchString(x.text(n)) {
			x.s.Opaque = "it assigns CommonJS exports"
		}
		x.orphan = append(x.orphan, n)
	default:
		if names := x.declaration(n, nil); names == nil {
			x.wide.add(n)
		}
	}
}

// declaration adds the names n declares to the module, each with its
// shape (extra nodes, such as an export's decorators, joined to it), and
// returns them; nil if n declares nothing this way.
func (x *ecmaSurfacer) declaration(n *sitter.Node, extra []*sitter.Node) []string {
	// A declaration's leading comments are its own (each declarator's, for
	// a declaration of several).
	extra = append(slices.Clip(extra), x.attached[keyOf(n)]...)
	var names []string
	shapeAll := func(node *sitter.Node, prefix string) {
		for _, name := range names {
			sh := x.names.of(name)
			if prefix != "" {
				sh.literal(prefix)
			}
			for _, e := range extra {
				sh.add(e)
			}
			sh.add(node)
		}
	}
	switch n.Kind() {
	case "lexical_declaration", "variable_declaration":
		kind := "var"
		if k := field(n, "kind"); k != nil {
			kind = x.text(k)
		}
		var all []string
		for _, d := range namedChildren(n) {
			if d.Kind() != "variable_declarator" {
				continue
			}
			names = x.patternNames(field(d, "name"))
			shapeAll(d, kind)
			all = append(all, names...)
		}
		if all == nil {
			all = []string{}
		}
		return all
	case "function_declaration", "generator_function_declaration", "function_signature",
		"class_declaration", "abstract_class_declaration", "interface_declaration",
		"type_alias_declaration", "enum_declaration":
		if name := field(n, "name"); name != nil {
			names = []string{x.text(name)}
		}
	case "module", "internal_module":
		name := field(n, "name")
		if name == nil || name.Kind() == "string" {
			return nil // an ambient module: global, see the import graph
		}
		first, _, _ := strings.Cut(x.text(name), ".")
		names = []string{first}
	case "ambient_declaration":
		for _, c := range namedChildren(n) {
			if c.Kind() == "statement_block" || c.Kind() == "property_identifier" {
				return nil // declare global { … }, declare module.x
			}
			if got := x.declaration(c, extra); got != nil {
				for _, name := range got {
					x.names.of(name).literal("declare")
				}
				return got
			}
		}
		return nil
	case "import_alias":
		if id := firstChildOfKind(n, "identifier"); id != nil {
			names = []string{x.text(id)}
		}
	default:
		return nil
	}
	if names == nil {
		return nil
	}
	shapeAll(n, "")
	return names
}

// patternNames returns the names a binding pattern declares.
func (x *ecmaSurfacer) patternNames(n *sitter.Node) []string {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "identifier", "shorthand_property_identifier_pattern":
		return []string{x.text(n)}
	case "pair_pattern":
		return x.patternNames(field(n, "value"))
	case "assignment_pattern", "object_assignment_pattern":
		return x.patternNames(field(n, "left"))
	}
	var out []string
	for _, c := range namedChildren(n) {
		out = append(out, x.patternNames(c)...)
	}
	return out
}

func (x *ecmaSurfacer) importStatement(n *sitter.Node) {
	src := field(n, "source")
	clause := firstChildOfKind(n, "import_clause")
	if req := firstChildOfKind(n, "import_require_clause"); req != nil {
		// import x = require("m")
		src = field(req, "source")
		if id := firstChildOfKind(req, "identifier"); id != nil && src != nil {
			x.s.Imports = append(x.s.Imports, Binding{Local: x.text(id), Module: unquote(x.text(src)), Name: "*"})
		}
		return
	}
	if src == nil {
		return
	}
	mod := unquote(x.text(src))
	if clause == nil {
		x.s.Imports = append(x.s.Imports, Binding{Module: mod})
		return
	}
	typeOnly := hasChild(n, "type") || hasChild(clause, "type")
	for _, c := range namedChildren(clause) {
		switch c.Kind() {
		case "identifier":
			x.s.Imports = append(x.s.Imports, Binding{Local: x.text(c), Module: mod, Name: "default", TypeOnly: typeOnly})
		case "namespace_import":
			if id := firstChildOfKind(c, "identifier"); id != nil {
				x.s.Imports = append(x.s.Imports, Binding{Local: x.text(id), Module: mod, Name: "*", TypeOnly: typeOnly})
			}
		case "named_imports":
			for _, spec := range namedChildren(c) {
				if spec.Kind() != "import_specifier" {
					continue
				}
				name := unquote(x.text(field(spec, "name")))
				local := name
				if alias := field(spec, "alias"); alias != nil {
					local = x.text(alias)
				}
				x.s.Imports = append(x.s.Imports, Binding{Local: local, Module: mod, Name: name, TypeOnly: typeOnly || hasChild(spec, "type")})
			}
		}
	}
}

func (x *ecmaSurfacer) exportStatement(n *sitter.Node) {
	// The comments before an export belong to what it exports.
	if lead := x.attached[keyOf(n)]; lead != nil {
		for _, inner := range []*sitter.Node{field(n, "declaration"), field(n, "value")} {
			if inner != nil {
				x.attached[keyOf(inner)] = lead
			}
		}
	}
	decorators := childrenByField(n, "decorator")
	if d := field(n, "declaration"); d != nil {
		names := x.declaration(d, decorators)
		if hasChild(n, "default") {
			if len(names) == 1 {
				x.s.Exports["default"] = Origin{Local: names[0]}
			}
			return
		}
		for _, name := range names {
			x.s.Exports[name] = Origin{Local: name}
		}
		if names == nil {
			x.wide.add(n)
		}
		return
	}
	if v := field(n, "value"); v != nil { // export default <expression>
		if v.Kind() == "identifier" {
			x.s.Exports["default"] = Origin{Local: x.text(v)}
			return
		}
		if name := field(v, "name"); name != nil && (v.Kind() == "class" || strings.Contains(v.Kind(), "function")) {
			// export default class X {} / function f() {}
			x.names.of(x.text(name)).add(v)
			x.s.Exports["default"] = Origin{Local: x.text(name)}
			return
		}
		x.names.of("default").add(v)
		x.s.Exports["default"] = Origin{Local: "default"}
		return
	}
	if hasChild(n, "=") {
		x.s.Opaque = "it uses export ="
		return
	}
	var mod string
	if src := field(n, "source"); src != nil {
		mod = unquote(x.text(src))
	}
	found := false
	typeOnly := hasChild(n, "type")
	for _, c := range namedChildren(n) {
		switch c.Kind() {
		case "export_clause":
			found = true
			for _, spec := range namedChildren(c) {
				if spec.Kind() != "export_specifier" {
					continue
				}
				name := unquote(x.text(field(spec, "name")))
				exported := name
				if alias := field(spec, "alias"); alias != nil {
					exported = unquote(x.text(alias))
				}
				only := typeOnly || hasChild(spec, "type")
				if mod != "" {
					x.s.Exports[exported] = Origin{Module: mod, Name: name, TypeOnly: only}
					x.reexport(mod, name, exported)
				} else {
					x.s.Exports[exported] = Origin{Local: name, TypeOnly: only}
				}
			}
		case "namespace_export":
			found = true
			if id := c.NamedChild(0); id != nil && mod != "" {
				x.s.Exports[unquote(x.text(id))] = Origin{Module: mod, Name: "*", TypeOnly: typeOnly}
				x.reexport(mod, "*", unquote(x.text(id)))
			}
		}
	}
	switch {
	case !found && mod != "" && hasChild(n, "*"):
		x.s.Stars = append(x.s.Stars, mod)
		x.reexport(mod, "*", "*")
	case !found:
		// export as namespace X, and forms not known here.
		x.wide.add(n)
	}
}

// reexport records that the module re-exports name of mod as exported: a
// use of mod like an import, which breaks when that name changes.
func (x *ecmaSurfacer) reexport(mod, name, exported string) {
	b := Binding{Local: "\x00reexport:" + exported, Module: mod, Name: name}
	b.Whole = name == "*"
	x.s.Imports = append(x.s.Imports, b)
}

// dynamicImports adds a binding for every import() and require() of a
// literal module anywhere in the file, and in JavaScript for every module
// a JSDoc comment takes types from.
func (x *ecmaSurfacer) dynamicImports(root *sitter.Node) {
	seen := map[string]bool{}
	bind := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			x.s.Imports = append(x.s.Imports, Binding{Local: dynamicLocal(m), Module: m, Name: "*", Whole: true})
		}
	}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		bind(dynamicImport(x.src, n))
		if !x.typed && n.Kind() == "comment" {
			for _, m := range jsDocImport.FindAllStringSubmatch(x.text(n), -1) {
				bind(m[1] + m[2])
			}
		}
		for i := range n.ChildCount() {
			if c := n.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(root)
}
