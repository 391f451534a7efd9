package syntax

import (
	"regexp"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The surface of a Python module, as a static checker (pyright) sees it.
//
// Every top-level binding is an attribute others can import: defs,
// classes, assignment targets, imported names, names a function binds
// through `global` and module-level walrus targets alike. What a shape
// leaves out, each rule with the checker behaviour that makes it safe:
//   - The body of a function that declares its return type, when the
//     body (nested functions and classes included) has no `global` or
//     `nonlocal` statement, assigns no attribute (`x.a = …`, `x.a += …`, a
//     for or with target) and calls no setattr/delattr: a declared
//     return type is the function's type whatever the body says; what
//     else a body can declare for others is an attribute (pyright infers
//     instance attributes from `self.x = …` in any method, wherever it
//     sits in the class body) or a module variable through `global`
//     (whose declared type is the union of every assignment).
//   - Comments, except type comments (`# type: …`, which pyright honours
//     for signatures and variables) and `# pyright:` pragmas; a module's
//     docstring. pyright reads no other comment or string statement.
//
// A string is kept, and every word in it (a docstring's excepted) is a
// reference, over-approximately, like a type comment's: a string
// annotation (`-> "Widget"`), a forward reference, a TypeVar's bound or
// cast's first argument is a type to pyright, so a change to Widget
// changes what `make` offers.
//
// Statements that are not one name's definition (if, try, for, with at
// top level, __all__ in any form, del, a module __getattr__, __future__
// imports, expression statements that touch no top-level name) go to
// ModuleWide: when one of them changes, every name of the module counts
// as changed.

// pyTypeComment finds the comments pyright reads.
var pyTypeComment = regexp.MustCompile(`^#\s*(type|pyright)\s*:`)

func pyKeepComment(text string) bool { return pyTypeComment.MatchString(text) }

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
	// attached are the type comments on a top-level statement's last
	// line (`X = []  # type: list[int]`), which the grammar puts after it.
	attached map[nodeKey][]*sitter.Node
}

func pythonSurface(src []byte, root *sitter.Node) *Surface {
	x := &pySurfacer{src: src, s: &Surface{Exports: map[string]Origin{}}, attached: map[nodeKey][]*sitter.Node{}}
	x.names = newShapes(x.shaper)
	x.wide = x.shaper()
	var prev *sitter.Node
	for _, c := range namedChildren(root) {
		if c.Kind() == "comment" {
			switch {
			case !pyKeepComment(x.text(c)):
			case prev != nil && prev.EndPosition().Row == c.StartPosition().Row:
				x.attached[keyOf(prev)] = append(x.attached[keyOf(prev)], c)
			default:
				x.wide.add(c)
			}
			continue
		}
		prev = c
	}
	for _, c := range namedChildren(root) {
		if c.Kind() != "comment" {
			x.statement(c)
			x.bindsFromInside(c)
		}
	}
	for _, n := range x.orphan {
		probe := x.shaper()
		probe.add(n)
		joined := false
		for _, r := range probe.shape().Refs {
			name, _, _ := strings.Cut(r, ".")
			if _, ok := x.names.by[name]; ok && name != "__all__" {
				x.names.of(name).add(n)
				joined = true
			}
		}
		if !joined {
			x.wide.add(n)
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
	sh := newShaper(x.src, x.skip, pyIdent, pyMember)
	sh.keepComment = pyKeepComment
	sh.stringRefs = true
	sh.attached = x.attached
	return sh
}

// bindsFromInside joins a top-level statement to the shapes of the module
// names it binds from inside: names a function in it declares `global`
// (at any depth), and walrus targets outside any function (at module
// level a comprehension's walrus binds the module's name too).
func (x *pySurfacer) bindsFromInside(stmt *sitter.Node) {
	var walk func(n *sitter.Node, inFunction bool)
	walk = func(n *sitter.Node, inFunction bool) {
		switch n.Kind() {
		case "global_statement":
			for _, id := range namedChildren(n) {
				if id.Kind() == "identifier" {
					x.names.of(x.text(id)).add(stmt)
				}
			}
			return
		case "named_expression":
			if name := field(n, "name"); name != nil && !inFunction {
				x.names.of(x.text(name)).add(stmt)
			}
		case "function_definition", "lambda":
			inFunction = true
		}
		for _, c := range namedChildren(n) {
			walk(c, inFunction)
		}
	}
	walk(stmt, false)
}

func (x *pySurfacer) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(x.src[n.StartByte():n.EndByte()])
}

func (x *pySurfacer) statement(n *sitter.Node) {
	switch n.Kind() {
	case "pass_statement":
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

// skip leaves out the body of a function with a declared return type
// that declares nothing for others (see the rules above).
func (x *pySurfacer) skip(n *sitter.Node) *sitter.Node {
	if n.Kind() != "function_definition" || field(n, "return_type") == nil {
		return nil
	}
	body := field(n, "body")
	if body == nil || x.declaresOutside(body) {
		return nil
	}
	return body
}

// declaresOutside reports whether a body, nested functions and classes
// included, has a global or nonlocal statement, assigns an attribute (a
// plain, augmented or annotated assignment, a for or with target, a
// walrus cannot), or calls setattr or delattr.
func (x *pySurfacer) declaresOutside(body *sitter.Node) bool {
	found := false
	var targetHas func(n *sitter.Node) bool
	targetHas = func(n *sitter.Node) bool {
		if n == nil {
			return false
		}
		if n.Kind() == "attribute" {
			return true
		}
		if n.Kind() == "subscript" || n.Kind() == "call" {
			return false // d[k] = …, f(x).y is an attribute below
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
		case "global_statement", "nonlocal_statement":
			found = true
			return
		case "assignment", "augmented_assignment", "for_statement", "for_in_clause":
			if targetHas(field(n, "left")) {
				found = true
				return
			}
		case "as_pattern":
			if targetHas(field(n, "alias")) {
				found = true
				return
			}
		case "call":
			if fn := field(n, "function"); fn != nil && (x.text(fn) == "setattr" || x.text(fn) == "delattr") {
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
