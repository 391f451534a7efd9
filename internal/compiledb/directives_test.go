package compiledb

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/depfile"
)

// The spellings of an include directive and of text that only looks like
// one, which the generated sources below combine.
var (
	lineStarts = []string{"", "  ", "\t", "/* c */ ", "/**/", "/* a\n b */ ", "int v%d; /* c\n */ "}
	hashes     = []string{"#", "%:", "??=", "# ", "#/* x */", "#\\\n", "# \\\n "}
	keywords   = []string{"include", "inc\\\nlude", "include \\\n", "import"}
	separators = []string{" ", "\t", "/* */", "", " /* a\n b */ "}
	endings    = []string{"", " // c", " /* c */", " /* c\n d */"}
	decoys     = []string{
		"/* #include \"z%d.h\" */",
		"// #include \"z%d.h\"",
		"const char *s%d = \"#include \\\"q.h\\\"\";",
		"const char *t%d = \"/*\"; \n#include \"after%d.h\"",
		"char c%d = '\"';",
		"int d%d = 1'2;",
		"// a comment's splice \\\n#include \"spliced%d.h\"",
	}
)

// generatedSource returns a C source of includes and decoys in random
// spellings.
func generatedSource(r *rand.Rand) string {
	var b strings.Builder
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	if r.IntN(8) == 0 {
		b.WriteString("\ufeff") // a byte order mark
	}
	for i := range 1 + r.IntN(6) {
		if r.IntN(3) == 0 {
			d := pick(decoys)
			b.WriteString(strings.ReplaceAll(d, "%d", fmt.Sprint(i)) + "\n")
			continue
		}
		name := fmt.Sprintf("h%d.h", i)
		spec := `"` + name + `"`
		if r.IntN(3) == 0 {
			spec = "<" + name + ">"
		}
		sep := pick(separators)
		if sep == "" && spec[0] == '<' {
			sep = " "
		}
		start := strings.ReplaceAll(pick(lineStarts), "%d", fmt.Sprint(i))
		fmt.Fprintf(&b, "%s%s%s%s%s%s\n", start, pick(hashes), pick(keywords), sep, spec, pick(endings))
	}
	return b.String()
}

// preprocessorReads returns the files gcc's preprocessor reads for src
// (-M -MG lists a missing header by the name the directive gives), in
// the given mode.
func preprocessorReads(t *testing.T, dir, src, std string) []string {
	t.Helper()
	file := filepath.Join(dir, "x.c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dep := filepath.Join(dir, "x.d")
	cmd := exec.Command("gcc", "-std="+std, "-w", "-M", "-MG", "-MF", dep, "x.c")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc -std=%s -M -MG on\n%s\n%v: %s", std, src, err, out)
	}
	data, err := os.ReadFile(dep)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := depfile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range depfile.Prereqs(rules) {
		if p != "x.c" && !filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

// TestIncludeSpecsReadWhatThePreprocessorReads: for generated sources of
// includes spelled every way the preprocessor takes them (after a
// comment, through a digraph, a trigraph or a line splice, after a
// byte order mark) and of text
// that only looks like one, every file gcc's preprocessor reads, in an
// ISO mode (trigraphs on) and in GNU's, is one IncludeSpecs names, or it
// names an include it cannot trace (which may be any file). More is
// allowed: an include it names that gcc does not read only adds an
// includer.
func TestIncludeSpecsReadWhatThePreprocessorReads(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	for range 150 {
		src := generatedSource(r)
		specs := IncludeSpecs([]byte(src))
		var names []string
		untraced := false
		for _, s := range specs {
			if s[0] == '"' || s[0] == '<' {
				names = append(names, s[1:len(s)-1])
			} else {
				untraced = true
			}
		}
		for _, std := range []string{"c11", "gnu11"} {
			for _, read := range preprocessorReads(t, dir, src, std) {
				if !slices.Contains(names, read) && !untraced {
					t.Errorf("gcc -std=%s reads %s, which IncludeSpecs misses (it found %q) in:\n%s", std, read, specs, src)
				}
			}
		}
	}
}

// TestIncludeSpecs: the spellings one by one.
func TestIncludeSpecs(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"plain", "#include \"a.h\"\n#include <b.h>\n", []string{`"a.h"`, `<b.h>`}},
		{"after a comment", "/* the types */ #include \"a.h\"\n", []string{`"a.h"`}},
		{"digraph", "%:include \"a.h\"\n", []string{`"a.h"`}},
		{"trigraph", "??=include \"a.h\"\n", []string{`"a.h"`}},
		{"spliced keyword", "#inc\\\nlude \"a.h\"\n", []string{`"a.h"`}},
		{"comment inside", "# /* x */ include /* y */ \"a.h\"\n", []string{`"a.h"`}},
		{"macro", "#define H \"a.h\"\n#include H\n", []string{"H"}},
		{"a comment's splice", "// x \\\n#include \"a.h\"\n", []string{`"a.h"`}},
		{"after a byte order mark", "\ufeff#include \"a.h\"\n", []string{`"a.h"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := IncludeSpecs([]byte(tc.src))
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("IncludeSpecs(%q) = %q, want %s among them", tc.src, got, w)
				}
			}
		})
	}
}

// FuzzIncludeSpecs: any text is read without a panic, and a directive
// behind a comment is read as the same directive alone (the comment is
// one space): whatever the text before it, appending "/**/#include" and a
// name never loses that include.
func FuzzIncludeSpecs(f *testing.F) {
	for _, s := range []string{"#include \"a.h\"\n", "/* \"*/ #include <b.h>", "'\\", "??/\n#include x", "%:import\"a\""} {
		f.Add(s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		f.Add(generatedSource(r))
	}
	f.Fuzz(func(t *testing.T, src string) {
		// A comment or literal the text leaves open would swallow what
		// follows, as the preprocessor's would: end the text's line (a
		// blank line after it, since a trailing backslash joins one), and
		// any comment, first.
		text := src + "\n \n*/\n/**/#include \"fuzzed.h\"\n"
		if !slices.Contains(IncludeSpecs([]byte(text)), `"fuzzed.h"`) {
			t.Fatalf("IncludeSpecs(%q) lost the include after it", text)
		}
	})
}
