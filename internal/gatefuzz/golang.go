package gatefuzz

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Go projects: packages of one module importing each other, constants,
// variables, functions, generic functions, structs with fields and
// methods, interfaces with an implementation asserted by an importer,
// embedded files (`//go:embed`) and files behind build constraints. A
// project's import paths name its folder through the placeholder @P@,
// which the layout replaces: a project does not know its folder when it is
// generated. A quarter of the projects are a module of their own, nested
// in the workspace's (its go.mod at the project's root, as golang/tools
// holds gopls): their edits may lower the go directive below what the
// code needs, or rename the module under its own imports.

// ProjectPlaceholder in a project's files is replaced by the project's
// folder when it is laid out.
const ProjectPlaceholder = "@P@"

// WorkspacePlaceholder in a project's files is replaced by the absolute
// folder of the workspace it is laid out in (a compile database's
// directories are absolute).
const WorkspacePlaceholder = "@W@"

var goTypes = []string{"int", "string", "bool"}

var goValues = map[string]string{"int": "1", "string": `"s"`, "bool": "true"}

type goDecl struct {
	kind     string // const var func generic struct iface
	name     string
	typ      string
	method   bool // a struct's method M, and the interface's
	exported bool
	body     string
}

type goPkg struct {
	name    string
	decls   []*goDecl
	imports []string
	uses    []string
	embed   bool   // data.txt embedded as a string
	tagged  string // a declaration in a file behind //go:build linux
}

// Go is Go checked by go build and go vet.
type Go struct {
	// Env is the environment go runs with (the execution policy's Env:
	// the go command needs its caches and homes); the module proxy is
	// turned off on top of it.
	Env []string
}

func (Go) Name() string { return "go" }

// Shared is the workspace's module: every project is a tree of its
// packages.
func (Go) Shared(names []string) Files {
	return Files{"go.mod": "module example.com/fuzz\n\ngo 1.22\n"}
}

func (l Go) Errors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	return goErrors(ctx, l.Env, dir, names)
}

func (Go) Generate(r *rand.Rand, onDisk bool) (Files, Edit, []string) {
	tags := map[string]bool{}
	stale := newStaleUse(r, onDisk)
	// A package of a file that does not parse, which nothing imports,
	// for the gate only (GateOnlyPrefix): go vet, which checks what
	// gopls reads only from disk, says nothing of importers of a package
	// that does not compile, and the gate must not take that for clean.
	unparsed := onDisk && chance(r, 0.3)
	if unparsed {
		tags["go/unparsed-file-on-disk"] = true
	}
	module := ""
	if chance(r, 0.25) {
		module = goModule("example.com/fuzz/"+ProjectPlaceholder, "1.22")
		tags["go/own-module"] = true
	}
	counter := 0
	name := func(prefix string) string { counter++; return fmt.Sprintf("%s%d", prefix, counter) }
	var pkgs []*goPkg
	n := 2 + r.IntN(2)
	for i := 0; i < n; i++ {
		p := &goPkg{name: fmt.Sprintf("p%d", i)}
		for k := 1 + r.IntN(3); k > 0; k-- {
			d := &goDecl{kind: pick(r, "const", "var", "func", "generic", "struct", "iface"), typ: pick(r, goTypes...), exported: true}
			d.name = name(map[string]string{"const": "C", "var": "V", "func": "F", "generic": "G", "struct": "S", "iface": "I"}[d.kind])
			d.method = d.kind == "iface" || (d.kind == "struct" && chance(r, 0.5))
			p.decls = append(p.decls, d)
			tags["go/"+d.kind] = true
		}
		if i < n-1 && chance(r, 0.2) {
			p.embed = true
			tags["go/embed"] = true
		}
		if i < n-1 && chance(r, 0.2) {
			p.tagged = name("L")
			tags["go/build-tag"] = true
		}
		pkgs = append(pkgs, p)
	}
	for i := 1; i < n; i++ {
		p := pkgs[i]
		for j := 0; j < i; j++ {
			src := pkgs[j]
			if chance(r, 0.3) {
				continue
			}
			p.imports = append(p.imports, fmt.Sprintf("%q", "example.com/fuzz/"+ProjectPlaceholder+"/"+src.name))
			for _, d := range pickSome(r, src.decls) {
				p.uses = append(p.uses, goUse(d, src.name+"."+d.name, name("u")))
				// Only the last package, which nothing imports: go build
				// and go vet compile no importer of a package that does
				// not, which would hide the edit's errors there from the
				// truth.
				if i == n-1 && d.kind != "generic" && d.kind != "iface" && stale.place(r) {
					wrong := &goDecl{kind: d.kind, typ: other(r, goTypes, d.typ), method: d.method}
					p.uses = append(p.uses, goUse(wrong, src.name+"."+d.name, name("e")))
					tags["go/error-on-disk"] = true
				}
			}
			if src.embed {
				p.uses = append(p.uses, fmt.Sprintf("var %s string = %s.Data", name("u"), src.name))
			}
			if src.tagged != "" {
				p.uses = append(p.uses, fmt.Sprintf("var %s int = %s.%s", name("u"), src.name, src.tagged))
			}
		}
	}
	render := func() Files {
		f := Files{}
		for _, p := range pkgs {
			f[p.name+"/"+p.name+".go"] = p.render()
			if p.embed {
				f[p.name+"/embed.go"] = fmt.Sprintf("package %s\n\nimport _ \"embed\"\n\n//go:embed data.txt\nvar Data string\n", p.name)
				f[p.name+"/data.txt"] = "data\n"
			}
			if p.tagged != "" {
				f[p.name+"/linux.go"] = fmt.Sprintf("//go:build linux\n\npackage %s\n\nvar %s int = 1\n", p.name, p.tagged)
			}
		}
		if unparsed {
			f["zbroken/"+GateOnlyPrefix+"broken.go"] = "package zbroken\n\nfunc broken( {\n}\n"
		}
		if module != "" {
			f["go.mod"] = module
		}
		return f
	}
	before := render()
	decls, owner := declsOf(pkgs, func(p *goPkg) []*goDecl { return p.decls })
	d := decls[r.IntN(len(decls))]
	p := owner[d]
	var edit Edit
	switch k := r.IntN(14); {
	case module != "" && k < 3:
		// The project's own go.mod: a go directive too old for generic
		// functions (go1.18), a module renamed under its own imports,
		// or a comment.
		after := render()
		switch r.IntN(3) {
		case 0:
			after["go.mod"] = goModule("example.com/fuzz/"+ProjectPlaceholder, "1.17")
			tags["go/edit-go-version"] = true
		case 1:
			after["go.mod"] = goModule("example.com/fuzz/"+ProjectPlaceholder+"/v2", "1.22")
			tags["go/edit-module-path"] = true
		default:
			after["go.mod"] += "// edited\n"
			tags["go/edit-gomod-comment"] = true
		}
		edit = diffFiles(before, after, nil)
	case k < 5:
		d.typ = other(r, goTypes, d.typ)
		tags["go/edit-retype"] = true
	case k < 6 && d.kind == "struct":
		d.method = !d.method
		tags["go/edit-member"] = true
	case k < 7:
		d.exported = false
		tags["go/edit-unexport"] = true
	case k < 8 && p.embed:
		after := render()
		delete(after, p.name+"/data.txt")
		edit = diffFiles(before, after, nil)
		tags["go/edit-delete-embedded"] = true
	case k < 9 && p.tagged != "":
		after := render()
		after[p.name+"/linux.go"] = strings.Replace(after[p.name+"/linux.go"], "linux", "windows", 1)
		edit = diffFiles(before, after, nil)
		tags["go/edit-build-tag"] = true
	case k < 10:
		after := render()
		delete(after, p.name+"/"+p.name+".go")
		edit = diffFiles(before, after, nil)
		tags["go/edit-delete"] = true
	case k < 12 && (d.kind == "func" || d.kind == "generic"):
		d.body += "\t_ = 0\n"
		tags["go/edit-body"] = true
	default:
		p.uses = append(p.uses, "// edited")
		tags["go/edit-comment"] = true
	}
	if edit == nil {
		edit = diffFiles(before, render(), nil)
	}
	if len(edit) == 0 {
		pkgs[0].uses = append(pkgs[0].uses, "// edited")
		tags["go/edit-comment"] = true
		edit = diffFiles(before, render(), nil)
	}
	return before, edit, slices.Sorted(mapKeys(tags))
}

