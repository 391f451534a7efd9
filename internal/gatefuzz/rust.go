package gatefuzz

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/lsp"
)

// Rust projects: a library crate of modules (constants, functions,
// generic functions, structs, traits, enums, a module's use of another's
// items, re-exports), an input of include! and one of include_str!, an
// item behind a default feature; and a second crate that depends on the
// first by path and uses its items, implementing its traits. Both are
// members of the workspace's one Cargo workspace; a crate's package name
// carries its project's name. Besides the items, an edit may create a
// module, set the dependent crate's lint levels in its manifest, or move
// the library to another edition.

var rustTypes = []string{"i32", "bool"}

var rustValues = map[string]string{"i32": "1", "bool": "true"}

type rustDecl struct {
	kind    string // const fn generic struct trait enum
	name    string
	typ     string
	private bool
	gone    bool // an enum's used variant dropped
	body    string
}

type rustModule struct {
	name    string // "m0"
	decls   []*rustDecl
	uses    []string // statements of its use function
	comment string
}

type rustProject struct {
	mods    []*rustModule
	reexp   *rustDecl // re-exported from the crate's root by `pub use`
	include string    // src/k.in's expression ("" when none)
	text    bool      // src/t.txt, read by include_str!
	feature bool      // the feature is on by default
	featFn  bool      // an item behind the feature
	app     []string  // the dependent crate's statements
	impls   []string  // the dependent crate's items
	lints   string    // the dependent crate's [lints] table
	edition string    // the library crate's edition ("" for 2021)
	created bool      // a module the edit creates, declared and used
	tags    map[string]bool
}

// Rust is Rust checked by cargo check.
type Rust struct {
	// Env is the environment cargo runs with (the execution policy's,
	// with cargo's and rustup's homes).
	Env []string
}

func (Rust) Name() string { return "rust" }

// Shared is the workspace's Cargo.toml: every project's two crates are
// members.
func (Rust) Shared(names []string) Files {
	var members []string
	for _, n := range names {
		members = append(members, fmt.Sprintf("%q, %q", n+"/base", n+"/app"))
	}
	return Files{"Cargo.toml": "[workspace]\nresolver = \"2\"\nmembers = [" + strings.Join(members, ", ") + "]\n"}
}

// Errors runs cargo check over every project's two crates. A cargo that
// has --keep-going (1.74 on) checks the whole workspace in one run: it
// goes on past a failing crate and builds every unit that does not
// depend on it. An older one stops at the first failing crate, so each
// project is checked apart, so that a failure stops no other project's
// check. Either way a project's dependent crate is not checked when its
// base fails, and the project's errors are then the base's. One target
// directory keeps the runs incremental.
func (l Rust) Errors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	return l.errors(ctx, dir, names, cargoKeepsGoing(ctx, l.env(dir), dir))
}

func (l Rust) env(dir string) []string {
	return append(slices.Clone(l.Env), "CARGO_TARGET_DIR="+filepath.Join(dir, "target"), "CARGO_TERM_COLOR=never")
}

// errors is Errors in one run (keepGoing) or a run per project.
func (l Rust) errors(ctx context.Context, dir string, names []string, keepGoing bool) (map[string][]string, error) {
	env := l.env(dir)
	check := []string{"check", "--all-targets", "--message-format=json", "--offline", "--quiet"}
	runs := [][]string{append(slices.Clone(check), "--workspace", "--keep-going")}
	if !keepGoing {
		runs = nil
		for _, n := range names {
			runs = append(runs, append(slices.Clone(check), "-p", n+"_base", "-p", n+"_app"))
		}
	}
	files := map[string][]lsp.Diagnostic{}
	for _, args := range runs {
		exit, out, err := run(ctx, env, dir, "cargo", args...)
		if err != nil {
			return nil, err
		}
		rep, err := diagformat.Parse(diagformat.RustcJSON, diagformat.Input{Root: dir, Exit: exit, Output: out})
		if err != nil {
			return nil, fmt.Errorf("cargo %s: %w", strings.Join(args, " "), err)
		}
		// (rustc's count of a failing crate's errors, which older cargo
		// passes on as an error of no file, diagformat drops.)
		for p, ds := range rep.Files {
			files[p] = append(files[p], ds...)
		}
	}
	return byProject(dir, files)
}

