package shadow

import (
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// rustc reads more than .rs files: include!, include_str!, include_bytes!
// and build scripts name any file of the crate. A change to such a file
// goes to cargo check (it was "not code", and a change that breaks the
// crate passed: `include!("sides.in")` with 4 → "four", E0308 in
// sides.in); a file rustc does not read is checked by cargo too, and is
// clean.
func TestValidateCargoReadsIncludedFiles(t *testing.T) {
	requireTool(t, "cargo")
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"Cargo.toml":   "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs":   "pub const SIDES: u32 = include!(\"sides.in\");\n",
		"src/sides.in": "4\n",
		"NOTES.txt":    "square\n",
	})
	h := newHarnessAt(t, dir, harnessOptions{noDeps: true, opts: Options{BatchStateDir: t.TempDir()}})
	res := h.validate(map[string]string{"src/sides.in": "\"four\"\n"})
	// rustc places the error in the included text.
	expect(t, res, Rejected, "src/sides.in")
	res = h.validate(map[string]string{"NOTES.txt": "triangle\n"})
	expect(t, res, Clean)
}
