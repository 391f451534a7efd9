package syntax

import (
	"context"
	"slices"
	"testing"
)

func surfaceOf(t *testing.T, p *Parser, l Language, src string) *Surface {
	t.Helper()
	s, err := p.Surface(context.Background(), l, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSurfaceShapes checks which edits change a name's shape: only what
// another file's types could see.
func TestSurfaceShapes(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	cases := []struct {
		name          string
		lang          Language
		before, after string
		decl          string // the name whose shape is compared
		same          bool
	}{
		{"annotated function body", TypeScript,
			"export function f(x: number): number { return x + 1 }",
			"export function f(x: number): number {\n  const y = x * 2;\n  return y - 1;\n}", "f", true},
		{"unannotated function body: its type is inferred", TypeScript,
			"export function f(x: number) { return x + 1 }",
			"export function f(x: number) { return String(x) }", "f", false},
		{"comments and layout", TypeScript,
			"export interface User { id: string; name: string }",
			"// a user\nexport interface User {\n  id: string; // key\n  name: string\n}", "User", true},
		{"an interface member", TypeScript,
			"export interface User { id: string }",
			"export interface User { id: number }", "User", false},
		{"a parameter type", TypeScript,
			"export function f(x: number): void {}",
			"export function f(x: string): void {}", "f", false},
		{"an annotated const's value", TypeScript,
			"export const limit: number = 10;",
			"export const limit: number = 20;", "limit", true},
		{"an unannotated const's value", TypeScript,
			"export const limit = 10;",
			"export const limit = 20;", "limit", false},
		{"an annotated arrow function's body", TypeScript,
			"export const f = (x: number): string => `${x}`;",
			"export const f = (x: number): string => { return x.toFixed(2); };", "f", true},
		{"a method body with a return type", TypeScript,
			"export class A { get(): number { return 1 } }",
			"export class A { get(): number { return 2 } }", "A", true},
		{"a method body without a return type", TypeScript,
			"export class A { get() { return 1 } }",
			"export class A { get() { return 'x' } }", "A", false},
		{"a constructor body", TypeScript,
			"export class A { n: number; constructor() { this.n = 1 } }",
			"export class A { n: number; constructor() { this.n = 2; console.log(1) } }", "A", true},
		{"a private member: classes compare nominally by it", TypeScript,
			"export class A { private n = 1 }",
			"export class A { private m = 1 }", "A", false},
		{"a typed field initializer", TypeScript,
			"export class A { n: number = 1 }",
			"export class A { n: number = 2 }", "A", true},
		{"an expando property joins its function", TypeScript,
			"export function f(): void {}\nf.label = 'a';",
			"export function f(): void {}\nf.label = 1;", "f", false},
		{"a function overload", TypeScript,
			"export function f(x: string): void;\nexport function f(x: any): void {}",
			"export function f(x: number): void;\nexport function f(x: any): void {}", "f", false},
		{"overloads in another order: the first match wins", TypeScript,
			"export function f(x: string): string;\nexport function f(x: unknown): number;\nexport function f(x: any): any {}",
			"export function f(x: unknown): number;\nexport function f(x: string): string;\nexport function f(x: any): any {}", "f", false},
		{"a TSX component with a return type", TSX,
			"export function C(): JSX.Element { return <div>a</div> }",
			"export function C(): JSX.Element { return <span>b</span> }", "C", true},
		{"JavaScript keeps bodies: checkJs infers from them", JavaScript,
			"export function f(x) { return x + 1 }",
			"export function f(x) { return 'y' }", "f", false},
		{"python: an annotated function body", Python,
			"def f(x: int) -> int:\n    return x + 1\n",
			"def f(x: int) -> int:\n    y = x * 2\n    return y\n", "f", true},
		{"python: an unannotated function body", Python,
			"def f(x: int):\n    return x + 1\n",
			"def f(x: int):\n    return str(x)\n", "f", false},
		{"python: a method that assigns self attributes keeps its body", Python,
			"class A:\n    def __init__(self) -> None:\n        self.x = 1\n",
			"class A:\n    def __init__(self) -> None:\n        self.x = 'a'\n", "A", false},
		{"python: an annotated method without attribute assignments", Python,
			"class A:\n    def get(self) -> int:\n        return self.x\n",
			"class A:\n    def get(self) -> int:\n        return self.x + 1\n", "A", true},
		{"python: a docstring and comments", Python,
			"def f(x: int) -> int:\n    return x\n",
			"def f(x: int) -> int:  # note\n    \"\"\"Doc.\"\"\"\n    return x\n", "f", true},
		{"python: a dataclass field default", Python,
			"@dataclass\nclass A:\n    x: int = 1\n",
			"@dataclass\nclass A:\n    x: int = field(default=1, kw_only=True)\n", "A", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, a := surfaceOf(t, p, c.lang, c.before), surfaceOf(t, p, c.lang, c.after)
			if b.Opaque != "" || a.Opaque != "" {
				t.Fatalf("opaque: %q / %q", b.Opaque, a.Opaque)
			}
			sb, ok1 := b.Names[c.decl]
			sa, ok2 := a.Names[c.decl]
			if !ok1 || !ok2 {
				t.Fatalf("%s not declared: before %v, after %v", c.decl, keys(b.Names), keys(a.Names))
			}
			if (sb.Hash == sa.Hash) != c.same {
				t.Errorf("shape of %s: same = %v, want %v", c.decl, sb.Hash == sa.Hash, c.same)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestSurfaceECMAImportsAndExports(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	s := surfaceOf(t, p, TypeScript, `/// <reference path="globals.d.ts" />
import d, { a as b, type T } from "./x";
import * as ns from "./y";
import "./z";
import q = require("./q");
export { c } from "./v";
export * from "./u";
export * as all from "./w";
const lazy = () => import("./lazy");
export { b as renamed };
export default class Main {}
export const one = 1, two: number = 2;
export function call(): void { ns.run(); let t: ns.Kind; }
export type Alias = ns.Other;
`)
	if s.Opaque != "" {
		t.Fatal(s.Opaque)
	}
	want := map[string]Origin{
		"c": {Module: "./v", Name: "c"}, "all": {Module: "./w", Name: "*"}, "renamed": {Local: "b"},
		"default": {Local: "Main"}, "one": {Local: "one"}, "two": {Local: "two"},
		"call": {Local: "call"}, "Alias": {Local: "Alias"},
	}
	for name, o := range want {
		if s.Exports[name] != o {
			t.Errorf("export %s = %+v, want %+v", name, s.Exports[name], o)
		}
	}
	if !slices.Equal(s.Stars, []string{"./u"}) {
		t.Errorf("stars %v", s.Stars)
	}
	byLocal := map[string]Binding{}
	for _, b := range s.Imports {
		byLocal[b.Local] = b
	}
	for local, w := range map[string]Binding{
		"d":                         {Module: "./x", Name: "default"},
		"b":                         {Module: "./x", Name: "a", Whole: true}, // re-exported as renamed: used whole
		"T":                         {Module: "./x", Name: "T"},
		"ns":                        {Module: "./y", Name: "*", Members: []string{"Kind", "Other", "run"}},
		"q":                         {Module: "./q", Name: "*"},
		"":                          {Module: "./z"},
		"\x00import:./lazy":         {Module: "./lazy", Name: "*", Whole: true},
		"\x00import:./globals.d.ts": {Module: "./globals.d.ts", Name: "*", Whole: true},
		"\x00reexport:c":            {Module: "./v", Name: "c"},
	} {
		got, ok := byLocal[local]
		w.Local = local
		if !ok || got.Module != w.Module || got.Name != w.Name || got.Whole != w.Whole || !slices.Equal(got.Members, w.Members) {
			t.Errorf("binding %q = %+v, want %+v", local, got, w)
		}
	}
	// The namespace's members used in the shapes name the members.
	if refs := s.Names["Alias"].Refs; !slices.Contains(refs, "ns.Other") || slices.Contains(refs, "ns") {
		t.Errorf("Alias refs %v", refs)
	}
	// A body with a declared return type is left out, refs included.
	if refs := s.Names["call"].Refs; slices.Contains(refs, "ns.run") {
		t.Errorf("call refs %v include its body", refs)
	}
	if refs := s.Names["lazy"].Refs; !slices.Contains(refs, "\x00import:./lazy") {
		t.Errorf("lazy refs %v miss the dynamic import", refs)
	}
}

// A type-only modifier is part of an export's or import's interface: the
// same declaration exported as a type alone cannot be used as a value.
func TestSurfaceTypeOnly(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	s := surfaceOf(t, p, TypeScript, `import type { A } from "./a";
import { type B, C } from "./b";
import type D from "./d";
class Store {}
class Shop {}
export type { Store };
export { type Shop, A, C };
export type { V } from "./v";
export { W } from "./w";
`)
	if s.Opaque != "" {
		t.Fatal(s.Opaque)
	}
	for name, want := range map[string]bool{"Store": true, "Shop": true, "A": false, "C": false, "V": true, "W": false} {
		if o, ok := s.Exports[name]; !ok || o.TypeOnly != want {
			t.Errorf("export %s = %+v, want type-only %v", name, o, want)
		}
	}
	for _, b := range s.Imports {
		want := map[string]bool{"A": true, "B": true, "C": false, "D": true}
		if w, ok := want[b.Local]; ok && b.TypeOnly != w {
			t.Errorf("import %s type-only %v, want %v", b.Local, b.TypeOnly, w)
		}
	}
}

// A string in a Python declaration may be a type (a forward reference):
// its words are references, so the names it spells are in the closure.
func TestSurfacePythonStringAnnotation(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	s := surfaceOf(t, p, Python, `class Widget:
    pass


def make() -> "Widget":
    """Makes a Gadget."""
    return Widget()


T = TypeVar("T", bound="mod.Base")
`)
	if refs := s.Names["make"].Refs; !slices.Contains(refs, "Widget") || slices.Contains(refs, "Gadget") {
		t.Errorf("make refs %v: want Widget from its string annotation and nothing from its docstring", refs)
	}
	if refs := s.Names["T"].Refs; !slices.Contains(refs, "mod.Base") {
		t.Errorf("T refs %v: want mod.Base from the bound's string", refs)
	}
}

func TestSurfaceNamespaceUsedWhole(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	s := surfaceOf(t, p, TypeScript, "import * as ns from './y';\nexport function f(): void { use(ns); }\n")
	if len(s.Imports) != 1 || !s.Imports[0].Whole {
		t.Errorf("imports %+v: want ns used whole", s.Imports)
	}
}

func TestSurfaceOpaque(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	for name, c := range map[string]struct {
		lang Language
		src  string
	}{
		"CommonJS":       {JavaScript, "const a = 1;\nmodule.exports = { a };\n"},
		"exports.x":      {JavaScript, "exports.a = 1;\n"},
		"export =":       {TypeScript, "declare const a: number;\nexport = a;\n"},
		"a syntax error": {TypeScript, "export function f( {\n"},
	} {
		if s := surfaceOf(t, p, c.lang, c.src); s.Opaque == "" {
			t.Errorf("%s: not opaque", name)
		}
	}
}

func TestSurfacePython(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	s := surfaceOf(t, p, Python, `"""Module doc."""
import os
import a.b
import json as j
from .core import Command, group as grp
from . import utils
from .types import *
try:
    from ._speedups import fast
except ImportError:
    fast = None
__all__ = ["Command"]
VERSION: str = "1"

def helper(x):
    from .lazy import thing
    return os.path.join(x, j.dumps(thing))
`)
	if s.Opaque != "" {
		t.Fatal(s.Opaque)
	}
	for name, o := range map[string]Origin{
		"Command": {Module: ".core", Name: "Command"}, "grp": {Module: ".core", Name: "group"},
		"utils": {Module: ".", Name: "utils"}, "os": {Module: "os", Name: "*"}, "a": {Module: "a.b", Name: "*"},
		"fast": {Module: "._speedups", Name: "fast"}, "VERSION": {Local: "VERSION"}, "helper": {Local: "helper"},
	} {
		if s.Exports[name] != o {
			t.Errorf("export %s = %+v, want %+v", name, s.Exports[name], o)
		}
	}
	if !slices.Equal(s.Stars, []string{".types"}) {
		t.Errorf("stars %v", s.Stars)
	}
	found := map[string]Binding{}
	for _, b := range s.Imports {
		found[b.Module+" "+b.Name] = b
	}
	if b := found["os *"]; b.Whole || !slices.Equal(b.Members, []string{"path"}) {
		t.Errorf("os binding %+v: want members [path]", b)
	}
	if b := found["a.b *"]; !b.Whole {
		t.Errorf("import a.b %+v: want whole", b)
	}
	if _, ok := found[".lazy thing"]; !ok {
		t.Errorf("a function's import is missing: %v", keys(found))
	}
	// __all__ and the try block are module-wide; changing __all__
	// changes it.
	s2 := surfaceOf(t, p, Python, `"""Module doc."""
import os
import a.b
import json as j
from .core import Command, group as grp
from . import utils
from .types import *
try:
    from ._speedups import fast
except ImportError:
    fast = None
__all__ = ["Command", "grp"]
VERSION: str = "1"

def helper(x):
    from .lazy import thing
    return os.path.join(x, j.dumps(thing))
`)
	if s.ModuleWide.Hash == s2.ModuleWide.Hash {
		t.Error("__all__ changed and the module-wide shape did not")
	}
	if s.Names["helper"].Hash != s2.Names["helper"].Hash {
		t.Error("helper's shape changed though helper did not")
	}
}
