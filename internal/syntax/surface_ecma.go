package syntax

import (
	"regexp"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The surface of a TypeScript or JavaScript module.
//
// What a shape leaves out (TypeScript only, typed is set): the body of a
// function, method or arrow function that declares its return type; the
// body of a constructor, a setter and a static block; the initializer of a
// variable or class field that declares its type. The checker reads none
// of them to type anything outside the body: a declared return type is the
// function's type whatever its body says, and a declared variable type is
// the variable's. A function without a declared return type keeps its
// body, which its type is inferred from. JavaScript keeps everything:
// checkJs infers types from bodies (this.x assignments in constructors,
// return statements) and JSDoc comments.
//
// Top-level expression statements (`f.displayName = "x"`, which TypeScript
// turns into a property of f) join the shape of every local name they
// refer to. Other top-level statements (blocks, which may hoist a var) go
// to ModuleWide. CommonJS exports and `export =` make the module opaque.

var (
	tripleSlashPath = regexp.MustCompile(`^///\s*<reference\s+path\s*=\s*["']([^"']+)["']`)
	commonJSExport  = regexp.MustCompile(`^(module\.exports|exports)\b`)
)

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

// ecmaSkip returns the part of n a TypeScript shape leaves out, or nil.
func ecmaSkip(src []byte, n *sitter.Node) *sitter.Node {
	switch n.Kind() {
	case "function_declaration", "generator_function_declaration", "function_expression", "function",
		"generator_function", "arrow_function":
		if field(n, "return_type") != nil {
			return field(n, "body")
		}
	case "method_definition":
		name := field(n, "name")
		ctor := name != nil && name.Kind() == "property_identifier" && string(src[name.StartByte():name.EndByte()]) == "constructor"
		if field(n, "return_type") != nil || hasChild(n, "set") || ctor {
			return field(n, "body")
		}
	case "variable_declarator", "public_field_definition":
		if field(n, "type") != nil {
			return field(n, "value")
		}
	case "class_static_block":
		return field(n, "body")
	}
	return nil
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
}

func ecmaSurface(src []byte, root *sitter.Node, typed bool) *Surface {
	x := &ecmaSurfacer{src: src, typed: typed, s: &Surface{Exports: map[string]Origin{}}}
	x.names = newShapes(x.shaper)
	x.wide = x.shaper()
	for _, c := range namedChildren(root) {
		x.statement(c)
	}
	// Statements that only touch names join those names' shapes.
	for _, n := range x.orphan {
		probe := x.shaper()
		probe.add(n)
		for _, r := range probe.shape().Refs {
			name, _, _ := strings.Cut(r, ".")
			if _, ok := x.names.by[name]; ok {
				x.names.of(name).add(n)
			}
		}
	}
	x.s.Names = x.names.done()
	x.s.ModuleWide = x.wide.shape()
	x.dynamicImports(root)
	memberUses(root, src, x.s.Imports, ecmaIdent, ecmaMember, map[string]bool{"import_statement": true})
	return x.s
}

func (x *ecmaSurfacer) shaper() *shaper {
	sh := newShaper(x.src, nil, ecmaIdent, ecmaMember)
	if x.typed {
		sh.skip = func(n *sitter.Node) *sitter.Node { return ecmaSkip(x.src, n) }
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
	case "comment":
		if m := tripleSlashPath.FindStringSubmatch(x.text(n)); m != nil {
			spec := m[1]
			if !strings.HasPrefix(spec, ".") && !strings.HasPrefix(spec, "/") {
				spec = "./" + spec
			}
			x.s.Imports = append(x.s.Imports, Binding{Local: dynamicLocal(spec), Module: spec, Name: "*", Whole: true})
			x.wide.literal("reference " + spec)
		}
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
	for _, c := range namedChildren(clause) {
		switch c.Kind() {
		case "identifier":
			x.s.Imports = append(x.s.Imports, Binding{Local: x.text(c), Module: mod, Name: "default"})
		case "namespace_import":
			if id := firstChildOfKind(c, "identifier"); id != nil {
				x.s.Imports = append(x.s.Imports, Binding{Local: x.text(id), Module: mod, Name: "*"})
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
				x.s.Imports = append(x.s.Imports, Binding{Local: local, Module: mod, Name: name})
			}
		}
	}
}

func (x *ecmaSurfacer) exportStatement(n *sitter.Node) {
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
				if mod != "" {
					x.s.Exports[exported] = Origin{Module: mod, Name: name}
					x.reexport(mod, name, exported)
				} else {
					x.s.Exports[exported] = Origin{Local: name}
				}
			}
		case "namespace_export":
			found = true
			if id := c.NamedChild(0); id != nil && mod != "" {
				x.s.Exports[unquote(x.text(id))] = Origin{Module: mod, Name: "*"}
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
// literal module anywhere in the file.
func (x *ecmaSurfacer) dynamicImports(root *sitter.Node) {
	seen := map[string]bool{}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if m := dynamicImport(x.src, n); m != "" && !seen[m] {
			seen[m] = true
			x.s.Imports = append(x.s.Imports, Binding{Local: dynamicLocal(m), Module: m, Name: "*", Whole: true})
		}
		for i := range n.ChildCount() {
			if c := n.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(root)
}
