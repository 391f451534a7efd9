package syntax

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The surface of a Python module, as a static checker (pyright) sees it.
//
// Every top-level binding is an attribute others can import: defs,
// classes, assignment targets and imported names alike. What a shape
// leaves out: the body of a function that declares its return type,
// except a method whose body assigns an attribute of its first parameter
// (self.x = … declares an attribute of the class). Nothing else is left
// out: a function without a return annotation has its return type
// inferred from its body (pyright even infers it per call site), and a
// class-level assignment can be a dataclass field whose default shapes
// __init__.
//
// Statements that are not one name's definition (if, try, for, with at
// top level, __all__, del, a module __getattr__) go to ModuleWide: when
// one of them changes, every name of the module counts as changed.

func pyIdent(kind string) bool { return kind == "identifier" }

func pyMember(n *sitter.Node) (object, property *sitter.Node) {
	if n.Kind() == "attribute" {
		return field(n, "object"), field(n, "attribute")
	}
	return nil, nil
}

type pySurfacer struct {
	src   []byte
	s     *Surface
	names *shapes
	wide  *shaper
	// orphan are top-level expression statements and attribute or item
	// assignments (X.y = …), which join the names they refer to.
	orphan []*sitter.Node
}

func pythonSurface(src []byte, root *sitter.Node) *Surface {
	x := &pySurfacer{src: src, s: &Surface{Exports: map[string]Origin{}}}
	x.names = newShapes(x.shaper)
	x.wide = x.shaper()
	for _, c := range namedChildren(root) {
		x.statement(c)
	}
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
	for name := range x.s.Names {
		if _, ok := x.s.Exports[name]; !ok {
			x.s.Exports[name] = Origin{Local: name}
		}
	}
	x.s.ModuleWide = x.wide.shape()
	// Imports anywhere (in functions, under if or try) are uses of the
	// module; the top-level ones were bound above.
	x.nestedImports(root)
	memberUses(root, src, x.s.Imports, pyIdent, pyMember, map[string]bool{"import_statement": true, "import_from_statement": true})
	return x.s
}

func (x *pySurfacer) shaper() *shaper {
	return newShaper(x.src, x.skip, pyIdent, pyMember)
}

func (x *pySurfacer) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(x.src[n.StartByte():n.EndByte()])
}

func (x *pySurfacer) statement(n *sitter.Node) {
	switch n.Kind() {
	case "comment", "future_import_statement", "pass_statement":
	case "import_statement", "import_from_statement":
		x.importStatement(n, true)
	case "function_definition", "class_definition":
		x.define(n, n)
	case "decorated_definition":
		x.define(field(n, "definition"), n)
	case "type_alias_statement":
		if left := field(n, "left"); left != nil {
			name, _, _ := strings.Cut(x.text(left), "[")
			x.names.of(strings.TrimSpace(name)).add(n)
		}
	case "expression_statement":
		x.expression(n)
	default:
		// Conditional definitions and imports, loops, del, global: what
		// they bind is not one name's business.
		x.wide.add(n)
		x.bindInside(n)
	}
}

// define adds a def or class (whose statement, decorators included, is
// stmt).
func (x *pySurfacer) define(def, stmt *sitter.Node) {
	name := field(def, "name")
	if name == nil {
		x.wide.add(stmt)
		return
	}
	switch x.text(name) {
	case "__getattr__", "__dir__":
		// A module __getattr__ makes every attribute importable.
		x.wide.add(stmt)
	}
	x.names.of(x.text(name)).add(stmt)
}

// expression handles a top-level expression statement: assignments bind
// names, anything else joins the names it refers to.
func (x *pySurfacer) expression(n *sitter.Node) {
	e := n.NamedChild(0)
	if e == nil {
		return
	}
	switch e.Kind() {
	case "string":
		return // a docstring
	case "assignment", "augmented_assignment":
	default:
		x.orphan = append(x.orphan, n)
		return
	}
	// a = b = value is nested: every left side binds.
	var names []string
	attr := false
	for a := e; a != nil && (a.Kind() == "assignment" || a.Kind() == "augmented_assignment"); a = field(a, "right") {
		for _, name := range x.targets(field(a, "left")) {
			if name == "" {
				attr = true
				continue
			}
			names = append(names, name)
		}
	}
	for _, name := range names {
		if name == "__all__" {
			x.wide.add(n)
			continue
		}
		x.names.of(name).add(n)
	}
	if attr {
		x.orphan = append(x.orphan, n)
	}
}

// targets returns the names an assignment target binds; "" stands for an
// attribute or item target (X.y = …, d[k] = …), which binds no name.
func (x *pySurfacer) targets(n *sitter.Node) []string {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "identifier":
		return []string{x.text(n)}
	case "attribute", "subscript":
		return []string{""}
	}
	var out []string
	for _, c := range namedChildren(n) {
		out = append(out, x.targets(c)...)
	}
	return out
}

