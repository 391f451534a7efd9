package gatefuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/diagformat"
)

// C projects: headers that include each other and a base header behind
// include guards, declaring structs, functions, macros, enums, typedefs
// and static inline functions; sources that include them by quote, by
// angle, by a path and through a macro, the directive spelled as the
// preprocessor reads it (behind a comment, %:, ??=, a line splice; a
// source may start with a byte order mark); an
// X-macro list (.def) expanded
// in an enum; a fragment (.inc) included inside a function body (the list
// and the fragment each by name or through a macro); a header
// forced in by -include; a define given on the command line; and two
// include directories where a header created in the first takes over one
// of the second. The include directory and the forced header are named
// in any of the spellings gcc takes (-I, -isystem, -idirafter, the long
// --include-directory options; -include found along the include chain,
// --include=), each with its own place in the search order. Each project
// has its own compile_commands.json, the truth compiles every entry with
// -fsyntax-only.
//
// The flags make the C conversions gcc and clang only warn about errors
// (an implicit declaration, an int from a struct), so that an edit breaks
// the same way for clangd and for the compiler the database names.

// cTypes are the types a declaration has; a value of one is never a value
// of the other.
var cTypes = []string{"int", "struct Box"}

var cValues = map[string]string{"int": "1", "struct Box": "((struct Box){1})"}

type cDecl struct {
	kind string // struct func macro enum typedef inline
	name string
	typ  string
	gone bool   // renamed away by the edit
	body string // an inline function's statements
}

// ref is the name an includer uses: the enum's second member for an enum.
func (d *cDecl) ref() string {
	if d.kind == "enum" {
		return d.name + "_B"
	}
	return d.name
}

type cHeader struct {
	path     string // "inc/h0.h"
	decls    []*cDecl
	includes []string // headers of the same folder it includes
	comment  string
}

type cSource struct {
	path  string
	bom   bool     // a UTF-8 byte order mark before the first line
	lines []string // include lines
	uses  []string // statements of its use function
}

type cProject struct {
	headers []*cHeader
	sources []*cSource
	colors  []string // the X-macro list's entries ("" when none)
	forced  string   // the forced header's macro ("" when none)
	define  bool     // -DWITH_K=1 on the command line
	alt     bool     // inc2/alt.h, which a created inc/alt.h would take over
	frag    string   // the fragment's statement ("" when none)
	// byMacro: the X-macro list and the fragment are included through a
	// macro (#include LIST), which names no file.
	byMacro bool
	box     string // the base header's struct's tag
	// search and forcing spell the include directory and the forced
	// header on the command line.
	search, forcing []string
	tags            map[string]bool
}

// searchSpellings are the ways a command names the include directory;
// forcedSpellings the ways it forces the header in.
var (
	searchSpellings = [][]string{{"-I", "inc"}, {"--include-directory=inc"}, {"--include-directory", "inc"}, {"-isystem", "inc"}, {"-idirafter", "inc"}, {"--include-directory-after=inc"}}
	forcedSpellings = [][]string{{"-include", "forced.h"}, {"--include=inc/forced.h"}, {"--include", "forced.h"}}
)

// C is C checked by the compiler its compile database names.
type C struct {
	// Env is the environment the compiler runs with.
	Env []string
}

func (C) Name() string { return "c" }

// Shared is nothing: each project has its own compile database.
func (C) Shared(names []string) Files { return Files{} }

// Errors compiles every entry of every project's compile database with
// -fsyntax-only, as the database says, from its directory.
func (l C) Errors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	errs := newRunUnion() // every unit that includes a header reports its errors
	for _, n := range names {
		db, err := compiledb.Load(filepath.Join(dir, n, "compile_commands.json"))
		if err != nil {
			return nil, err
		}
		for _, c := range db.Commands {
			argv := c.SyntaxOnly()
			exit, out, err := run(ctx, l.Env, c.Dir, argv[0], argv[1:]...)
			if err != nil {
				return nil, err
			}
			rep, err := diagformat.Parse(diagformat.GCC, diagformat.Input{Root: c.Dir, Exit: exit, Output: out})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.File, err)
			}
			found, err := byProject(dir, rep.Files)
			if err != nil {
				return nil, err
			}
			errs.add(map[string][]string{n: found[n]})
		}
	}
	return errs.errs, nil
}

