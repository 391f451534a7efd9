package gatefuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// TypeScript projects: modules and scripts, JavaScript under checkJs with
// JSDoc types, named, namespace and type-only imports, re-exports, class
// members and their modifiers, declaration merging, generics, overloads,
// enums, a JSON module, tsconfig.json with `extends` and `moduleSuffixes`,
// a local package npm links under node_modules by another name, and an
// installed package's declaration of a script's global (an @types package
// the tsconfig's types names) in a project that checks its libraries.
// Every use an importer makes of a declaration is written when the
// project is generated and is valid then (but for a stale use, an error
// already on disk: ondisk.go); an edit re-renders the declaring side
// only, so what it breaks is what the checker says.

var tsTypes = []string{"number", "string", "boolean"}

var tsValues = map[string]string{"number": "1", "string": `"s"`, "boolean": "true"}

type tsDecl struct {
	kind      string // const func overload iface class enum alias generic loose global
	name      string
	typ       string
	mod       string   // a class member's modifier ("", "public ", "private ", "protected ", "readonly ")
	exported  int      // 0 not, 1 export, 2 `export type { N }`
	members   int      // an interface's or an enum's extra members
	overloads []string // an overloaded function's parameter types, in order
	constEnum bool
	merged    bool // a class with an interface merged into it
	body      string
}

type tsModule struct {
	path   string // "src/m0.ts"
	js     bool
	script bool
	decls  []*tsDecl
	header []string // imports and re-exports
	uses   []string
	// exports are what an importer may name: own exported declarations
	// and re-exported ones.
	exports []*tsDecl
	// lineBreak, if set, is a line break only TypeScript counts (a lone
	// CR, U+2028, U+2029), written in a block comment after the
	// declaration numbered breakAfter (-1: before the first): the lines
	// the checker numbers then differ from a count of newlines, for
	// whatever in the gate counts lines (an overlay's extent, a shift of
	// the lines below an edit).
	lineBreak  string
	breakAfter int
}

type tsProject struct {
	strict, extends, suffixes, json bool
	// linked: the first module is a local package's (shared/), which
	// importers name "lib", npm's link node_modules/lib → ../shared.
	linked bool
	mods   []*tsModule
	tags   map[string]bool
	// installed: an installed package's declarations (@types/inst, which
	// the tsconfig's types names) declare the script's global again,
	// with the type it had when generated; libraries are then checked
	// (skipLibCheck off), so a change of the script's type breaks the
	// package's declaration file, which no import of the project's
	// reaches.
	installed *tsDecl
	// unparsed: the project holds a module that does not parse, which
	// nothing imports, laid out for the gate only (GateOnlyPrefix): tsc
	// checks no file's types while one file has a syntax error, and the
	// truth is what it says without that file.
	unparsed bool
}

// TS is TypeScript and JavaScript under checkJs, checked by tsc.
type TS struct {
	// Tsc runs TypeScript's compiler (Anvil's tools): the truth.
	Tsc []string
	// Legacy, if set, runs TypeScript 6's compiler, the second compiler
	// beside Tsc (TypeScript 7): Anvil checks a project pinned to 6 or
	// older with 7, on the claim that 7's answer is the project's own.
	Legacy []string
	// Env is the environment tsc runs with (the execution policy's).
	Env []string
	// Pin, if set, is a TypeScript version the workspace's package.json
	// pins (not installed): the gate then checks its projects as it
	// checks a project of that version's, with TypeScript 6's tsserver
	// and tsc, and TypeScript 7 in their place where the two agree.
	Pin string
}

func (TS) Name() string { return "ts" }

func (l TS) Shared(names []string) Files {
	if l.Pin == "" {
		return Files{}
	}
	return Files{"package.json": fmt.Sprintf(`{"private": true, "devDependencies": {"typescript": %q}}`+"\n", l.Pin)}
}

func (l TS) Generate(r *rand.Rand, onDisk bool) (Files, Edit, []string) {
	p := genTSProject(r, onDisk)
	before := p.render()
	edit := p.edit(r, before)
	if len(edit) == 0 {
		// The edit chosen had nothing to change here: a comment instead.
		p.mods[0].uses = append(p.mods[0].uses, "// edited")
		p.tag("ts/edit-comment")
		edit = diffFiles(before, p.render(), nil)
	}
	var tags []string
	for t := range p.tags {
		tags = append(tags, t)
	}
	slices.Sort(tags)
	return before, edit, tags
}

