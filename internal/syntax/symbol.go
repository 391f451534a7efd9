package syntax

import "strings"

// Kind is a class of symbol that [Parser.Symbols] reports. Each declaration
// is reported under exactly one of the declaration kinds; exports, imports
// and calls are reported in addition to the declarations they name.
type Kind int

// The symbol kinds. How each language maps onto them is documented on the
// per-language extractors (Go structs and Rust structs are classes, Rust
// traits and Python Protocols are interfaces, and so on).
const (
	Unknown Kind = iota // the zero Kind: no kind
	Function
	Method
	Class
	Interface
	Type
	Enum
	Import
	Export
	Variable
	Call
)

// Kinds returns every kind, in a fixed order.
func Kinds() []Kind {
	return []Kind{Function, Method, Class, Interface, Type, Enum, Import, Export, Variable, Call}
}

// String returns the kind's singular name ("function").
func (k Kind) String() string {
	switch k {
	case Function:
		return "function"
	case Method:
		return "method"
	case Class:
		return "class"
	case Interface:
		return "interface"
	case Type:
		return "type"
	case Enum:
		return "enum"
	case Import:
		return "import"
	case Export:
		return "export"
	case Variable:
		return "variable"
	case Call:
		return "call"
	}
	return "unknown"
}

// Plural returns the kind's plural name ("functions"), the form tools take.
func (k Kind) Plural() string {
	switch k {
	case Class:
		return "classes"
	case Unknown:
		return "unknown"
	}
	return k.String() + "s"
}

// MarshalText encodes the kind as its singular name, for JSON results.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// ParseKind maps a singular or plural kind name to a Kind.
func ParseKind(s string) (Kind, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, k := range Kinds() {
		if s == k.String() || s == k.Plural() {
			return k, true
		}
	}
	return Unknown, false
}

// Symbol is one declaration, import, export or call found in a file.
type Symbol struct {
	Kind Kind `json:"kind"`
	// Name is the name as shown to a reader: qualified for methods
	// ("(*Store).Get" in Go, "Store::get" in Rust, "Store.get" elsewhere),
	// the module path for imports, the exported name for exports ("default"
	// for a default export) and the callee for calls ("db.query").
	Name string `json:"name"`
	// Ident is the bare identifier: the method name without its type, the
	// last segment of a callee ("query" for "db.query"), the local name of a
	// default export, and for an import the name it binds when it binds one
	// (an alias, a JS default or namespace import, a Go package name);
	// otherwise it equals Name.
	Ident string `json:"ident"`
	// Container is the enclosing type of a method (class, interface, trait,
	// impl or receiver type), without type parameters.
	Container string `json:"container,omitempty"`
	// Line and Column are 1-based; Column counts bytes.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Signature is the declaration up to its body on one line, whitespace
	// collapsed and cut at about 160 characters.
	Signature string `json:"signature"`
}