func (C) Generate(r *rand.Rand, onDisk bool) (Files, Edit, []string) {
	p := &cProject{tags: map[string]bool{}, box: "Box"}
	stale := newStaleUse(r, onDisk)
	counter := 0
	name := func(prefix string) string { counter++; return fmt.Sprintf("%s%d", prefix, counter) }
	n := 1 + r.IntN(3)
	for i := 0; i < n; i++ {
		h := &cHeader{path: fmt.Sprintf("inc/h%d.h", i)}
		for k := 1 + r.IntN(3); k > 0; k-- {
			d := &cDecl{kind: pick(r, "struct", "func", "macro", "enum", "typedef", "inline"), typ: pick(r, cTypes...)}
			d.name = name(map[string]string{"struct": "S", "func": "F", "macro": "M", "enum": "E", "typedef": "T", "inline": "I"}[d.kind])
			h.decls = append(h.decls, d)
			p.tags["c/"+d.kind] = true
		}
		for j := 0; j < i; j++ {
			if chance(r, 0.4) {
				h.includes = append(h.includes, fmt.Sprintf("h%d.h", j))
				p.tags["c/header-includes-header"] = true
			}
		}
		p.headers = append(p.headers, h)
	}
	if chance(r, 0.25) {
		p.colors = []string{"RED", "GREEN", "BLUE"}
		p.tags["c/xmacro"] = true
	}
	if chance(r, 0.2) {
		p.forced = name("FORCED_")
		p.tags["c/forced-include"] = true
	}
	if chance(r, 0.15) {
		p.define = true
		p.tags["c/command-line-define"] = true
	}
	p.search, p.forcing = []string{"-Iinc"}, []string{"-include", "inc/forced.h"}
	if chance(r, 0.4) {
		p.search = searchSpellings[r.IntN(len(searchSpellings))]
		p.tags["c/search-spelling"] = true
	}
	if p.forced != "" && chance(r, 0.4) {
		p.forcing = forcedSpellings[r.IntN(len(forcedSpellings))]
		p.tags["c/forced-spelling"] = true
	}
	if chance(r, 0.2) {
		p.alt = true
		p.tags["c/include-dirs"] = true
	}
	if chance(r, 0.2) {
		p.frag = "acc += 1;"
		p.tags["c/fragment"] = true
	}
	if (p.colors != nil || p.frag != "") && chance(r, 0.3) {
		p.byMacro = true
		p.tags["c/macro-include-fragment"] = true
	}
	for i, path := range []string{"main.c", "s1.c", "s2.c"}[:1+r.IntN(3)] {
		s := &cSource{path: path, bom: chance(r, 0.1)}
		if s.bom {
			p.tags["c/byte-order-mark"] = true
		}
		reached := map[*cHeader]bool{}
		for _, h := range p.headers {
			if !chance(r, 0.6) && !(i == 0 && h == p.headers[len(p.headers)-1]) {
				continue
			}
			s.lines = append(s.lines, p.includeLine(r, h, name))
			for _, inc := range p.closure(h) {
				reached[inc] = true
			}
		}
		for _, h := range p.headers {
			if !reached[h] {
				continue
			}
			if !slices.ContainsFunc(s.lines, func(l string) bool { return strings.Contains(l, strings.TrimPrefix(h.path, "inc/")) }) {
				p.tags["c/transitive-use"] = true
			}
			for _, d := range pickSome(r, h.decls) {
				s.uses = append(s.uses, cUse(d, name("u")))
				// A stale use: an error on disk before the edit
				// (ondisk.go); an enum's member has no type of its own.
				if d.kind != "enum" && stale.place(r) {
					wrong := &cDecl{kind: d.kind, name: d.name, typ: other(r, cTypes, d.typ)}
					s.uses = append(s.uses, cUse(wrong, name("e")))
					p.tags["c/error-on-disk"] = true
				}
			}
		}
		if len(p.colors) > 0 && chance(r, 0.7) {
			s.lines = append(s.lines, `#include "colors.h"`)
			s.uses = append(s.uses, fmt.Sprintf("int %s = COLOR_%s;", name("u"), pick(r, p.colors...)))
		}
		if p.forced != "" && chance(r, 0.7) {
			s.uses = append(s.uses, fmt.Sprintf("int %s = %s;", name("u"), p.forced))
		}
		if p.define && chance(r, 0.7) {
			s.uses = append(s.uses, fmt.Sprintf("int %s = WITH_K;", name("u")))
		}
		if p.alt && chance(r, 0.7) {
			s.lines = append(s.lines, "#include <alt.h>")
			s.uses = append(s.uses, fmt.Sprintf("int %s = ALT_K;", name("u")))
		}
		p.sources = append(p.sources, s)
	}
	if chance(r, 0.15) {
		// A source whose one include of main.c's last header is spelled
		// as only the preprocessor reads it, while main.c includes that
		// header plainly: a reading of raw lines sees the header's
		// includer there and none here.
		h := p.headers[len(p.headers)-1]
		s := &cSource{path: "hidden.c", lines: []string{p.spelled(r, fmt.Sprintf("#include %q", strings.TrimPrefix(h.path, "inc/")))}}
		for _, d := range h.decls {
			s.uses = append(s.uses, cUse(d, name("u")))
		}
		p.sources = append(p.sources, s)
		p.tags["c/hidden-include"] = true
	}
	before := p.render()
	edit := p.edit(r, before)
	if len(edit) == 0 {
		p.sources[0].uses = append(p.sources[0].uses, "/* edited */")
		p.tags["c/edit-comment"] = true
		edit = diffFiles(before, p.render(), nil)
	}
	return before, edit, slices.Sorted(mapKeys(p.tags))
}

