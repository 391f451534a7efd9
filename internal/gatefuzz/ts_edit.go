package gatefuzz

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// edit makes one random change to the project and returns it against
// before, the project as rendered.
func (p *tsProject) edit(r *rand.Rand, before Files) Edit {
	decls, owner := declsOf(p.mods, func(m *tsModule) []*tsDecl { return m.decls })
	if p.installed != nil && chance(r, 0.5) {
		// The script's global retyped, against the installed
		// package's declaration of it.
		for _, d := range decls {
			if d.kind == "global" && d.name == p.installed.name {
				d.typ = other(r, tsTypes, d.typ)
				p.tag("ts/edit-retype")
				p.tag("ts/edit-installed-global")
				return diffFiles(before, p.render(), nil)
			}
		}
	}
	d := decls[r.IntN(len(decls))]
	m := owner[d]
	var deleted []string
	switch k := r.IntN(20); {
	case (k < 3 || k == 16) && p.suffixes:
		// A file created beside another that takes over its name (a
		// fifth of the edits where moduleSuffixes make one possible).
		for _, o := range p.mods {
			if strings.HasSuffix(o.path, ".ts") && !strings.HasSuffix(o.path, ".ios.ts") && !o.script && len(o.exports) > 0 && o.path != "src/data_use.ts" {
				shadow := *o
				shadow.path = strings.TrimSuffix(o.path, ".ts") + ".ios.ts"
				shadow.decls = nil
				for _, od := range o.decls {
					c := *od
					c.typ = other(r, tsTypes, c.typ)
					shadow.decls = append(shadow.decls, &c)
				}
				p.mods = append(p.mods, &shadow)
				p.tag("ts/edit-create-shadowing")
				break
			}
		}
	case k < 6:
		d.typ = other(r, tsTypes, d.typ)
		if d.kind == "overload" {
			d.overloads[r.IntN(len(d.overloads))] = pick(r, "boolean", "bigint")
		}
		p.tag("ts/edit-retype")
	case k < 8 && d.kind == "class" && !m.js:
		d.mod = other(r, []string{"", "public ", "private ", "protected ", "readonly ", "static "}, d.mod)
		p.tag("ts/edit-modifier")
		if d.mod != "" {
			p.tag("ts/member-" + strings.TrimSpace(d.mod))
		}
	case k < 8 && (d.kind == "iface" || d.kind == "enum"):
		if d.members > 0 && chance(r, 0.5) {
			d.members--
		} else {
			d.members++
		}
		p.tag("ts/edit-member")
	case k < 8 && d.kind == "enum":
		d.constEnum = !d.constEnum
		p.tag("ts/edit-const-enum")
	case k < 10 && !m.js && !m.script:
		if d.exported == 1 && chance(r, 0.6) {
			d.exported = 2
			p.tag("ts/edit-type-only-export")
		} else {
			d.exported = 0
			p.tag("ts/edit-unexport")
		}
	case k < 11 && d.kind == "overload":
		d.overloads = d.overloads[1:]
		p.tag("ts/edit-overload")
	case k < 13 && !m.script && m.path != "src/data_use.ts":
		deleted = append(deleted, m.path)
		if chance(r, 0.5) {
			// A rename: importers still name the old path.
			m.path = strings.Replace(m.path, "/m", "/moved_m", 1)
			p.tag("ts/edit-rename")
		} else {
			p.mods = removeModule(p.mods, m)
			p.tag("ts/edit-delete")
		}
	case k < 15:
		// Controls: a body-only or comment-only edit.
		if d.kind == "func" || d.kind == "generic" || d.kind == "loose" || d.kind == "overload" {
			d.body += "  void 0;\n"
			p.tag("ts/edit-body")
		} else {
			m.uses = append(m.uses, "// edited")
			p.tag("ts/edit-comment")
		}
	case k < 16:
		p.strict = !p.strict
		p.tag("ts/edit-config-strict")
	case k < 18 && p.json:
		after := p.render()
		after["src/data.json"] = `{"n": "s"}` + "\n"
		p.tag("ts/edit-data")
		return diffFiles(before, after, nil)
	default:
		// A new file nobody imports.
		p.mods = append(p.mods, &tsModule{path: "src/extra.ts", decls: []*tsDecl{{kind: "const", name: "extra", typ: "number", exported: 1}}})
		p.tag("ts/edit-create")
	}
	return diffFiles(before, p.render(), deleted)
}

func removeModule(mods []*tsModule, m *tsModule) []*tsModule {
	var out []*tsModule
	for _, o := range mods {
		if o != m {
			out = append(out, o)
		}
	}
	return out
}

func other(r *rand.Rand, xs []string, cur string) string {
	for {
		if x := xs[r.IntN(len(xs))]; x != cur {
			return x
		}
	}
}

// diffFiles is the edit that turns before into after: changed and created
// files, and deleted ones (those named, and those after lacks).
func diffFiles(before, after Files, deleted []string) Edit {
	e := Edit{}
	for p, c := range after {
		if before[p] != c {
			e[p] = ptr(c)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			e[p] = nil
		}
	}
	for _, p := range deleted {
		if _, ok := after[p]; !ok {
			e[p] = nil
		}
	}
	return e
}

var _ = fmt.Sprintf
