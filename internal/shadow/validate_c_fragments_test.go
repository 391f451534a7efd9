package shadow

import (
	"slices"
	"testing"
)

// A file C code includes is code whatever its name: colors.def, an
// X-macro list color.h includes, loses an entry that main.c uses. The
// compiler says 'COLOR_GREEN' undeclared in main.c; the change was "not
// code" and passed.
func TestIncludedFileOfAnyNameIsCode(t *testing.T) {
	h := newCHarness(t, map[string]string{
		"include/color.h":    "#ifndef COLOR_H\n#define COLOR_H\nenum color {\n#define X(n) COLOR_##n,\n#include \"colors.def\"\n#undef X\n};\n#endif\n",
		"include/colors.def": "X(RED)\nX(GREEN)\n",
		"src/main.c":         "#include <stdio.h>\n\n#include \"report.h\"\n#include \"color.h\"\n\nint main(void) {\n\tstruct point p = {2, 3};\n\tprintf(\"%d %d\\n\", report(p), COLOR_GREEN);\n\treturn 0;\n}\n",
		"docs/notes.txt":     "colors\n",
	})
	res := h.validate(map[string]string{"include/colors.def": "X(RED)\n"})
	expect(t, res, Rejected, "src/main.c")
	res = h.validate(map[string]string{"include/colors.def": "X(RED)\nX(GREEN)\nX(BLUE)\n"})
	expect(t, res, Clean)
	if !slices.Contains(res.CheckedFiles, "src/main.c") {
		t.Fatalf("the includer was not checked:\n%s", describe(res))
	}
	// A file nothing includes stays what it was: not code.
	res = h.validate(map[string]string{"docs/notes.txt": "colours\n"})
	if res.Verdict != Clean || len(res.NotCode) != 1 {
		t.Fatalf("a file nothing reads:\n%s", describe(res))
	}
}
