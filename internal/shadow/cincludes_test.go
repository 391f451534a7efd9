package shadow

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/reach"
)

// The compilers' record of what each translation unit reads is what the
// preprocessor read: a file a macro names (#include LIST), a header
// behind the digraph %:, a header the command forces in, a header's own
// include, whatever the names; a unit without a compile command is left
// out, and so is a unit whose preprocessing stops at a missing header
// only for what it did not read (-MG lists the missing one by name, which
// no workspace file is).
func TestCIncludesAsTheCompilerReads(t *testing.T) {
	h := newHarnessAt(t, t.TempDir(), harnessOptions{files: map[string]string{
		"compile_commands.json": `[{"directory": "@ROOT@", "command": "cc -c -include forced.h main.c", "file": "main.c"},
 {"directory": "@ROOT@", "command": "cc -c broken.c -o broken.o", "file": "broken.c"}]`,
		"main.c":     "#define LIST \"colors.def\"\nenum c {\n#include LIST\n};\n%:include \"x.h\"\nint main(void) { return GREEN + X; }\n",
		"colors.def": "RED,\nGREEN,\n",
		"x.h":        "#include \"y.inl\"\n#define X Y\n",
		"y.inl":      "#define Y 1\n",
		"forced.h":   "#define F 1\n",
		"broken.c":   "#include \"gone.h\"\n#include \"x.h\"\n",
		"lone.c":     "#include \"x.h\"\n",
	}})
	absoluteCompileCommands(t, h.dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	read, err := h.v.CIncludes(ctx, []string{"main.c", "broken.c", "lone.c"})
	if err != nil {
		t.Fatal(err)
	}
	abs := func(rels ...string) []string {
		var out []string
		for _, r := range rels {
			out = append(out, filepath.Join(h.dir, r))
		}
		return out
	}
	for unit, want := range map[string][]string{
		"main.c":   abs("colors.def", "x.h", "y.inl", "forced.h"),
		"broken.c": abs("x.h", "y.inl"),
	} {
		got := read[filepath.Join(h.dir, unit)]
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: the record %q lacks %s", unit, got, w)
			}
		}
	}
	if got, ok := read[filepath.Join(h.dir, "lone.c")]; ok {
		t.Errorf("a unit without a compile command was recorded: %q", got)
	}
}

// fakeCRecord is a compilers' record made up for a test: the units
// (relative) and the files each reads (relative).
type fakeCRecord struct {
	root string
	read map[string][]string
}

func (f fakeCRecord) CIncludes(_ context.Context, _ []string) (map[string][]string, error) {
	out := map[string][]string{}
	for unit, files := range f.read {
		for _, p := range files {
			out[filepath.Join(f.root, unit)] = append(out[filepath.Join(f.root, unit)], filepath.Join(f.root, p))
		}
	}
	return out, nil
}

// A file only the compilers' record says a unit reads (no directive
// Anvil reads names it) is code, checked through that unit, compiled
// with the change. Without the record it is not code (reach's
// TestDependantsTakeTheCompilersRecord); with it, but with the includers'
// plan reading directives alone, it was unverified ("no translation unit
// includes it"). The record here is made up (main.c does not really read
// table.txt), so the unit compiles clean.
func TestTheCompilersRecordAddsIncluders(t *testing.T) {
	h := newHarnessAt(t, t.TempDir(), harnessOptions{files: map[string]string{
		"compile_commands.json": `[{"directory": "@ROOT@", "command": "cc -c main.c", "file": "main.c"}]`,
		"main.c":                "int main(void) { return 0; }\n",
		"data/table.txt":        "1, 2,\n",
	}})
	absoluteCompileCommands(t, h.dir)
	h.requireServer("c")
	h.v.deps.(*reach.Graph).WithC(fakeCRecord{root: h.dir, read: map[string][]string{"main.c": {"data/table.txt"}}})
	h.prepareRecords()
	res := h.validate(map[string]string{"data/table.txt": "1,\n"})
	expect(t, res, Clean)
	if len(res.NotCode) != 0 || !slices.Contains(res.CheckedFiles, "data/table.txt") || !slices.Contains(res.CheckedFiles, "main.c") {
		t.Fatalf("with the record, table.txt is not checked through main.c:\n%s", describe(res))
	}
}