// includeLine is how a source includes h: by quote or angle through -Iinc,
// by its path from the source's folder, or through a macro.
func (p *cProject) includeLine(r *rand.Rand, h *cHeader, name func(string) string) string {
	line := p.includeForm(r, h, name)
	if chance(r, 0.2) {
		line = p.spelled(r, line)
	}
	return line
}

// spelled returns line with its last #include spelled as the
// preprocessor reads it after phases 1–3: behind a comment, through a
// digraph, a trigraph (on under -std=c11) or a line splice.
func (p *cProject) spelled(r *rand.Rand, line string) string {
	p.tags["c/include-spelling"] = true
	at := strings.LastIndex(line, "#include")
	return line[:at] + pick(r, "/* the header */ #include", "%:include", "??=include", "# /* x */ include", "#inc\\\nlude") + line[at+len("#include"):]
}

// includeForm is how the line names h.
func (p *cProject) includeForm(r *rand.Rand, h *cHeader, name func(string) string) string {
	base := strings.TrimPrefix(h.path, "inc/")
	switch k := r.IntN(10); {
	case k < 4:
		return fmt.Sprintf("#include %q", base)
	case k < 6:
		p.tags["c/angle-include"] = true
		return fmt.Sprintf("#include <%s>", base)
	case k < 8:
		p.tags["c/path-include"] = true
		return fmt.Sprintf("#include %q", h.path)
	default:
		p.tags["c/macro-include"] = true
		m := name("HDR_")
		return fmt.Sprintf("#define %s %q\n#include %s", m, base, m)
	}
}