func genTSProject(r *rand.Rand, onDisk bool) *tsProject {
	p := &tsProject{tags: map[string]bool{}}
	stale := newStaleUse(r, onDisk)
	if onDisk && chance(r, 0.3) {
		p.unparsed = true
		p.tag("ts/unparsed-file-on-disk")
	}
	p.strict = chance(r, 0.6)
	p.extends = chance(r, 0.3)
	p.suffixes = chance(r, 0.15)
	p.json = chance(r, 0.15)
	p.linked = !p.suffixes && chance(r, 0.12)
	if p.extends {
		p.tag("ts/tsconfig-extends")
	}
	n := 2 + r.IntN(3)
	counter := 0
	name := func(prefix string) string { counter++; return fmt.Sprintf("%s%d", prefix, counter) }
	for i := 0; i < n; i++ {
		m := &tsModule{path: fmt.Sprintf("src/m%d.ts", i)}
		if i < n-1 && chance(r, 0.2) {
			m.js, m.path = true, fmt.Sprintf("src/m%d.js", i)
			p.tag("ts/checkjs")
		} else if p.suffixes && i == 0 {
			m.path = "src/m0.ios.ts"
			p.tag("ts/module-suffixes")
		} else if p.linked && i == 0 {
			m.path = "shared/m0.ts"
			p.tag("ts/linked-package")
		}
		for k := 1 + r.IntN(3); k > 0; k-- {
			d := &tsDecl{exported: 1, typ: pick(r, tsTypes...)}
			if m.js {
				d.kind = pick(r, "const", "func", "class")
			} else {
				d.kind = pick(r, "const", "func", "overload", "iface", "class", "enum", "alias", "generic")
				if !p.strict && chance(r, 0.3) {
					d.kind = "loose"
				}
			}
			d.name = name(map[string]string{"const": "v", "func": "f", "overload": "o", "iface": "I", "class": "C", "enum": "E", "alias": "T", "generic": "g", "loose": "l"}[d.kind])
			switch d.kind {
			case "class":
				if !m.js {
					d.mod = pick(r, "", "public ", "private ", "protected ", "readonly ")
					d.merged = chance(r, 0.2)
				}
			case "overload":
				d.overloads = []string{"number", "string"}
				if chance(r, 0.5) {
					d.overloads = []string{"string", "number"}
				}
			case "enum":
				d.constEnum = chance(r, 0.3)
			}
			if chance(r, 0.1) && !m.js {
				d.exported = 2
				p.tag("ts/type-only-export")
			}
			if d.exported == 2 && !isTypeDecl(d) {
				// `export type { C }` of a value is valid only while no
				// importer uses it as a value; keep generated projects valid.
				d.exported = 1
			}
			m.decls = append(m.decls, d)
			if d.exported > 0 {
				m.exports = append(m.exports, d)
			}
		}
		p.mods = append(p.mods, m)
	}
	if chance(r, 0.2) {
		m := p.mods[r.IntN(len(p.mods))]
		br := r.IntN(3)
		m.lineBreak = []string{"\r", "\u2028", "\u2029"}[br]
		m.breakAfter = r.IntN(len(m.decls)+1) - 1
		p.tag("ts/line-break-" + []string{"cr", "u2028", "u2029"}[br])
	}
	// A script: globals any module may read.
	var script *tsModule
	if chance(r, 0.25) {
		script = &tsModule{path: "src/globals.ts", script: true}
		script.decls = append(script.decls, &tsDecl{kind: "global", name: name("G"), typ: pick(r, tsTypes...)})
		p.tag("ts/script-global")
		if chance(r, 0.6) {
			g := *script.decls[0]
			p.installed = &g
			p.tag("ts/installed-global")
		}
	}
	// Imports, re-exports and uses: module i reads modules before it.
	for i := 1; i < n; i++ {
		m := p.mods[i]
		if m.js {
			continue
		}
		for j := 0; j < i; j++ {
			src := p.mods[j]
			if len(src.exports) == 0 || chance(r, 0.3) {
				continue
			}
			spec := "./" + strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(src.path, "src/"), ".ts"), ".js"), ".ios")
			if strings.HasPrefix(src.path, "shared/") {
				spec = "lib"
			}
			used := pickSome(r, src.exports)
			switch form := r.IntN(10); {
			case form < 2:
				ns := name("ns")
				m.header = append(m.header, fmt.Sprintf("import * as %s from %q;", ns, spec))
				p.tag("ts/namespace-import")
				for _, d := range used {
					m.uses = append(m.uses, tsUse(r, d, ns+"."+d.name, name("u"))...)
					m.uses = append(m.uses, p.staleUse(r, stale, d, ns+"."+d.name, name)...)
				}
			case form < 4 && i < n-1:
				// A re-export: later modules read these through m.
				if chance(r, 0.5) {
					m.header = append(m.header, fmt.Sprintf("export * from %q;", spec))
					for _, d := range src.exports {
						if !slices.Contains(m.exports, d) {
							m.exports = append(m.exports, d)
						}
					}
					p.tag("ts/export-star")
				} else {
					var names, types []string
					for _, d := range used {
						if d.exported == 2 || (isTypeDecl(d) && chance(r, 0.5)) {
							types = append(types, d.name)
						} else {
							names = append(names, d.name)
						}
						if !slices.Contains(m.exports, d) {
							m.exports = append(m.exports, d)
						}
					}
					if len(names) > 0 {
						m.header = append(m.header, fmt.Sprintf("export { %s } from %q;", strings.Join(names, ", "), spec))
					}
					if len(types) > 0 {
						m.header = append(m.header, fmt.Sprintf("export type { %s } from %q;", strings.Join(types, ", "), spec))
						p.tag("ts/type-only-reexport")
					}
					p.tag("ts/re-export")
				}
			default:
				var names []string
				allTypes := true
				for _, d := range used {
					if d.exported == 2 || (isTypeDecl(d) && chance(r, 0.3)) {
						names = append(names, "type "+d.name)
						p.tag("ts/type-only-import")
					} else {
						names = append(names, d.name)
						allTypes = allTypes && isTypeDecl(d)
					}
					m.uses = append(m.uses, tsUse(r, d, d.name, name("u"))...)
					m.uses = append(m.uses, p.staleUse(r, stale, d, d.name, name)...)
				}
				if allTypes && chance(r, 0.5) {
					for k := range names {
						names[k] = strings.TrimPrefix(names[k], "type ")
					}
					m.header = append(m.header, fmt.Sprintf("import type { %s } from %q;", strings.Join(names, ", "), spec))
					p.tag("ts/type-only-import")
				} else {
					m.header = append(m.header, fmt.Sprintf("import { %s } from %q;", strings.Join(names, ", "), spec))
				}
			}
		}
		if script != nil && chance(r, 0.6) {
			g := script.decls[0]
			m.uses = append(m.uses, fmt.Sprintf("export const %s: %s = %s;", name("u"), g.typ, g.name))
		}
	}
	if script != nil {
		p.mods = append(p.mods, script)
	}
	if p.json {
		m := &tsModule{path: "src/data_use.ts", header: []string{`import data from "./data.json";`}}
		m.uses = append(m.uses, fmt.Sprintf("export const %s: number = data.n;", name("u")))
		p.mods = append(p.mods, m)
		p.tag("ts/json-module")
	}
	for _, m := range p.mods {
		for _, d := range m.decls {
			p.tag("ts/" + d.kind)
			if d.mod != "" {
				p.tag("ts/member-" + strings.TrimSpace(d.mod))
			}
			if d.merged {
				p.tag("ts/declaration-merging")
			}
		}
	}
	return p
}

