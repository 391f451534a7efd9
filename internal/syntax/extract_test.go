package syntax

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// symbolCase expects (or, with absent, forbids) a symbol in a testdata file.
type symbolCase struct {
	name   string // what the case shows
	file   string // under testdata/
	kind   Kind
	sym    string // Symbol.Name
	line   int    // 0: any line
	sig    string // a substring of the signature, if set
	absent bool   // the symbol must not be reported
}

// symbolFiles parses each testdata file once per test binary.
type symbolFiles struct {
	mu    sync.Mutex
	p     *Parser
	cache map[string][]Symbol
}

func (f *symbolFiles) get(t *testing.T, file string) []Symbol {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if syms, ok := f.cache[file]; ok {
		return syms
	}
	path := filepath.Join("testdata", filepath.FromSlash(file))
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lang, ok := LanguageForPath(path)
	if !ok {
		t.Fatalf("no language for %s", path)
	}
	syms, err := f.p.Symbols(context.Background(), lang, src)
	if err != nil {
		t.Fatal(err)
	}
	f.cache[file] = syms
	return syms
}

func runSymbolCases(t *testing.T, cases []symbolCase) {
	t.Helper()
	p := New(Options{})
	t.Cleanup(p.Close)
	files := &symbolFiles{p: p, cache: map[string][]Symbol{}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			syms := files.get(t, tc.file)
			var found *Symbol
			for i, s := range syms {
				if s.Kind == tc.kind && s.Name == tc.sym && (tc.line == 0 || s.Line == tc.line) {
					found = &syms[i]
					break
				}
			}
			switch {
			case tc.absent && found != nil:
				t.Fatalf("%s %q reported at line %d, want it absent", tc.kind, tc.sym, found.Line)
			case tc.absent:
				return
			case found == nil:
				t.Fatalf("%s %q (line %d) not found; %s has:\n%s", tc.kind, tc.sym, tc.line, tc.file, describe(syms, tc.kind))
			case tc.sig != "" && !strings.Contains(found.Signature, tc.sig):
				t.Fatalf("signature of %s %q = %q, want it to contain %q", tc.kind, tc.sym, found.Signature, tc.sig)
			}
		})
	}
}

func describe(syms []Symbol, k Kind) string {
	var b strings.Builder
	for _, s := range syms {
		if s.Kind == k {
			fmt.Fprintf(&b, "  %d %s  %s\n", s.Line, s.Name, s.Signature)
		}
	}
	return b.String()
}

