// Package syntax parses source files with tree-sitter and answers structural
// questions about them: which functions, classes, imports or calls a file
// holds, or what a raw tree-sitter query captures.
//
// It is the only package that links the tree-sitter runtime and grammars,
// so all cgo stays here and packages that do not import it (and their
// tests) never build or link C. A [Parser] owns the C objects behind symbol
// extraction: pooled tree-sitter parsers, compiled symbol queries and a
// bounded cache of parse trees keyed by content, all freed by
// [Parser.Close]. A raw [Query] belongs to whoever compiled it.
//
// Symbol extraction maps each language onto one set of kinds (functions,
// methods, classes, ...); the mapping is documented beside each language's
// extractor, in the lang_*.go files.
//
// Supported languages are TypeScript (and TSX), JavaScript (including JSX),
// Go, Python and Rust; [LanguageForPath] maps file extensions to them.
package syntax

import (
	"path/filepath"
	"strings"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrs "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// Language is a grammar the package can parse. The zero value is no
// language.
type Language int

// The supported languages. TSX is a separate grammar from TypeScript because
// JSX and TypeScript's angle-bracket casts cannot share one; JavaScript's
// grammar already accepts JSX.
const (
	TypeScript Language = iota + 1
	TSX
	JavaScript
	Go
	Python
	Rust
)

// numLanguages bounds per-language arrays indexed by Language.
const numLanguages = int(Rust) + 1

// Languages returns every supported language, in a fixed order.
func Languages() []Language {
	return []Language{TypeScript, TSX, JavaScript, Go, Python, Rust}
}

// String returns the language's lower-case name, as [ParseLanguage] accepts it.
func (l Language) String() string {
	switch l {
	case TypeScript:
		return "typescript"
	case TSX:
		return "tsx"
	case JavaScript:
		return "javascript"
	case Go:
		return "go"
	case Python:
		return "python"
	case Rust:
		return "rust"
	}
	return "unknown"
}

// MarshalText encodes the language as its name, for JSON results.
func (l Language) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// ParseLanguage maps a language name or common alias ("ts", "js", "py",
// "golang", "rs") to a Language.
func ParseLanguage(name string) (Language, bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "typescript", "ts":
		return TypeScript, true
	case "tsx":
		return TSX, true
	case "javascript", "js", "jsx":
		return JavaScript, true
	case "go", "golang":
		return Go, true
	case "python", "py":
		return Python, true
	case "rust", "rs":
		return Rust, true
	}
	return 0, false
}

// LanguageForPath reports the language of a file from its extension. .mts
// and .cts are TypeScript's ES-module and CommonJS flavours; .pyi files are
// Python stubs.
func LanguageForPath(path string) (Language, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		return TypeScript, true
	case ".tsx":
		return TSX, true
	case ".js", ".jsx", ".mjs", ".cjs":
		return JavaScript, true
	case ".go":
		return Go, true
	case ".py", ".pyi":
		return Python, true
	case ".rs":
		return Rust, true
	}
	return 0, false
}

// grammar returns the tree-sitter language for l. The grammars are static C
// data, so the wrappers need no freeing.
func (l Language) grammar() *sitter.Language {
	var ptr unsafe.Pointer
	switch l {
	case TypeScript:
		ptr = tsts.LanguageTypescript()
	case TSX:
		ptr = tsts.LanguageTSX()
	case JavaScript:
		ptr = tsjs.Language()
	case Go:
		ptr = tsgo.Language()
	case Python:
		ptr = tspy.Language()
	case Rust:
		ptr = tsrs.Language()
	default:
		return nil
	}
	return sitter.NewLanguage(ptr)
}

func (l Language) valid() bool { return l > 0 && int(l) < numLanguages }
