package gatefuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Python projects: a package of modules read through absolute, relative,
// module and star imports, classes with attributes and methods, string
// annotations (forward references), stubs beside their sources, a
// script folder whose script imports its neighbour by bare name, and a
// nested pyright project (a folder with its own pyrightconfig.json, which
// reaches the package through its extraPaths) whose module imports it,
// and whose configuration an edit may change.

var pyTypes = []string{"int", "str", "bytes"}

var pyValues = map[string]string{"int": "1", "str": `"s"`, "bytes": `b"s"`}

type pyDecl struct {
	kind string // var func class
	name string
	typ  string
	// method is whether a class has its method; forward whether a
	// factory with a string annotation comes before it.
	method, forward bool
	body            string
}

type pyModule struct {
	path   string // "pkg/m0.py"
	decls  []*pyDecl
	header []string
	uses   []string
	// stub: a .pyi beside the module types it (pyright reads the stub).
	stub bool
}

type pyProject struct {
	mods []*pyModule
	tags map[string]bool
	// unparsed: a module that does not parse, laid out for the gate only.
	unparsed bool
	// nested: the project holds a nested pyright project (nestedDir).
	nested bool
}

// nestedDir is a project's nested pyright project: pyright run there
// reads its own configuration, which the truth takes for its files, as
// the gate does (Python.Errors).
const nestedDir = "sub"

// nestedConfig is the nested project's configuration: its execution root
// is its folder, and the package above it is on its path.
const nestedConfig = `{"typeCheckingMode": "standard", "extraPaths": [".."]}` + "\n"

// Python is Python checked by the pyright command line.
type Python struct {
	// Pyright runs the pyright command line (Anvil's tools).
	Pyright []string
	// Env is the environment pyright runs with (the execution policy's).
	Env []string
}

func (Python) Name() string { return "py" }

// Shared is the workspace's pyrightconfig.json: every project's folder is
// an execution root of its own, so that its `pkg` is its own.
func (Python) Shared(names []string) Files {
	var envs []map[string]string
	for _, n := range names {
		envs = append(envs, map[string]string{"root": n})
	}
	cfg, _ := json.Marshal(map[string]any{"typeCheckingMode": "standard", "executionEnvironments": envs})
	return Files{"pyrightconfig.json": string(cfg) + "\n"}
}

// Errors is pyright's run over the workspace, but for the files of a
// nested pyright project: those are what pyright run in that project
// says, with its own configuration, as the gate checks them.
func (l Python) Errors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	errs, err := pyrightErrors(ctx, l.Env, l.Pyright, dir)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		project := filepath.Join(dir, name, nestedDir)
		if _, err := os.Stat(filepath.Join(project, "pyrightconfig.json")); err != nil {
			continue
		}
		nested, err := pyrightErrors(ctx, l.Env, append(slices.Clone(l.Pyright), "-p", project), dir)
		if err != nil {
			return nil, fmt.Errorf("pyright in %s: %w", project, err)
		}
		inNested := func(e string) bool { return strings.HasPrefix(e, nestedDir+"/") }
		errs[name] = append(slices.DeleteFunc(errs[name], inNested), slices.DeleteFunc(nested[name], func(e string) bool { return !inNested(e) })...)
		if len(errs[name]) == 0 {
			delete(errs, name)
		}
	}
	return errs, nil
}