func TestSyntaxSymbolsTypeScript(t *testing.T) {
	const f = "ts/service.ts"
	runSymbolCases(t, []symbolCase{
		{name: "exported async arrow function", file: f, kind: Function, sym: "handler", line: 67, sig: "export const handler = async (req: Request, res: Response): Promise<void> =>"},
		{name: "function expression bound to const", file: f, kind: Function, sym: "format", line: 73, sig: "const format = function named(value: unknown): string"},
		{name: "multi-line parameters on one line", file: f, kind: Function, sym: "retry", line: 80, sig: "export function retry<T>(fn: () => Promise<T>, attempts = MAX_RETRIES,): Promise<T>"},
		{name: "generator function", file: f, kind: Function, sym: "ids", line: 87},
		{name: "declare function signature", file: f, kind: Function, sym: "overload", line: 91, sig: "export declare function overload(a: string): string"},
		{name: "anonymous default function", file: f, kind: Function, sym: "default", line: 98},
		{name: "abstract class", file: f, kind: Class, sym: "BaseStore", line: 25, sig: "export abstract class BaseStore<T> implements Repository<T>"},
		{name: "class", file: f, kind: Class, sym: "UserStore", line: 60},
		{name: "constructor", file: f, kind: Method, sym: "BaseStore.constructor", line: 29},
		{name: "abstract method", file: f, kind: Method, sym: "BaseStore.find", line: 33, sig: "abstract find(id: string)"},
		{name: "async method", file: f, kind: Method, sym: "BaseStore.save", line: 35, sig: "async save(item: T): Promise<void>"},
		{name: "getter", file: f, kind: Method, sym: "BaseStore.name", line: 39, sig: "get name(): string"},
		{name: "setter", file: f, kind: Method, sym: "BaseStore.label", line: 43, sig: "set label(value: string)"},
		{name: "static method", file: f, kind: Method, sym: "BaseStore.create", line: 47, sig: "static create("},
		{name: "private # method", file: f, kind: Method, sym: "BaseStore.#evict", line: 51},
		{name: "arrow function class field", file: f, kind: Method, sym: "BaseStore.onError", line: 55, sig: "private onError = (err: Error): void =>"},
		{name: "interface method signature", file: f, kind: Method, sym: "Repository.find", line: 8},
		{name: "interface property is no method", file: f, kind: Method, sym: "Repository.name", absent: true},
		{name: "exported interface", file: f, kind: Interface, sym: "Repository", line: 7, sig: "export interface Repository<T>"},
		{name: "local interface", file: f, kind: Interface, sym: "User", line: 93},
		{name: "type alias", file: f, kind: Type, sym: "UserId", line: 13},
		{name: "enum", file: f, kind: Enum, sym: "Role", line: 15},
		{name: "const enum", file: f, kind: Enum, sym: "Flags", line: 20},
		{name: "named and type imports", file: f, kind: Import, sym: "pg", line: 1},
		{name: "import type", file: f, kind: Import, sym: "express", line: 2, sig: "import type"},
		{name: "namespace import", file: f, kind: Import, sym: "node:path", line: 3},
		{name: "side-effect import", file: f, kind: Import, sym: "./polyfills", line: 4},
		{name: "import require", file: f, kind: Import, sym: "./config", line: 5},
		{name: "exported const function", file: f, kind: Export, sym: "handler", line: 67},
		{name: "exported abstract class", file: f, kind: Export, sym: "BaseStore", line: 25},
		{name: "export default function", file: f, kind: Export, sym: "default", line: 98},
		{name: "export list with alias", file: f, kind: Export, sym: "formatValue", line: 102},
		{name: "export list plain", file: f, kind: Export, sym: "counter", line: 102},
		{name: "re-export with alias", file: f, kind: Export, sym: "DbPool", line: 103},
		{name: "export star", file: f, kind: Export, sym: "*", line: 104},
		{name: "export star as namespace", file: f, kind: Export, sym: "helpers", line: 105},
		{name: "unexported function is no export", file: f, kind: Export, sym: "ids", absent: true},
		{name: "module-level let", file: f, kind: Variable, sym: "counter", line: 77},
		{name: "exported const", file: f, kind: Variable, sym: "MAX_RETRIES", line: 78},
		{name: "local const is no variable", file: f, kind: Variable, sym: "store", absent: true},
		{name: "function-valued const is no variable", file: f, kind: Variable, sym: "handler", absent: true},
		{name: "method call", file: f, kind: Call, sym: "this.pool.query", line: 36},
		{name: "awaited generic call", file: f, kind: Call, sym: "this.pool.query", line: 62},
		{name: "new expression", file: f, kind: Call, sym: "UserStore", line: 68, sig: "new UserStore(new Pool())"},
		{name: "call on call result", file: f, kind: Call, sym: "fn().catch", line: 84},
		{name: "private field call", file: f, kind: Call, sym: "this.#cache.delete", line: 52},
		{name: "default class export", file: "ts/default-class.ts", kind: Export, sym: "default", line: 1, sig: "export default class Controller"},
		{name: "default class declaration", file: "ts/default-class.ts", kind: Class, sym: "Controller", line: 1},
		{name: "default identifier export", file: "ts/default-expr.ts", kind: Export, sym: "default", line: 2, sig: "export default app"},
	})
}

func TestSyntaxSymbolsTSX(t *testing.T) {
	const f = "tsx/Button.tsx"
	runSymbolCases(t, []symbolCase{
		{name: "typed arrow component", file: f, kind: Function, sym: "Button", line: 10, sig: "export const Button: FC<ButtonProps> ="},
		{name: "default function component", file: f, kind: Function, sym: "App", line: 20},
		{name: "default export keeps local name in ident", file: f, kind: Export, sym: "default", line: 20, sig: "export default function App(): JSX.Element"},
		{name: "interface", file: f, kind: Interface, sym: "ButtonProps", line: 4},
		{name: "class component", file: f, kind: Class, sym: "Legacy", line: 24},
		{name: "render method", file: f, kind: Method, sym: "Legacy.render", line: 25},
		{name: "hook call", file: f, kind: Call, sym: "useState", line: 11},
		{name: "optional call", file: f, kind: Call, sym: "onClick", line: 13},
		{name: "import type", file: f, kind: Import, sym: "react", line: 2},
		{name: "JSX element is no call", file: f, kind: Call, sym: "Button", absent: true},
	})
}

