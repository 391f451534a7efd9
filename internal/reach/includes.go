package reach

import (
	"maps"
	"slices"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/syntax"
)

// C and C++ dependants follow #include, resolved as the compiler would
// (compiledb.Resolver). An include that names no file anywhere (or a
// macro) is untraceable, and its file depends on every C/C++ change.

// cExts are the extensions of the C/C++ family: sources, headers, and the
// fragments projects include (.inc, template implementations).
var cExts = map[string]bool{".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true,
	".hpp": true, ".hh": true, ".hxx": true, ".h++": true, ".inc": true, ".ipp": true, ".tpp": true, ".tcc": true}

// cSurface is a C/C++ file's surface for the graph: its includes, each
// "x.h" or <x.h> with its delimiters, or the directive's text when it
// names no file (a macro). It is opaque: a header's every change reaches
// every includer, there is no cut-off.
func cSurface(src []byte) *syntax.Surface {
	s := &syntax.Surface{Opaque: "C and C++ includes are followed whole"}
	for _, spec := range compiledb.IncludeSpecs(src) {
		s.Imports = append(s.Imports, syntax.Binding{Module: spec, Name: "*", Whole: true})
	}
	return s
}

// IncludedChanged returns the changed files (workspace-relative) that the
// unit rel reads, directly or not, with the change applied: the
// includes res resolves and the files it forces in (-include), read from
// read (the changed text, else the disk's), and what the compilers'
// record says rel reads (recorded). An include on the way that names no
// file (a macro's), or a response file of rel's command that Anvil does
// not read (ForcesUnknown), may name any of them: then it returns every
// changed file but rel — the same rule as a header nothing is seen to
// include, which reaches every C/C++ file (untracedHeader).
func IncludedChanged(res *compiledb.Resolver, rel string, changed map[string]*changeset.Change, read func(rel string) []byte, recorded []string) []string {
	var out []string
	untraced := res.ForcesUnknown(rel)
	seen := map[string]bool{rel: true}
	queue := []string{rel}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		var src []byte
		if c, ok := changed[x]; ok {
			src = c.Content
		} else {
			src = read(x)
		}
		var next []string
		for _, spec := range compiledb.IncludeSpecs(src) {
			targets, known := res.Resolve(x, spec)
			untraced = untraced || !known
			next = append(next, targets...)
		}
		next = append(next, res.Forced(x)...)
		for _, t := range next {
			if seen[t] {
				continue
			}
			seen[t] = true
			if _, ok := changed[t]; ok {
				out = append(out, t)
			}
			queue = append(queue, t)
		}
	}
	// What the compilers recorded the unit reading (a file no directive
	// Anvil reads names) it reads still.
	for _, t := range recorded {
		if _, ok := changed[t]; ok && t != rel && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if untraced {
		for _, t := range slices.Sorted(maps.Keys(changed)) {
			if t != rel && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}