func (Python) Generate(r *rand.Rand, onDisk bool) (Files, Edit, []string) {
	p := &pyProject{tags: map[string]bool{}}
	stale := newStaleUse(r, onDisk)
	if onDisk && chance(r, 0.3) {
		// A module that does not parse, which nothing imports, for the
		// gate only (GateOnlyPrefix).
		p.unparsed = true
		p.tags["py/unparsed-file-on-disk"] = true
	}
	counter := 0
	name := func(prefix string) string { counter++; return fmt.Sprintf("%s%d", prefix, counter) }
	n := 2 + r.IntN(3)
	for i := 0; i < n; i++ {
		m := &pyModule{path: fmt.Sprintf("pkg/m%d.py", i)}
		if i < n-1 && chance(r, 0.2) {
			m.stub = true
			p.tags["py/stub"] = true
		}
		for k := 1 + r.IntN(3); k > 0; k-- {
			d := &pyDecl{kind: pick(r, "var", "func", "class"), typ: pick(r, pyTypes...)}
			d.name = name(map[string]string{"var": "X", "func": "f", "class": "K"}[d.kind])
			if d.kind == "class" {
				d.method = chance(r, 0.5)
				d.forward = chance(r, 0.4)
			}
			m.decls = append(m.decls, d)
		}
		p.mods = append(p.mods, m)
	}
	if chance(r, 0.2) {
		helper := &pyModule{path: "tools/helper.py", decls: []*pyDecl{{kind: "var", name: name("X"), typ: pick(r, pyTypes...)}}}
		main := &pyModule{path: "tools/main.py", header: []string{"from helper import " + helper.decls[0].name}}
		main.uses = pyUse(r, helper.decls[0], helper.decls[0].name, name("u"))
		p.mods = append(p.mods, helper, main)
		p.tags["py/script-folder"] = true
	}
	if chance(r, 0.15) {
		p.nested = true
		p.tags["py/nested-pyright-project"] = true
		app := &pyModule{path: nestedDir + "/app.py"}
		for i, src := range p.mods[:n] {
			if chance(r, 0.4) && (len(app.header) > 0 || i < n-1) {
				continue
			}
			mod := strings.TrimSuffix(strings.TrimPrefix(src.path, "pkg/"), ".py")
			var names []string
			for _, d := range pickSome(r, src.decls) {
				names = append(names, d.name)
				app.uses = append(app.uses, pyUse(r, d, d.name, name("u"))...)
			}
			app.header = append(app.header, fmt.Sprintf("from pkg.%s import %s", mod, strings.Join(names, ", ")))
		}
		p.mods = append(p.mods, app)
	}
	for i := 1; i < n; i++ {
		m := p.mods[i]
		for j := 0; j < i; j++ {
			src := p.mods[j]
			if chance(r, 0.3) {
				continue
			}
			mod := strings.TrimSuffix(strings.TrimPrefix(src.path, "pkg/"), ".py")
			used := pickSome(r, src.decls)
			switch form := r.IntN(10); {
			case form < 2:
				alias := name("a")
				m.header = append(m.header, fmt.Sprintf("import pkg.%s as %s", mod, alias))
				for _, d := range used {
					m.uses = append(m.uses, pyUse(r, d, alias+"."+d.name, name("u"))...)
					m.uses = append(m.uses, p.staleUse(r, stale, d, alias+"."+d.name, name)...)
				}
				p.tags["py/module-import"] = true
			case form < 3:
				m.header = append(m.header, fmt.Sprintf("from pkg.%s import *", mod))
				for _, d := range used {
					m.uses = append(m.uses, pyUse(r, d, d.name, name("u"))...)
				}
				p.tags["py/star-import"] = true
			default:
				from := "pkg." + mod
				if chance(r, 0.4) {
					from = "." + mod
					p.tags["py/relative-import"] = true
				}
				var names []string
				for _, d := range used {
					if d.forward && chance(r, 0.5) {
						// Only the factory: its string annotation is all
						// that ties the importer to the class.
						names = append(names, "make_"+d.name)
						m.uses = append(m.uses, fmt.Sprintf("%s: %s = make_%s().a", name("u"), d.typ, d.name))
						p.tags["py/string-annotation-only"] = true
						continue
					}
					names = append(names, d.name)
					if d.forward {
						names = append(names, "make_"+d.name)
					}
					m.uses = append(m.uses, pyUse(r, d, d.name, name("u"))...)
					m.uses = append(m.uses, p.staleUse(r, stale, d, d.name, name)...)
				}
				m.header = append(m.header, fmt.Sprintf("from %s import %s", from, strings.Join(names, ", ")))
			}
		}
	}
	for _, m := range p.mods {
		for _, d := range m.decls {
			p.tags["py/"+d.kind] = true
			if d.forward {
				p.tags["py/string-annotation"] = true
			}
		}
	}
	before := p.render()
	edit := p.edit(r, before)
	if len(edit) == 0 {
		p.mods[0].uses = append(p.mods[0].uses, "# edited")
		p.tags["py/edit-comment"] = true
		edit = diffFiles(before, p.render(), nil)
	}
	return before, edit, slices.Sorted(mapKeys(p.tags))
}