func TestSyntaxSymbolsJavaScript(t *testing.T) {
	const f = "js/server.js"
	runSymbolCases(t, []symbolCase{
		{name: "exported async arrow", file: f, kind: Function, sym: "handler", line: 9, sig: "export const handler = async (req, res) =>"},
		{name: "named function expression", file: f, kind: Function, sym: "f", line: 14, sig: "const f = function named(a, b)"},
		{name: "generator", file: f, kind: Function, sym: "counter", line: 18},
		{name: "JSX component", file: f, kind: Function, sym: "App", line: 44},
		{name: "class", file: f, kind: Class, sym: "Router", line: 23},
		{name: "static getter", file: f, kind: Method, sym: "Router.default", line: 27, sig: "static get default()"},
		{name: "method", file: f, kind: Method, sym: "Router.add", line: 31},
		{name: "private method", file: f, kind: Method, sym: "Router.#match", line: 35},
		{name: "setter", file: f, kind: Method, sym: "Router.prefix", line: 39},
		{name: "require", file: f, kind: Import, sym: "express", line: 2},
		{name: "ES import", file: f, kind: Import, sym: "fs/promises", line: 3},
		{name: "default and namespace import", file: f, kind: Import, sym: "./utils.js", line: 4},
		{name: "export default function", file: f, kind: Export, sym: "default", line: 51},
		{name: "export alias", file: f, kind: Export, sym: "add", line: 52},
		{name: "export star", file: f, kind: Export, sym: "*", line: 53},
		{name: "module.exports shorthand", file: f, kind: Export, sym: "App", line: 54},
		{name: "module variable", file: f, kind: Variable, sym: "PORT", line: 7},
		{name: "local let is no variable", file: f, kind: Variable, sym: "i", absent: true},
		{name: "call", file: f, kind: Call, sym: "app.listen", line: 49},
		{name: "new", file: f, kind: Call, sym: "Router", line: 28},
		{name: "call inside JSX", file: f, kind: Call, sym: "utils.render", line: 45},
	})
}

func TestSyntaxSymbolsGo(t *testing.T) {
	const f = "go/store.go"
	runSymbolCases(t, []symbolCase{
		{name: "function", file: f, kind: Function, sym: "New", line: 63, sig: "func New() *Store"},
		{name: "multi-line signature", file: f, kind: Function, sym: "normalize", line: 84, sig: "func normalize(key string, upper bool) string"},
		{name: "generic function", file: f, kind: Function, sym: "Map", line: 92, sig: "func Map[T, U any](xs []T, f func(T) U) []U"},
		{name: "pointer receiver", file: f, kind: Method, sym: "(*Store).Get", line: 68, sig: "func (s *Store) Get(ctx context.Context, key string) (string, error)"},
		{name: "value receiver", file: f, kind: Method, sym: "Store.Len", line: 78},
		{name: "generic receiver", file: f, kind: Method, sym: "(*List).Push", line: 80},
		{name: "interface method", file: f, kind: Method, sym: "Getter.Get", line: 47},
		{name: "struct is a class", file: f, kind: Class, sym: "Store", line: 40, sig: "type Store struct"},
		{name: "struct in type group", file: f, kind: Class, sym: "pair", line: 55},
		{name: "generic struct", file: f, kind: Class, sym: "List", line: 58, sig: "type List[T any] struct"},
		{name: "struct is not also a type", file: f, kind: Type, sym: "Store", absent: true},
		{name: "interface", file: f, kind: Interface, sym: "Getter", line: 46},
		{name: "alias", file: f, kind: Type, sym: "ID", line: 51, sig: "type ID = string"},
		{name: "func type in group", file: f, kind: Type, sym: "Handler", line: 54},
		{name: "defined type", file: f, kind: Type, sym: "Color", line: 26},
		{name: "iota enum", file: f, kind: Enum, sym: "Color", line: 28},
		{name: "plain const block is no enum", file: f, kind: Enum, sym: "a", absent: true},
		{name: "import", file: f, kind: Import, sym: "context", line: 5},
		{name: "aliased import", file: f, kind: Import, sym: "sync", line: 8, sig: `stdsync "sync"`},
		{name: "single import", file: f, kind: Import, sym: "strings", line: 13},
		{name: "exported func", file: f, kind: Export, sym: "New", line: 63},
		{name: "exported var", file: f, kind: Export, sym: "ErrNotFound", line: 16},
		{name: "exported const", file: f, kind: Export, sym: "MaxKeys", line: 23},
		{name: "exported type", file: f, kind: Export, sym: "Store", line: 40},
		{name: "unexported func is no export", file: f, kind: Export, sym: "normalize", absent: true},
		{name: "method is no export", file: f, kind: Export, sym: "(*Store).Get", absent: true},
		{name: "var", file: f, kind: Variable, sym: "ErrNotFound", line: 16},
		{name: "var in group with two names", file: f, kind: Variable, sym: "misses", line: 20},
		{name: "const in iota block", file: f, kind: Variable, sym: "Blue", line: 31},
		{name: "local var is no variable", file: f, kind: Variable, sym: "out", absent: true},
		{name: "selector call", file: f, kind: Call, sym: "fmt.Errorf", line: 73},
		{name: "field method call", file: f, kind: Call, sym: "s.mu.Lock", line: 69},
		{name: "builtin call", file: f, kind: Call, sym: "append", line: 81},
	})
}