// cargoKeepsGoing reports whether cargo's version is 1.74 or later,
// where check's --keep-going is stable.
func cargoKeepsGoing(ctx context.Context, env []string, dir string) bool {
	_, out, err := run(ctx, env, dir, "cargo", "--version")
	if err != nil {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(string(out), "cargo %d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 1 || minor >= 74
}

// Generate never writes an error on disk (ondisk.go): cargo compiles no
// crate that depends on one that failed and stops scheduling others, so
// the gate's cargo run over the fuzzer's one workspace would be
// incomplete for every project of the round, each edit unverified.
func (Rust) Generate(r *rand.Rand, _ bool) (Files, Edit, []string) {
	p := &rustProject{tags: map[string]bool{}}
	counter := 0
	name := func(prefix string) string { counter++; return fmt.Sprintf("%s%d", prefix, counter) }
	n := 1 + r.IntN(3)
	for i := 0; i < n; i++ {
		m := &rustModule{name: fmt.Sprintf("m%d", i)}
		for k := 1 + r.IntN(3); k > 0; k-- {
			d := &rustDecl{kind: pick(r, "const", "fn", "generic", "struct", "trait", "enum"), typ: pick(r, rustTypes...)}
			d.name = name(map[string]string{"const": "C", "fn": "f", "generic": "g", "struct": "S", "trait": "R", "enum": "E"}[d.kind])
			m.decls = append(m.decls, d)
			p.tags["rust/"+d.kind] = true
		}
		p.mods = append(p.mods, m)
	}
	// A module uses the items of the modules before it, within the crate.
	for i := 1; i < n; i++ {
		for _, d := range pickSome(r, p.mods[i-1].decls) {
			if d.kind != "trait" && chance(r, 0.5) {
				p.mods[i].uses = append(p.mods[i].uses, rustUse(d, "crate::"+p.mods[i-1].name+"::"+d.name, name("v")))
				p.tags["rust/within-crate"] = true
			}
		}
	}
	if chance(r, 0.25) {
		p.include = "4"
		p.app = append(p.app, fmt.Sprintf("let %s: i32 = @P@_base::K;", name("v")))
		p.tags["rust/include"] = true
	}
	if chance(r, 0.2) {
		p.text = true
		p.app = append(p.app, fmt.Sprintf("let %s: &str = @P@_base::TXT;", name("v")))
		p.tags["rust/include-str"] = true
	}
	if chance(r, 0.2) {
		p.feature, p.featFn = true, true
		p.app = append(p.app, fmt.Sprintf("let %s: i32 = @P@_base::extra();", name("v")))
		p.tags["rust/feature"] = true
	}
	for _, m := range p.mods {
		for _, d := range pickSome(r, m.decls) {
			path := "@P@_base::" + m.name + "::" + d.name
			if p.reexp == nil && chance(r, 0.2) {
				p.reexp = d
				path = "@P@_base::" + d.name
				p.tags["rust/reexport"] = true
			}
			if d.kind == "trait" {
				impl := name("Impl")
				p.impls = append(p.impls, fmt.Sprintf("pub struct %s;\n\nimpl %s for %s {\n    fn m(&self) -> %s {\n        %s\n    }\n}", impl, path, impl, d.typ, rustValues[d.typ]))
				continue
			}
			p.app = append(p.app, rustUse(d, path, name("v")))
		}
	}
	before := p.render()
	edit := p.edit(r, before)
	if len(edit) == 0 {
		p.mods[0].comment += "// edited\n"
		p.tags["rust/edit-comment"] = true
		edit = diffFiles(before, p.render(), nil)
	}
	return before, edit, slices.Sorted(mapKeys(p.tags))
}

// rustUse is a statement that uses d as it is declared before the edit.
func rustUse(d *rustDecl, path, u string) string {
	v := rustValues[d.typ]
	switch d.kind {
	case "const":
		return fmt.Sprintf("let %s: %s = %s;", u, d.typ, path)
	case "fn":
		return fmt.Sprintf("let %s: %s = %s(%s);", u, d.typ, path, v)
	case "generic":
		return fmt.Sprintf("let %s: %s = %s(0u8);", u, d.typ, path)
	case "struct":
		return fmt.Sprintf("let %s: %s = %s { f: %s }.f;", u, d.typ, path, v)
	case "enum":
		return fmt.Sprintf("let %s = %s::B;", u, path)
	}
	return ""
}

func (p *rustProject) edit(r *rand.Rand, before Files) Edit {
	decls, owner := declsOf(p.mods, func(m *rustModule) []*rustDecl { return m.decls })
	d := decls[r.IntN(len(decls))]
	m := owner[d]
	switch k := r.IntN(20); {
	case k < 5 && d.kind != "enum":
		d.typ = other(r, rustTypes, d.typ)
		p.tags["rust/edit-retype"] = true
	case k < 7:
		d.private = true
		p.tags["rust/edit-private"] = true
	case k < 8 && d.kind == "enum":
		d.gone = true
		p.tags["rust/edit-variant"] = true
	case k < 9:
		f := p.render()
		delete(f, "base/src/"+m.name+".rs")
		p.tags["rust/edit-delete-module"] = true
		return diffFiles(before, f, nil)
	case k < 11 && p.include != "":
		p.include = pick(r, `"four"`, "5")
		p.tags["rust/edit-include"] = true
	case k < 12 && p.text:
		f := p.render()
		if chance(r, 0.5) {
			delete(f, "base/src/t.txt")
		} else {
			f["base/src/t.txt"] = "other text\n"
		}
		p.tags["rust/edit-include-str"] = true
		return diffFiles(before, f, nil)
	case k < 13 && p.featFn:
		p.feature = false
		p.tags["rust/edit-feature"] = true
	case k < 16 && (d.kind == "fn" || d.kind == "generic"):
		d.body += "        let _ = 0;\n"
		p.tags["rust/edit-body"] = true
	case k == 16:
		// A module created, declared, and used by the dependent crate.
		p.created = true
		p.app = append(p.app, "let created: i32 = @P@_base::made::made();")
		p.tags["rust/edit-create-module"] = true
	case k == 17:
		// The manifest's lint levels (cargo 1.74 on): a forbidden lint
		// the crate's own #![allow] then contradicts (E0453), or one
		// that changes nothing.
		p.lints = pick(r, "[lints.rust]\nunused_variables = \"forbid\"\n", "[lints.rust]\nunsafe_code = \"forbid\"\n")
		p.tags["rust/edit-lints"] = true
	case k == 18:
		p.edition = "2018"
		p.tags["rust/edit-edition"] = true
	default:
		m.comment += "// edited\n"
		p.tags["rust/edit-comment"] = true
	}
	return diffFiles(before, p.render(), nil)
}

func (p *rustProject) render() Files {
	f := Files{}
	features := "[features]\nextra = []\n"
	if p.feature {
		features = "[features]\ndefault = [\"extra\"]\nextra = []\n"
	}
	edition := p.edition
	if edition == "" {
		edition = "2021"
	}
	f["base/Cargo.toml"] = "[package]\nname = \"@P@_base\"\nversion = \"0.1.0\"\nedition = \"" + edition + "\"\n\n" + features
	f["app/Cargo.toml"] = "[package]\nname = \"@P@_app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n@P@_base = { path = \"../base\" }\n"
	if p.lints != "" {
		f["app/Cargo.toml"] += "\n" + p.lints
	}
	var lib strings.Builder
	lib.WriteString("#![allow(dead_code, unused_variables)]\n\n")
	for _, m := range p.mods {
		fmt.Fprintf(&lib, "pub mod %s;\n", m.name)
		f["base/src/"+m.name+".rs"] = m.render()
	}
	if p.created {
		lib.WriteString("pub mod made;\n")
		f["base/src/made.rs"] = "pub fn made() -> i32 {\n    1\n}\n"
	}
	if d := p.reexp; d != nil {
		for _, m := range p.mods {
			if slices.Contains(m.decls, d) {
				fmt.Fprintf(&lib, "pub use %s::%s;\n", m.name, d.name)
			}
		}
	}
	if p.include != "" {
		lib.WriteString("\npub const K: i32 = include!(\"k.in\");\n")
		f["base/src/k.in"] = p.include + "\n"
	}
	if p.text {
		lib.WriteString("\npub const TXT: &str = include_str!(\"t.txt\");\n")
		f["base/src/t.txt"] = "some text\n"
	}
	if p.featFn {
		lib.WriteString("\n#[cfg(feature = \"extra\")]\npub fn extra() -> i32 {\n    1\n}\n")
	}
	f["base/src/lib.rs"] = lib.String()
	var app strings.Builder
	app.WriteString("#![allow(dead_code, unused_variables)]\n\npub fn use_all() {\n")
	for _, s := range p.app {
		app.WriteString("    " + s + "\n")
	}
	app.WriteString("}\n")
	for _, s := range p.impls {
		app.WriteString("\n" + s + "\n")
	}
	f["app/src/lib.rs"] = app.String()
	return f
}

func (m *rustModule) render() string {
	var b strings.Builder
	b.WriteString(m.comment)
	for _, d := range m.decls {
		vis := "pub "
		if d.private {
			vis = ""
		}
		v := rustValues[d.typ]
		switch d.kind {
		case "const":
			fmt.Fprintf(&b, "%sconst %s: %s = %s;\n\n", vis, d.name, d.typ, v)
		case "fn":
			fmt.Fprintf(&b, "%sfn %s(x: %s) -> %s {\n%s        x\n}\n\n", vis, d.name, d.typ, d.typ, d.body)
		case "generic":
			fmt.Fprintf(&b, "%sfn %s<X>(_x: X) -> %s {\n%s        %s\n}\n\n", vis, d.name, d.typ, d.body, v)
		case "struct":
			fmt.Fprintf(&b, "%sstruct %s {\n    pub f: %s,\n}\n\n", vis, d.name, d.typ)
		case "trait":
			fmt.Fprintf(&b, "%strait %s {\n    fn m(&self) -> %s;\n}\n\n", vis, d.name, d.typ)
		case "enum":
			if d.gone {
				fmt.Fprintf(&b, "%senum %s {\n    A,\n}\n\n", vis, d.name)
			} else {
				fmt.Fprintf(&b, "%senum %s {\n    A,\n    B,\n}\n\n", vis, d.name)
			}
		}
	}
	if len(m.uses) > 0 {
		b.WriteString("pub fn use_all() {\n")
		for _, u := range m.uses {
			b.WriteString("    " + u + "\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}