func isTypeDecl(d *tsDecl) bool { return d.kind == "iface" || d.kind == "alias" }

func pickSome[T any](r *rand.Rand, xs []T) []T {
	var out []T
	for _, x := range xs {
		if chance(r, 0.7) {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		out = append(out, xs[r.IntN(len(xs))])
	}
	return out
}

// tsUse is what an importer writes with a declaration, named ref there:
// statements valid against the declaration as generated.
func tsUse(r *rand.Rand, d *tsDecl, ref, u string) []string {
	v := tsValues[d.typ]
	switch d.kind {
	case "const", "global":
		return []string{fmt.Sprintf("export const %s: %s = %s;", u, d.typ, ref)}
	case "func", "generic":
		return []string{fmt.Sprintf("export const %s: %s = %s(%s);", u, d.typ, ref, v)}
	case "overload":
		return []string{
			fmt.Sprintf("export const %sa: number = %s(1);", u, ref),
			fmt.Sprintf("export const %sb: string = %s(\"s\");", u, ref),
		}
	case "iface":
		return []string{fmt.Sprintf("export const %s: %s = { p: %s };", u, ref, v)}
	case "alias":
		return []string{fmt.Sprintf("export const %s: %s = %s;", u, ref, v)}
	case "enum":
		return []string{fmt.Sprintf("export const %s: %s = %s.B;", u, ref, ref)}
	case "loose":
		return []string{fmt.Sprintf("%s(1);", ref)}
	case "class":
		var out []string
		switch d.mod {
		case "private ", "protected ":
			out = append(out, fmt.Sprintf("export const %s: %s = new %s()[\"p\"];", u, d.typ, ref))
		default:
			out = append(out, fmt.Sprintf("export const %s: %s = new %s().p;", u, d.typ, ref))
		}
		if d.mod != "private " && chance(r, 0.4) {
			out = append(out, fmt.Sprintf("export class %sD extends %s {\n  get(): %s {\n    return this.p;\n  }\n}", u, ref, d.typ))
		}
		if d.merged {
			out = append(out, fmt.Sprintf("declare const %sc: %s;\nexport const %sq: %s = %sc.q;", u, ref, u, d.typ, u))
		}
		return out
	}
	panic("unknown declaration kind " + d.kind)
}

// staleUse is, where stale places it, a use of d written against a type d
// does not have: an error on disk before the edit. Only declarations of a
// value with a type of their own take one.
func (p *tsProject) staleUse(r *rand.Rand, stale *staleUse, d *tsDecl, ref string, name func(string) string) []string {
	switch d.kind {
	case "const", "func", "generic":
	default:
		return nil
	}
	if !stale.place(r) {
		return nil
	}
	p.tag("ts/error-on-disk")
	return tsUse(r, &tsDecl{kind: d.kind, typ: other(r, tsTypes, d.typ)}, ref, name("e"))
}

func (p *tsProject) tag(t string) { p.tags[t] = true }

func (p *tsProject) render() Files {
	f := Files{"package.json": `{"type": "module"}` + "\n"}
	opts := fmt.Sprintf(`"strict": %v, "noEmit": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "lib": ["es2022"], "allowJs": true, "checkJs": true, "skipLibCheck": %v`, p.strict, p.installed == nil)
	if g := p.installed; g != nil {
		// Named in types: TypeScript 6 on takes in no @types package
		// that is not.
		opts += `, "types": ["inst"]`
		f["node_modules/@types/inst/package.json"] = `{"name": "@types/inst", "version": "1.0.0", "types": "index.d.ts"}` + "\n"
		f["node_modules/@types/inst/index.d.ts"] = fmt.Sprintf("declare var %s: %s;\n", g.name, g.typ)
	}
	if p.suffixes {
		opts += `, "moduleSuffixes": [".ios", ""]`
	}
	if p.json {
		opts += `, "resolveJsonModule": true, "allowSyntheticDefaultImports": true`
		f["src/data.json"] = `{"n": 1}` + "\n"
	}
	include := `["src"]`
	if p.linked {
		include = `["src", "shared"]`
		f["shared/package.json"] = `{"name": "shared-lib", "type": "module", "types": "./m0.ts"}` + "\n"
		f["node_modules/lib"] = "->../shared\n" // a case file ends every content with a newline
	}
	if p.extends {
		f["configs/base.json"] = "{\n  \"compilerOptions\": {" + opts + "}\n}\n"
		f["tsconfig.json"] = "{\n  \"extends\": \"./configs/base.json\",\n  \"include\": " + include + "\n}\n"
	} else {
		f["tsconfig.json"] = "{\n  \"compilerOptions\": {" + opts + "},\n  \"include\": " + include + "\n}\n"
	}
	for _, m := range p.mods {
		f[m.path] = m.render()
	}
	if p.unparsed {
		f["src/"+GateOnlyPrefix+"unparsed.ts"] = "export const broken = (;\n"
	}
	return f
}

func (m *tsModule) render() string {
	var b strings.Builder
	for _, h := range m.header {
		b.WriteString(h + "\n")
	}
	if len(m.header) > 0 {
		b.WriteString("\n")
	}
	var typeOnly []string
	writeBreak := func(i int) {
		if m.lineBreak != "" && m.breakAfter == i {
			b.WriteString("/* a line" + m.lineBreak + "break only TypeScript counts */\n")
		}
	}
	writeBreak(-1)
	for i, d := range m.decls {
		if m.js {
			b.WriteString(renderJSDecl(d))
		} else {
			b.WriteString(renderTSDecl(d))
		}
		b.WriteString("\n")
		writeBreak(i)
		if d.exported == 2 {
			typeOnly = append(typeOnly, d.name)
		}
	}
	if len(typeOnly) > 0 {
		fmt.Fprintf(&b, "export type { %s };\n", strings.Join(typeOnly, ", "))
	}
	for _, u := range m.uses {
		b.WriteString(u + "\n")
	}
	if !m.script && len(m.header) == 0 && len(m.uses) == 0 && !hasExport(m) {
		b.WriteString("export {};\n")
	}
	return b.String()
}

func hasExport(m *tsModule) bool {
	for _, d := range m.decls {
		if d.exported == 1 {
			return true
		}
	}
	return false
}

func renderTSDecl(d *tsDecl) string {
	ex := ""
	if d.exported == 1 {
		ex = "export "
	}
	v := tsValues[d.typ]
	switch d.kind {
	case "const":
		return fmt.Sprintf("%sconst %s: %s = %s;\n", ex, d.name, d.typ, v)
	case "global":
		return fmt.Sprintf("var %s: %s = %s;\n", d.name, d.typ, v)
	case "func":
		return fmt.Sprintf("%sfunction %s(x: %s): %s {\n%s  return x;\n}\n", ex, d.name, d.typ, d.typ, d.body)
	case "generic":
		return fmt.Sprintf("%sfunction %s<X extends %s>(x: X): X {\n%s  return x;\n}\n", ex, d.name, d.typ, d.body)
	case "loose":
		return fmt.Sprintf("%sfunction %s(x) {\n%s  return x;\n}\n", ex, d.name, d.body)
	case "overload":
		var b strings.Builder
		for _, t := range d.overloads {
			fmt.Fprintf(&b, "%sfunction %s(x: %s): %s;\n", ex, d.name, t, t)
		}
		fmt.Fprintf(&b, "%sfunction %s(x: any): any {\n%s  return x;\n}\n", ex, d.name, d.body)
		return b.String()
	case "iface":
		var b strings.Builder
		fmt.Fprintf(&b, "%sinterface %s {\n  p: %s;\n", ex, d.name, d.typ)
		for k := 0; k < d.members; k++ {
			fmt.Fprintf(&b, "  q%d: %s;\n", k, d.typ)
		}
		b.WriteString("}\n")
		return b.String()
	case "alias":
		return fmt.Sprintf("%stype %s = %s;\n", ex, d.name, d.typ)
	case "enum":
		c := ""
		if d.constEnum {
			c = "const "
		}
		members := []string{"A", "B", "C", "D"}[:2+d.members]
		return fmt.Sprintf("%s%senum %s {\n  %s,\n}\n", ex, c, d.name, strings.Join(members, ",\n  "))
	case "class":
		s := fmt.Sprintf("%sclass %s {\n  %sp: %s = %s;\n}\n", ex, d.name, d.mod, d.typ, v)
		if d.merged {
			s += fmt.Sprintf("%sinterface %s {\n  q: %s;\n}\n", ex, d.name, d.typ)
		}
		return s
	}
	panic("unknown declaration kind " + d.kind)
}

var jsDocTypes = map[string]string{"number": "number", "string": "string", "boolean": "boolean"}

func renderJSDecl(d *tsDecl) string {
	v := tsValues[d.typ]
	switch d.kind {
	case "const":
		return fmt.Sprintf("/** @type {%s} */\nexport const %s = %s;\n", jsDocTypes[d.typ], d.name, v)
	case "func":
		return fmt.Sprintf("/**\n * @param {%s} x\n * @returns {%s}\n */\nexport function %s(x) {\n%s  return x;\n}\n", d.typ, d.typ, d.name, d.body)
	case "class":
		return fmt.Sprintf("export class %s {\n  constructor() {\n    /** @type {%s} */\n    this.p = %s;\n  }\n}\n", d.name, d.typ, v)
	}
	panic("no JavaScript for declaration kind " + d.kind)
}