func TestSyntaxSymbolsPython(t *testing.T) {
	const f = "py/app.py"
	runSymbolCases(t, []symbolCase{
		{name: "async def", file: f, kind: Function, sym: "main", line: 57, sig: "async def main() -> None:"},
		{name: "decorated def at def line", file: f, kind: Function, sym: "health", line: 63, sig: `@app.route("/health") def health():`},
		{name: "nested def", file: f, kind: Function, sym: "make_handler", line: 68},
		{name: "doubly nested async def", file: f, kind: Function, sym: "handler", line: 69},
		{name: "def nested in method", file: f, kind: Function, sym: "helper", line: 48},
		{name: "method", file: f, kind: Method, sym: "Service.__init__", line: 34},
		{name: "staticmethod", file: f, kind: Method, sym: "Service.version", line: 38, sig: "@staticmethod def version() -> str:"},
		{name: "property", file: f, kind: Method, sym: "Service.name", line: 42, sig: "@property"},
		{name: "decorated async multi-line method", file: f, kind: Method, sym: "Service.fetch", line: 46, sig: "@functools.lru_cache(maxsize=128) async def fetch(self, key: str, timeout: float = 1.0) -> str:"},
		{name: "method of nested class", file: f, kind: Method, sym: "Service.Config.load", line: 53},
		{name: "protocol method", file: f, kind: Method, sym: "Repo.get", line: 26},
		{name: "method is no function", file: f, kind: Function, sym: "version", absent: true},
		{name: "class", file: f, kind: Class, sym: "Service", line: 29},
		{name: "nested class", file: f, kind: Class, sym: "Config", line: 52},
		{name: "Enum subclass", file: f, kind: Enum, sym: "Color", line: 20},
		{name: "Protocol subclass", file: f, kind: Interface, sym: "Repo", line: 25},
		{name: "type statement", file: f, kind: Type, sym: "Vector", line: 17},
		{name: "TypeAlias annotation", file: f, kind: Type, sym: "UserId", line: 15},
		{name: "import", file: f, kind: Import, sym: "os", line: 4},
		{name: "aliased dotted import", file: f, kind: Import, sym: "os.path", line: 5},
		{name: "second import in statement", file: f, kind: Import, sym: "sys", line: 5},
		{name: "from import", file: f, kind: Import, sym: "typing", line: 6},
		{name: "relative from import", file: f, kind: Import, sym: ".models", line: 7},
		{name: "future import", file: f, kind: Import, sym: "__future__", line: 2},
		{name: "__all__ entry", file: f, kind: Export, sym: "create_app", line: 11},
		{name: "public name outside __all__", file: f, kind: Export, sym: "main", absent: true},
		{name: "public names without __all__", file: "py/noall.py", kind: Export, sym: "public", line: 7},
		{name: "public class without __all__", file: "py/noall.py", kind: Export, sym: "Model", line: 15},
		{name: "public constant without __all__", file: "py/noall.py", kind: Export, sym: "VERSION", line: 3},
		{name: "private name is no export", file: "py/noall.py", kind: Export, sym: "_hidden", absent: true},
		{name: "import is no export", file: "py/noall.py", kind: Export, sym: "json", absent: true},
		{name: "module assignment", file: f, kind: Variable, sym: "DEBUG", line: 13},
		{name: "annotated assignment", file: f, kind: Variable, sym: "_cache", line: 14},
		{name: "tuple assignment", file: f, kind: Variable, sym: "Other", line: 16},
		{name: "class attribute is no variable", file: f, kind: Variable, sym: "default_timeout", absent: true},
		{name: "attribute call", file: f, kind: Call, sym: "self.repo.get", line: 43},
		{name: "decorator call", file: f, kind: Call, sym: "app.route", line: 62},
		{name: "constructor call", file: f, kind: Call, sym: "Service", line: 58},
	})
}

