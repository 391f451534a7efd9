package syntax

import (
	"slices"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Symbol extraction works in two halves. Each language has a query whose
// patterns only select nodes by type (a function declaration, a call, an
// import), so the C side does the tree walk; each capture's name says which
// handler gets the node. The Go side then reads names, containers and
// signatures from the node's fields and parents, which is where the cases a
// plain query misses are handled: arrow functions bound to variables,
// methods qualified by their class or receiver, decorated definitions and
// so on.

// extractor turns one file's captured nodes into symbols.
type extractor interface {
	// handle is called for every captured node, in document order.
	handle(capture string, n *sitter.Node)
	// finish returns the symbols found, after any whole-file pass.
	finish() []Symbol
}

func newExtractor(l Language, src []byte) extractor {
	b := base{src: src}
	switch l {
	case TypeScript, TSX, JavaScript:
		return &ecmaExtractor{base: b}
	case Go:
		return &goExtractor{base: b}
	case Python:
		return &pyExtractor{base: b}
	case Rust:
		return &rustExtractor{base: b}
	}
	return &b
}

// symbolQuery returns the symbol-extraction query for l.
func symbolQuery(l Language) string {
	switch l {
	case TypeScript, TSX:
		return tsQuery
	case JavaScript:
		return jsQuery
	case Go:
		return goQuery
	case Python:
		return pyQuery
	case Rust:
		return rustQuery
	}
	return ""
}

// base holds what every extractor shares: the source and the results.
type base struct {
	src  []byte
	syms []Symbol
}

func (b *base) handle(string, *sitter.Node) {}
func (b *base) finish() []Symbol            { return b.syms }

// add records a symbol located at the start of at.
func (b *base) add(k Kind, at *sitter.Node, name, ident, container, sig string) {
	b.syms = append(b.syms, symbolAt(k, at, name, ident, container, sig))
}

// symbolAt returns a symbol located at the start of at.
func symbolAt(k Kind, at *sitter.Node, name, ident, container, sig string) Symbol {
	pos := at.StartPosition()
	return Symbol{
		Kind:      k,
		Name:      name,
		Ident:     ident,
		Container: container,
		Line:      int(pos.Row) + 1,
		Column:    int(pos.Column) + 1,
		Signature: sig,
	}
}

// text returns n's source.
func (b *base) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(b.src[n.StartByte():n.EndByte()])
}

// flat returns n's source on one line, shortened like a signature.
func (b *base) flat(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return oneLine(b.src[n.StartByte():n.EndByte()])
}

// sig returns the signature of a declaration that starts at from and whose
// body (block, class body, field list) is body: everything before the body,
// on one line. Without a body, the whole of from is the signature.
func (b *base) sig(from, body *sitter.Node) string {
	end := from.EndByte()
	if body != nil && body.StartByte() >= from.StartByte() {
		end = body.StartByte()
	}
	return oneLine(b.src[from.StartByte():end])
}

// calleeGrammar names the node types and fields from which a grammar
// builds the callee of a call, for [base.callee]. An empty node type is one
// the grammar lacks.
type calleeGrammar struct {
	member, object, property string // obj.prop: the node type and its fields
	call                     string // a call, with its callee in field "function"
	index, indexed           string // obj[i]: the node type and its object field
	// wrappers are node types whose first named child is the callee:
	// parentheses, and in some grammars await or a turbofish.
	wrappers []string
	funcLit  string // an anonymous function (Go's func_literal), named "func"
}

// callee names the function that n, a call's callee, denotes: the chain
// of member accesses, calls and subscripts that leads to it, with
// arguments and indices dropped ("this.pool.query", "client.Do().Body.Close",
// "items[].map"). Anything else is named by its source.
func (b *base) callee(g *calleeGrammar, n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch k := n.Kind(); {
	case k == g.member:
		return b.callee(g, field(n, g.object)) + "." + b.text(field(n, g.property))
	case k == g.call:
		return b.callee(g, field(n, "function")) + "()"
	case k == g.index:
		return b.callee(g, field(n, g.indexed)) + "[]"
	case k == g.funcLit:
		return "func"
	case slices.Contains(g.wrappers, k):
		if n.NamedChildCount() > 0 {
			return b.callee(g, n.NamedChild(0))
		}
	}
	return b.flat(n)
}

// addCall records call n, named by the callee in its function field.
func (b *base) addCall(g *calleeGrammar, n *sitter.Node) {
	fn := field(n, "function")
	if fn == nil {
		return
	}
	name := b.callee(g, fn)
	b.add(Call, n, name, lastSegment(name), "", b.flat(n))
}

// field returns n's child in the named field, or nil.
func field(n *sitter.Node, name string) *sitter.Node {
	if n == nil {
		return nil
	}
	return n.ChildByFieldName(name)
}

// kindOf returns n's node type, or "" for nil.
func kindOf(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return n.Kind()
}

// namedChildren returns n's named children.
func namedChildren(n *sitter.Node) []*sitter.Node {
	count := n.NamedChildCount()
	out := make([]*sitter.Node, 0, count)
	for i := range count {
		if c := n.NamedChild(i); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// childrenByField returns n's children in the named field, which may
// repeat ("from x import a, b" has two names).
func childrenByField(n *sitter.Node, name string) []*sitter.Node {
	cursor := n.Walk()
	defer cursor.Close()
	nodes := n.ChildrenByFieldName(name, cursor)
	out := make([]*sitter.Node, len(nodes))
	for i := range nodes {
		out[i] = &nodes[i]
	}
	return out
}

// firstChildOfKind returns n's first named child of node type kind, or nil.
func firstChildOfKind(n *sitter.Node, kind string) *sitter.Node {
	if n == nil {
		return nil
	}
	for _, c := range namedChildren(n) {
		if c.Kind() == kind {
			return c
		}
	}
	return nil
}

// hasChild reports whether n has an anonymous child token with text tok,
// such as "default" in an export or "async" before a def.
func hasChild(n *sitter.Node, tok string) bool {
	for i := range n.ChildCount() {
		c := n.Child(i)
		if c != nil && !c.IsNamed() && c.Kind() == tok {
			return true
		}
	}
	return false
}

// lastSegment returns the part of a dotted or ::-separated name after the
// last separator: the bare callee of "db.query" or "HashMap::new".
func lastSegment(name string) string {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// trimSig drops a statement's trailing semicolon from a signature.
func trimSig(s string) string {
	return strings.TrimSpace(strings.TrimSuffix(s, ";"))
}

// stripTypeArgs removes generic arguments from a type name: "Store<K, V>"
// and "List[T]" become "Store" and "List".
func stripTypeArgs(name string) string {
	if i := strings.IndexAny(name, "<["); i > 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

// unquote strips one layer of matching quotes from a string literal.
func unquote(s string) string {
	if len(s) >= 2 {
		switch q := s[0]; q {
		case '"', '\'', '`':
			if s[len(s)-1] == q {
				return s[1 : len(s)-1]
			}
		}
	}
	return s
}