// importStatement adds the bindings of an import; top-level ones are also
// attributes of this module (re-exports).
func (x *pySurfacer) importStatement(n *sitter.Node, top bool) {
	switch n.Kind() {
	case "import_statement":
		for _, c := range namedChildren(n) {
			mod, local := c, ""
			if c.Kind() == "aliased_import" {
				mod, local = field(c, "name"), x.text(field(c, "alias"))
			}
			if mod == nil || mod.Kind() != "dotted_name" {
				continue
			}
			b := Binding{Local: local, Module: x.text(mod), Name: "*"}
			if local == "" {
				// import a.b binds a, and a.b.x reaches the submodule:
				// uses cannot be told apart by member.
				b.Local, _, _ = strings.Cut(b.Module, ".")
				b.Whole = strings.Contains(b.Module, ".")
			}
			x.s.Imports = append(x.s.Imports, b)
			if top {
				x.s.Exports[b.Local] = Origin{Module: b.Module, Name: "*"}
			}
		}
	case "import_from_statement":
		mod := x.text(field(n, "module_name"))
		if firstChildOfKind(n, "wildcard_import") != nil {
			x.s.Imports = append(x.s.Imports, Binding{Local: "\x00star:" + mod, Module: mod, Name: "*", Whole: true})
			if top {
				x.s.Stars = append(x.s.Stars, mod)
			}
			return
		}
		for _, c := range childrenByField(n, "name") {
			name, local := c, c
			if c.Kind() == "aliased_import" {
				name, local = field(c, "name"), field(c, "alias")
			}
			b := Binding{Local: x.text(local), Module: mod, Name: x.text(name)}
			x.s.Imports = append(x.s.Imports, b)
			if top {
				x.s.Exports[b.Local] = Origin{Module: mod, Name: b.Name}
			}
		}
	}
}

// bindInside adds the imports of a compound top-level statement (try:
// import x / except: …, if TYPE_CHECKING: …) as this module's bindings
// and attributes.
func (x *pySurfacer) bindInside(n *sitter.Node) {
	for _, c := range namedChildren(n) {
		switch c.Kind() {
		case "import_statement", "import_from_statement":
			x.importStatement(c, true)
		case "function_definition", "class_definition", "decorated_definition", "lambda":
		default:
			x.bindInside(c)
		}
	}
}

// nestedImports adds the imports inside functions and classes: uses of
// other modules that make this file depend on them, without binding
// module attributes.
func (x *pySurfacer) nestedImports(root *sitter.Node) {
	var walk func(n *sitter.Node, depth int)
	walk = func(n *sitter.Node, depth int) {
		switch n.Kind() {
		case "import_statement", "import_from_statement":
			if depth > 0 {
				x.importStatement(n, false)
			}
			return
		case "function_definition", "class_definition":
			depth++
		}
		for _, c := range namedChildren(n) {
			walk(c, depth)
		}
	}
	walk(root, 0)
}

// skip leaves out the body of a function with a declared return type,
// unless it is a method that assigns attributes of its first parameter.
func (x *pySurfacer) skip(n *sitter.Node) *sitter.Node {
	if n.Kind() != "function_definition" || field(n, "return_type") == nil {
		return nil
	}
	body := field(n, "body")
	if body == nil {
		return nil
	}
	if self := x.firstParam(n); self != "" && inClass(n) && x.assignsAttribute(body, self) {
		return nil
	}
	return body
}

// inClass reports whether a def is directly in a class body.
func inClass(def *sitter.Node) bool {
	p := def.Parent()
	if p != nil && p.Kind() == "decorated_definition" {
		p = p.Parent()
	}
	return p != nil && p.Kind() == "block" && p.Parent() != nil && p.Parent().Kind() == "class_definition"
}

func (x *pySurfacer) firstParam(def *sitter.Node) string {
	params := field(def, "parameters")
	if params == nil || params.NamedChildCount() == 0 {
		return ""
	}
	p := params.NamedChild(0)
	switch p.Kind() {
	case "identifier":
		return x.text(p)
	case "typed_parameter", "default_parameter", "typed_default_parameter":
		if id := firstChildOfKind(p, "identifier"); id != nil {
			return x.text(id)
		}
		return x.text(field(p, "name"))
	}
	return ""
}

// assignsAttribute reports whether body assigns self.<something>
// anywhere (a plain, augmented, annotated or tuple assignment, a for or
// with target), nested functions included.
func (x *pySurfacer) assignsAttribute(body *sitter.Node, self string) bool {
	found := false
	var targetHas func(n *sitter.Node) bool
	targetHas = func(n *sitter.Node) bool {
		if n == nil {
			return false
		}
		if n.Kind() == "attribute" {
			obj := field(n, "object")
			return obj != nil && obj.Kind() == "identifier" && x.text(obj) == self
		}
		for _, c := range namedChildren(n) {
			if targetHas(c) {
				return true
			}
		}
		return false
	}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if found {
			return
		}
		switch n.Kind() {
		case "assignment", "augmented_assignment", "for_statement", "for_in_clause":
			if targetHas(field(n, "left")) {
				found = true
				return
			}
		case "as_pattern", "named_expression":
			if targetHas(field(n, "alias")) || targetHas(field(n, "name")) {
				found = true
				return
			}
		case "call":
			// setattr(self, …) sets an attribute too.
			if fn := field(n, "function"); fn != nil && x.text(fn) == "setattr" {
				found = true
				return
			}
		}
		for _, c := range namedChildren(n) {
			walk(c)
		}
	}
	walk(body)
	return found
}