// closure is h and every header it includes, transitively.
func (p *cProject) closure(h *cHeader) []*cHeader {
	out := []*cHeader{h}
	for i := 0; i < len(out); i++ {
		for _, inc := range out[i].includes {
			for _, o := range p.headers {
				if strings.HasSuffix(o.path, "/"+inc) && !slices.Contains(out, o) {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// cUse is a statement that uses d as it is declared before the edit: the
// type it was declared with is the type its use expects.
func cUse(d *cDecl, u string) string {
	switch d.kind {
	case "struct":
		return fmt.Sprintf("struct %s %sv = {0}; %s %s = %sv.f;", d.name, u, d.typ, u, u)
	case "func", "inline":
		return fmt.Sprintf("%s %s = %s(1);", d.typ, u, d.name)
	case "macro":
		return fmt.Sprintf("%s %s = %s;", d.typ, u, d.name)
	case "enum":
		return fmt.Sprintf("int %s = %s;", u, d.ref())
	}
	return fmt.Sprintf("%s %s = %s;", d.name, u, cValues[d.typ])
}

func (p *cProject) edit(r *rand.Rand, before Files) Edit {
	decls, owner := declsOf(p.headers, func(h *cHeader) []*cDecl { return h.decls })
	d := decls[r.IntN(len(decls))]
	h := owner[d]
	after := func(change func(Files)) Edit {
		f := p.render()
		change(f)
		return diffFiles(before, f, nil)
	}
	switch k := r.IntN(20); {
	case k < 5 && d.kind != "enum":
		d.typ = other(r, cTypes, d.typ)
		p.tags["c/edit-retype"] = true
	case k < 7:
		d.gone = true
		p.tags["c/edit-rename"] = true
	case k < 8:
		p.tags["c/edit-delete-header"] = true
		return after(func(f Files) { delete(f, h.path) })
	case k < 9:
		p.box = "Crate"
		p.tags["c/edit-base"] = true
	case k < 11 && len(p.colors) > 0:
		i := r.IntN(len(p.colors))
		p.colors = slices.Delete(p.colors, i, i+1)
		p.tags["c/edit-def"] = true
	case k < 12 && p.frag != "":
		p.frag = pick(r, "acc += 2;", "acc += missing_k;")
		p.tags["c/edit-fragment"] = true
	case k < 13 && p.forced != "":
		p.forced += "X" // the uses keep the old name
		p.tags["c/edit-forced"] = true
	case k < 14 && p.alt:
		p.tags["c/edit-create-shadowing"] = true
		return after(func(f Files) { f["inc/alt.h"] = "#define ALT_OTHER 1\n" })
	case k < 15 && p.define:
		p.define = false
		p.tags["c/edit-compile-flags"] = true
	case k < 17 && (d.kind == "inline"):
		d.body += "\tx += 0;\n"
		p.tags["c/edit-body"] = true
	default:
		h.comment += "/* edited */\n"
		p.tags["c/edit-comment"] = true
	}
	return diffFiles(before, p.render(), nil)
}

func (p *cProject) render() Files {
	f := Files{}
	f["inc/base.h"] = fmt.Sprintf("#ifndef BASE_H\n#define BASE_H\nstruct %s { int v; };\n#endif\n", p.box)
	for _, h := range p.headers {
		f[h.path] = h.render()
	}
	if p.colors != nil {
		var def strings.Builder
		for _, c := range p.colors {
			fmt.Fprintf(&def, "X(%s)\n", c)
		}
		f["inc/colors.def"] = def.String()
		include := "#include \"colors.def\"\n"
		if p.byMacro {
			include = "#define COLOR_LIST \"colors.def\"\n#include COLOR_LIST\n"
		}
		f["inc/colors.h"] = "#ifndef COLORS_H\n#define COLORS_H\nenum color {\n#define X(n) COLOR_##n,\n" + include + "#undef X\n};\n#endif\n"
	}
	if p.forced != "" {
		f["inc/forced.h"] = fmt.Sprintf("#define %s 1\n", p.forced)
	}
	if p.alt {
		f["inc2/alt.h"] = "#define ALT_K 1\n"
	}
	if p.frag != "" {
		f["frag.inc"] = p.frag + "\n"
	}
	var db []map[string]any
	for _, s := range p.sources {
		var b strings.Builder
		if s.bom {
			b.WriteString("\ufeff")
		}
		for _, l := range s.lines {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(&b, "\nvoid use_%s(void) {\n", strings.TrimSuffix(s.path, ".c"))
		for _, u := range s.uses {
			b.WriteString("\t" + u + "\n")
		}
		b.WriteString("}\n")
		if p.frag != "" && s == p.sources[0] {
			include := "#include \"frag.inc\"\n"
			if p.byMacro {
				include = "#define FRAGMENT \"frag.inc\"\n#include FRAGMENT\n"
			}
			b.WriteString("\nint frag_use(void) {\n\tint acc = 0;\n" + include + "\treturn acc;\n}\n")
		}
		f[s.path] = b.String()
		args := append([]string{"cc", "-std=c11", "-Werror=implicit-function-declaration", "-Werror=int-conversion"}, p.search...)
		if p.alt {
			args = append(args, "-Iinc2")
		}
		if p.forced != "" {
			args = append(args, p.forcing...)
		}
		if p.define {
			args = append(args, "-DWITH_K=1")
		}
		args = append(args, "-c", s.path, "-o", strings.TrimSuffix(s.path, ".c")+".o")
		db = append(db, map[string]any{"directory": WorkspacePlaceholder + "/" + ProjectPlaceholder, "file": s.path, "arguments": args})
	}
	data, _ := json.MarshalIndent(db, "", "  ")
	f["compile_commands.json"] = string(data) + "\n"
	return f
}

func (h *cHeader) render() string {
	guard := strings.ToUpper(strings.NewReplacer("inc/", "", ".", "_").Replace(h.path))
	var b strings.Builder
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n#include \"base.h\"\n", guard, guard)
	for _, inc := range h.includes {
		fmt.Fprintf(&b, "#include %q\n", inc)
	}
	b.WriteString(h.comment)
	for _, d := range h.decls {
		name := d.name
		if d.gone {
			name += "X"
		}
		switch d.kind {
		case "struct":
			fmt.Fprintf(&b, "struct %s { %s f; };\n", name, d.typ)
		case "func":
			fmt.Fprintf(&b, "%s %s(int x);\n", d.typ, name)
		case "macro":
			fmt.Fprintf(&b, "#define %s %s\n", name, cValues[d.typ])
		case "enum":
			if d.gone {
				fmt.Fprintf(&b, "enum %s { %s_A };\n", d.name, d.name)
			} else {
				fmt.Fprintf(&b, "enum %s { %s_A, %s_B };\n", d.name, d.name, d.name)
			}
		case "typedef":
			fmt.Fprintf(&b, "typedef %s %s;\n", d.typ, name)
		case "inline":
			ret := "x"
			if d.typ != "int" {
				ret = "(struct Box){x}"
			}
			fmt.Fprintf(&b, "static inline %s %s(int x) {\n%s\treturn %s;\n}\n", d.typ, name, d.body, ret)
		}
	}
	b.WriteString("#endif\n")
	return b.String()
}