// staleUse is, where stale places it, a use of d written against a type d
// does not have: an error on disk before the edit (ondisk.go). Only
// variables and functions take one.
func (p *pyProject) staleUse(r *rand.Rand, stale *staleUse, d *pyDecl, ref string, name func(string) string) []string {
	if (d.kind != "var" && d.kind != "func") || !stale.place(r) {
		return nil
	}
	p.tags["py/error-on-disk"] = true
	return pyUse(r, &pyDecl{kind: d.kind, typ: other(r, pyTypes, d.typ)}, ref, name("e"))
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func pyUse(r *rand.Rand, d *pyDecl, ref, u string) []string {
	switch d.kind {
	case "var":
		return []string{fmt.Sprintf("%s: %s = %s", u, d.typ, ref)}
	case "func":
		return []string{fmt.Sprintf("%s: %s = %s(%s)", u, d.typ, ref, pyValues[d.typ])}
	}
	out := []string{fmt.Sprintf("%s: %s = %s().a", u, d.typ, ref)}
	if d.method && chance(r, 0.6) {
		out = append(out, fmt.Sprintf("%sm: %s = %s().m()", u, d.typ, ref))
	}
	if d.forward {
		mk := "make_" + d.name
		if i := strings.LastIndex(ref, "."); i >= 0 {
			mk = ref[:i+1] + mk
		}
		out = append(out, fmt.Sprintf("%sf: %s = %s().a", u, d.typ, mk))
	}
	return out
}

func (p *pyProject) render() Files {
	f := Files{"pkg/__init__.py": ""}
	for _, m := range p.mods {
		f[m.path] = m.render(false)
		if m.stub {
			f[strings.TrimSuffix(m.path, ".py")+".pyi"] = m.render(true)
		}
	}
	if p.unparsed {
		f["pkg/"+GateOnlyPrefix+"broken.py"] = "def broken(:\n    pass\n"
	}
	if p.nested {
		f[nestedDir+"/pyrightconfig.json"] = nestedConfig
	}
	return f
}

func (m *pyModule) render(stub bool) string {
	var b strings.Builder
	for _, h := range m.header {
		b.WriteString(h + "\n")
	}
	for _, d := range m.decls {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(renderPyDecl(d, stub))
	}
	if len(m.uses) > 0 {
		b.WriteString("\n\n")
		for _, u := range m.uses {
			b.WriteString(u + "\n")
		}
	}
	return b.String()
}

func renderPyDecl(d *pyDecl, stub bool) string {
	v := pyValues[d.typ]
	body := func(s string) string {
		if stub {
			return " ..."
		}
		return "\n" + d.body + "    " + s
	}
	switch d.kind {
	case "var":
		if stub {
			return fmt.Sprintf("%s: %s\n", d.name, d.typ)
		}
		return fmt.Sprintf("%s: %s = %s\n", d.name, d.typ, v)
	case "func":
		return fmt.Sprintf("def %s(x: %s) -> %s:%s\n", d.name, d.typ, d.typ, body("return x"))
	}
	var b strings.Builder
	if d.forward {
		fmt.Fprintf(&b, "def make_%s() -> \"%s\":%s\n\n\n", d.name, d.name, body(fmt.Sprintf("return %s()", d.name)))
	}
	fmt.Fprintf(&b, "class %s:\n", d.name)
	if stub {
		fmt.Fprintf(&b, "    a: %s\n", d.typ)
	} else {
		fmt.Fprintf(&b, "    a: %s = %s\n", d.typ, v)
	}
	if d.method {
		if stub {
			fmt.Fprintf(&b, "    def m(self) -> %s: ...\n", d.typ)
		} else {
			fmt.Fprintf(&b, "\n    def m(self) -> %s:\n        return self.a\n", d.typ)
		}
	}
	return b.String()
}

func (p *pyProject) edit(r *rand.Rand, before Files) Edit {
	decls, owner := declsOf(p.mods, func(m *pyModule) []*pyDecl { return m.decls })
	d := decls[r.IntN(len(decls))]
	if i := slices.IndexFunc(p.mods, func(m *pyModule) bool { return m.path == "tools/main.py" }); i > 0 && chance(r, 0.5) {
		d = p.mods[i-1].decls[0] // the script's neighbour
	}
	m := owner[d]
	after := func() Edit { return diffFiles(before, p.render(), nil) }
	switch k := r.IntN(14); {
	case p.nested && k < 2:
		// The nested project's own configuration: its execution root
		// dropped (its imports of the package no longer resolve), strict
		// checking, or a rule that changes nothing here.
		files := p.render()
		files[nestedDir+"/pyrightconfig.json"] = pick(r,
			`{"typeCheckingMode": "standard"}`+"\n",
			`{"typeCheckingMode": "strict", "extraPaths": [".."]}`+"\n",
			`{"typeCheckingMode": "standard", "extraPaths": [".."], "reportMissingModuleSource": "warning"}`+"\n")
		p.tags["py/edit-nested-config"] = true
		return diffFiles(before, files, nil)
	case k < 5:
		d.typ = other(r, pyTypes, d.typ)
		p.tags["py/edit-retype"] = true
		if m.stub && chance(r, 0.5) {
			// Only the source changes: the stub still says what importers see.
			files := p.render()
			stub := strings.TrimSuffix(m.path, ".py") + ".pyi"
			files[stub] = before[stub]
			p.tags["py/edit-source-behind-stub"] = true
			return diffFiles(before, files, nil)
		}
	case k < 6 && d.kind == "class":
		d.method = !d.method
		p.tags["py/edit-member"] = true
	case k < 7:
		d.name += "_renamed"
		p.tags["py/edit-rename-symbol"] = true
	case k < 9 && m.path != "tools/main.py":
		files := p.render()
		delete(files, m.path)
		delete(files, strings.TrimSuffix(m.path, ".py")+".pyi")
		if chance(r, 0.5) {
			files[strings.Replace(m.path, "/m", "/moved_m", 1)] = before[m.path]
			p.tags["py/edit-rename-file"] = true
		} else {
			p.tags["py/edit-delete"] = true
		}
		return diffFiles(before, files, nil)
	case k < 10 && !m.stub && strings.HasPrefix(m.path, "pkg/"):
		// A stub created beside the source takes over what importers see.
		files := p.render()
		m.stub = true
		for _, o := range m.decls {
			o.typ = other(r, pyTypes, o.typ)
		}
		files[strings.TrimSuffix(m.path, ".py")+".pyi"] = m.render(true)
		p.tags["py/edit-create-stub"] = true
		return diffFiles(before, files, nil)
	case k < 12 && (d.kind == "func" || d.forward):
		d.body += "    pass\n"
		p.tags["py/edit-body"] = true
	default:
		m.uses = append(m.uses, "# edited")
		p.tags["py/edit-comment"] = true
	}
	return after()
}