func TestSyntaxSymbolsRust(t *testing.T) {
	const f = "rs/lib.rs"
	runSymbolCases(t, []symbolCase{
		{name: "async fn", file: f, kind: Function, sym: "serve", line: 56, sig: "pub async fn serve(addr: &str) -> std::io::Result<()>"},
		{name: "private fn", file: f, kind: Function, sym: "helper", line: 64},
		{name: "fn in mod", file: f, kind: Function, sym: "handle", line: 75},
		{name: "macro_rules", file: f, kind: Function, sym: "square!", line: 68},
		{name: "method in generic impl", file: f, kind: Method, sym: "Store::new", line: 37, sig: "pub fn new() -> Self"},
		{name: "private method", file: f, kind: Method, sym: "Store::len", line: 45},
		{name: "trait impl method named by type", file: f, kind: Method, sym: "Command::fmt", line: 51},
		{name: "trait method signature", file: f, kind: Method, sym: "Backend::get", line: 25},
		{name: "trait default method", file: f, kind: Method, sym: "Backend::put", line: 26},
		{name: "struct is a class", file: f, kind: Class, sym: "Store", line: 13, sig: "pub struct Store<K, V>"},
		{name: "unit struct", file: f, kind: Class, sym: "Inner", line: 17},
		{name: "union is a class", file: f, kind: Class, sym: "Bits", line: 31},
		{name: "enum", file: f, kind: Enum, sym: "Command", line: 19},
		{name: "trait is an interface", file: f, kind: Interface, sym: "Backend", line: 24, sig: "pub trait Backend: Send + Sync"},
		{name: "type alias", file: f, kind: Type, sym: "Result", line: 10},
		{name: "use", file: f, kind: Import, sym: "std::collections::HashMap", line: 2},
		{name: "use list", file: f, kind: Import, sym: "std::fmt::{self, Display}", line: 3},
		{name: "use as", file: f, kind: Import, sym: "crate::error::Error", line: 4},
		{name: "glob use", file: f, kind: Import, sym: "super::*", line: 5},
		{name: "pub fn", file: f, kind: Export, sym: "serve", line: 56},
		{name: "pub method", file: f, kind: Export, sym: "Store::get", line: 41},
		{name: "pub use by bound name", file: f, kind: Export, sym: "StoreError", line: 4},
		{name: "pub mod", file: f, kind: Export, sym: "api", line: 74},
		{name: "pub(crate) is no export", file: f, kind: Export, sym: "Inner", absent: true},
		{name: "private static is no export", file: f, kind: Export, sym: "COUNTER", absent: true},
		{name: "const", file: f, kind: Variable, sym: "MAX_KEYS", line: 7},
		{name: "static", file: f, kind: Variable, sym: "COUNTER", line: 8},
		{name: "let is no variable", file: f, kind: Variable, sym: "store", absent: true},
		{name: "path call", file: f, kind: Call, sym: "HashMap::new", line: 38},
		{name: "method chain", file: f, kind: Call, sym: "self.data.get().cloned", line: 42},
		{name: "macro call", file: f, kind: Call, sym: "println!", line: 58},
		{name: "macro with brackets", file: f, kind: Call, sym: "vec!", line: 59},
	})
}