// goModule is a go.mod of module path at go version.
func goModule(path, version string) string {
	return "module " + path + "\n\ngo " + version + "\n"
}

func goUse(d *goDecl, ref, u string) string {
	switch d.kind {
	case "const", "var":
		return fmt.Sprintf("var %s %s = %s", u, d.typ, ref)
	case "func", "generic":
		return fmt.Sprintf("var %s %s = %s(%s)", u, d.typ, ref, goValues[d.typ])
	case "struct":
		if d.method {
			return fmt.Sprintf("var %s %s = %s{}.M()", u, d.typ, ref)
		}
		return fmt.Sprintf("var %s %s = %s{}.F", u, d.typ, ref)
	}
	return fmt.Sprintf("var %s %s = %sImpl{}.M()\n\ntype %sImpl struct{}\n\nfunc (%sImpl) M() %s { return %s }\n\nvar _ %s = %sImpl{}",
		u, d.typ, u, u, u, d.typ, goValues[d.typ], ref, u)
}

func (p *goPkg) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", p.name)
	if len(p.imports) > 0 {
		fmt.Fprintf(&b, "import (\n\t%s\n)\n\n", strings.Join(p.imports, "\n\t"))
	}
	for _, d := range p.decls {
		name := d.name
		if !d.exported {
			name = strings.ToLower(name[:1]) + name[1:]
		}
		v := goValues[d.typ]
		switch d.kind {
		case "const":
			fmt.Fprintf(&b, "const %s %s = %s\n\n", name, d.typ, v)
		case "var":
			fmt.Fprintf(&b, "var %s %s = %s\n\n", name, d.typ, v)
		case "func":
			fmt.Fprintf(&b, "func %s(x %s) %s {\n%s\treturn x\n}\n\n", name, d.typ, d.typ, d.body)
		case "generic":
			fmt.Fprintf(&b, "func %s[T %s](x T) T {\n%s\treturn x\n}\n\n", name, d.typ, d.body)
		case "struct":
			fmt.Fprintf(&b, "type %s struct {\n\tF %s\n}\n\n", name, d.typ)
			if d.method {
				fmt.Fprintf(&b, "func (s %s) M() %s { return s.F }\n\n", name, d.typ)
			}
		case "iface":
			fmt.Fprintf(&b, "type %s interface {\n\tM() %s\n}\n\n", name, d.typ)
		}
	}
	for _, u := range p.uses {
		b.WriteString(u + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
