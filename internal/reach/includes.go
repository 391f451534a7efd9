package reach

import (
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
