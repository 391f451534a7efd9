package shadow

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// newCHarness is the C fixture, extra files laid over it.
func newCHarness(t *testing.T, files map[string]string) *harness {
	t.Helper()
	h := newHarness(t, "c", harnessOptions{files: files})
	h.requireServer("c")
	return h
}

func TestValidateC(t *testing.T) {
	h := newCHarness(t, nil)

	t.Run("clean edit of a source", func(t *testing.T) {
		res := h.validate(map[string]string{"src/standalone.c": "int standalone(void) { return 2; }\n"})
		expect(t, res, Clean)
		if !slices.Contains(res.CheckedFiles, "src/standalone.c") || len(res.Servers) != 1 || res.Servers[0].Name != "clangd" {
			t.Fatalf("clangd did not check the source:\n%s%+v", describe(res), res.Servers)
		}
	})

	t.Run("type error in a source", func(t *testing.T) {
		res := h.validate(map[string]string{"src/standalone.c": "int standalone(void) { return \"x\" * 2; }\n"})
		expect(t, res, Rejected, "src/standalone.c")
	})

	t.Run("a header's renamed field breaks its includers, through another header", func(t *testing.T) {
		res := h.validate(map[string]string{"include/shapes.h": strings.Replace(h.read("include/shapes.h"), "int x;", "int xx;", 1)})
		expect(t, res, Rejected, "src/report.c", "src/shapes.c")
		for _, f := range []string{"include/shapes.h", "src/main.c", "src/report.c", "src/shapes.c"} {
			if !slices.Contains(res.CheckedFiles, f) {
				t.Errorf("%s not checked:\n%s", f, describe(res))
			}
		}
		if slices.Contains(res.CheckedFiles, "src/standalone.c") {
			t.Errorf("a translation unit that includes nothing changed was checked")
		}
		if via := res.Servers[0].Via; !strings.Contains(via, "gcc -fsyntax-only in a shadow tree for 3 translation units") || !strings.Contains(via, "the server for 1 changed file") {
			t.Errorf("via = %q", via)
		}
	})

	t.Run("a clean header change", func(t *testing.T) {
		res := h.validate(map[string]string{"include/shapes.h": strings.Replace(h.read("include/shapes.h"), "int area(struct point p);", "int area(struct point p);\nint perimeter(struct point p);", 1)})
		expect(t, res, Clean)
	})

	t.Run("the rename across header and sources", func(t *testing.T) {
		res := h.validate(map[string]string{
			"include/shapes.h": strings.Replace(h.read("include/shapes.h"), "int x;", "int xx;", 1),
			"src/shapes.c":     strings.Replace(h.read("src/shapes.c"), "p.x", "p.xx", 1),
			"src/report.c":     strings.Replace(h.read("src/report.c"), "p.x", "p.xx", 1),
		})
		expect(t, res, Clean)
	})

	t.Run("a source using the new field with the header unchanged", func(t *testing.T) {
		res := h.validate(map[string]string{"src/report.c": strings.Replace(h.read("src/report.c"), "p.x", "p.xx", 1)})
		expect(t, res, Rejected, "src/report.c")
	})

	t.Run("an included fragment breaks its includer", func(t *testing.T) {
		res := h.validate(map[string]string{"src/limits.inc": "#define MAX_PTS 16\n"})
		expect(t, res, Rejected, "src/shapes.c")
		if !slices.Contains(res.CheckedFiles, "src/limits.inc") {
			t.Errorf("the fragment is not among the checked files:\n%s", describe(res))
		}
	})

	t.Run("deleted header", func(t *testing.T) {
		res := h.validate(map[string]string{"-src/report.h": ""})
		expect(t, res, Rejected, "src/main.c", "src/report.c")
	})

	// Found by the gate fuzzer (c/edit-compile-flags): a define dropped
	// from the compile database was "not code" and passed clean while
	// every unit that used it failed. clangd reads the database only from
	// disk: every unit is compiled with the changed database instead.
	t.Run("an include directory dropped from the compile database", func(t *testing.T) {
		res := h.validate(map[string]string{"compile_commands.json": strings.ReplaceAll(h.read("compile_commands.json"), `"-Iinclude",`, "")})
		if res.Verdict != Rejected || !slices.Contains(res.NewErrorFiles(), "src/shapes.c") {
			t.Fatalf("verdict:\n%s", describe(res))
		}
		if via := res.Servers[0].Via; !strings.Contains(via, "every translation unit of the changed compile database") {
			t.Errorf("via = %q", via)
		}
	})
	t.Run("a harmless change to the compile database", func(t *testing.T) {
		res := h.validate(map[string]string{"compile_commands.json": strings.ReplaceAll(h.read("compile_commands.json"), `"-Wall",`, `"-Wall", "-DUNUSED_K=1",`)})
		expect(t, res, Clean)
	})
	for _, name := range []string{"compile_flags.txt", ".clangd"} {
		t.Run("a change to "+name, func(t *testing.T) {
			res := h.validate(map[string]string{name: "[]\n"})
			expect(t, res, Unverified)
			if len(res.Unverified) != 1 || !strings.Contains(res.Unverified[0].Reason, "only from disk") {
				t.Fatalf("reason:\n%s", describe(res))
			}
		})
	}
}

// Without a compile database a C change is unverified, and the reason
// says how to make one; a translation unit the change reaches that the
// database does not list cannot be compiled, and says so.
func TestValidateCWithoutCompileCommands(t *testing.T) {
	t.Run("no database", func(t *testing.T) {
		h := newCHarness(t, map[string]string{"compile_commands.json": ""})
		res := h.validate(map[string]string{"src/standalone.c": "int standalone(void) { return 2; }\n"})
		expect(t, res, Unverified)
		if len(res.Unverified) != 1 || !strings.Contains(res.Unverified[0].Reason, "cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON") {
			t.Fatalf("reason:\n%s", describe(res))
		}
	})
	t.Run("an includer without a command", func(t *testing.T) {
		h := newCHarness(t, nil)
		db, err := compiledb.Load(filepath.Join(h.dir, "compile_commands.json"))
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, c := range db.Commands {
			if !strings.HasSuffix(c.File, "report.c") {
				kept = append(kept, `{"directory": "`+c.Dir+`", "file": "`+c.File+`", "arguments": ["gcc", "-Iinclude", "-c", "`+c.File+`"]}`)
			}
		}
		testfs.Write(t, h.dir, map[string]string{"compile_commands.json": "[" + strings.Join(kept, ",\n") + "]"})
		res := h.validate(map[string]string{"include/shapes.h": h.read("include/shapes.h") + "\nint perimeter(struct point p);\n"})
		expect(t, res, Unverified)
		if !strings.Contains(res.Unverified[0].Reason, "src/report.c includes a changed file and has no compile command") {
			t.Fatalf("reason:\n%s", describe(res))
		}
	})
}

func TestParseCompilerOutput(t *testing.T) {
	units := []compiledb.Command{{Dir: "/p", File: "/p/src/a.c", Args: []string{"gcc"}}, {Dir: "/p", File: "/p/src/b.c", Args: []string{"gcc"}}}
	out := "In file included from src/a.c:1:\n" +
		"include/x.h:3:5: error: unknown type name 'foo'\n    3 | foo y;\n      | ^~~\n" +
		"src/a.c:4:10: warning: unused variable 'z' [-Wunused-variable]\n\n" + compileMarker + " 0 1\n" +
		"include/x.h:3:5: error: unknown type name 'foo'\n\n" + compileMarker + " 1 1\n"
	parsed, err := parseCompilerOutput(units, []byte(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, stopped := mergeUnits(parsed)
	if stopped != "" {
		t.Errorf("stopped = %q: no unit stopped", stopped)
	}
	if ds := got["/p/include/x.h"]; len(ds) != 1 || ds[0].Severity != lsp.SeverityError || ds[0].Range.Start.Line != 2 || ds[0].Range.Start.Character != 4 {
		t.Errorf("x.h: %+v (one error, seen twice, reported once)", ds)
	}
	if ds := got["/p/src/a.c"]; len(ds) != 1 || ds[0].Severity != lsp.SeverityWarning {
		t.Errorf("a.c: %+v", ds)
	}
	if ds, ok := got["/p/src/b.c"]; !ok || len(ds) != 0 {
		t.Errorf("b.c: %+v, %v: want an empty answer", ds, ok)
	}
	// An error the compiler places outside the project (a system header,
	// a file a #line names) is the unit's, at its first line.
	outside := "/usr/include/stdio.h:655:12: error: 'fputs' redeclared as different kind of symbol\n" + compileMarker + " 0 1\n" + compileMarker + " 1 0\n"
	parsed, err = parseCompilerOutput(units, []byte(outside), func(p string) bool { return strings.HasPrefix(p, "/p/") })
	if err != nil {
		t.Fatal(err)
	}
	if ds := parsed[0].files["/p/src/a.c"]; len(ds) != 1 || ds[0].Range.Start.Line != 0 || ds[0].Message != "in /usr/include/stdio.h:655: 'fputs' redeclared as different kind of symbol" {
		t.Errorf("an error outside the project: %+v", parsed[0].files)
	}
	for name, bad := range map[string]string{
		"a failure without an error": "gcc: fatal: something\n" + compileMarker + " 0 1\n" + compileMarker + " 1 0\n",
		"a unit missing":             compileMarker + " 0 0\n",
		"not found":                  "sh: 1: gcc: not found\n" + compileMarker + " 0 127\n" + compileMarker + " 1 127\n",
	} {
		if _, err := parseCompilerOutput(units, []byte(bad), nil); err == nil {
			t.Errorf("%s: read as an answer", name)
		}
	}
}

// treeSitterRuntime copies tree-sitter's C runtime (its headers and
// sources, from go-tree-sitter in the module cache) into a new directory
// with a compile_commands.json of one entry per source, as a build would
// write it.
func treeSitterRuntime(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "github.com", "tree-sitter", "go-tree-sitter@v0.25.0")
	if _, err := os.Stat(filepath.Join(src, "src", "lib.c")); err != nil {
		t.Fatalf("tree-sitter's C runtime is not in the module cache (go mod download github.com/tree-sitter/go-tree-sitter@v0.25.0): %v", err)
	}
	dir := t.TempDir()
	for _, sub := range []string{"include", "src"} {
		copied := testfs.Copy(t, filepath.Join(src, sub))
		if err := os.Rename(copied, filepath.Join(dir, sub)); err != nil {
			t.Fatal(err)
		}
	}
	sources, err := filepath.Glob(filepath.Join(dir, "src", "*.c"))
	if err != nil || len(sources) < 10 {
		t.Fatalf("sources: %v, %v", sources, err)
	}
	var entries []map[string]any
	for _, s := range sources {
		rel, _ := filepath.Rel(dir, s)
		entries = append(entries, map[string]any{"directory": dir, "file": s,
			"arguments": []string{"gcc", "-std=c11", "-Iinclude", "-Isrc", "-O2", "-c", rel, "-o", strings.TrimSuffix(rel, ".c") + ".o"}})
	}
	data, err := json.MarshalIndent(entries, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{"compile_commands.json": string(data)})
	return dir
}

// Real code: tree-sitter's runtime, 13 translation units (lib.c includes
// the others).
func TestValidateCRealCode(t *testing.T) {
	h := newHarnessAt(t, treeSitterRuntime(t), harnessOptions{})
	h.requireServer("c")
	header := h.read("src/tree_cursor.h")
	if !strings.Contains(header, "TSSymbol root_alias_symbol;") {
		t.Fatal("src/tree_cursor.h has changed: choose another field")
	}

	t.Run("a field renamed in a header breaks the source that uses it", func(t *testing.T) {
		res := h.validate(map[string]string{"src/tree_cursor.h": strings.Replace(header, "TSSymbol root_alias_symbol;", "TSSymbol root_alias;", 1)})
		expect(t, res, Rejected, "src/tree_cursor.c")
		if len(res.Servers) != 1 || res.Servers[0].Name != "clangd" || !strings.Contains(res.Servers[0].Via, "the server for 1 changed file") ||
			!strings.Contains(res.Servers[0].Via, "gcc -fsyntax-only") {
			t.Fatalf("servers = %+v", res.Servers)
		}
		for _, f := range []string{"src/tree_cursor.h", "src/tree_cursor.c", "src/get_changed_ranges.c", "src/lib.c"} {
			if !slices.Contains(res.CheckedFiles, f) {
				t.Errorf("%s not checked:\n%s", f, describe(res))
			}
		}
	})

	t.Run("a clean header change", func(t *testing.T) {
		res := h.validate(map[string]string{"src/tree_cursor.h": strings.Replace(header, "TSSymbol root_alias_symbol;", "TSSymbol root_alias_symbol;\n  uint32_t spare;", 1)})
		expect(t, res, Clean)
	})

	t.Run("a name that clashes only in the unity build", func(t *testing.T) {
		// lib.c includes node.c before tree_cursor.c: compiled alone,
		// tree_cursor.c is fine (clangd's answer); in lib.c it redefines
		// node.c's static function.
		res := h.validate(map[string]string{"src/tree_cursor.c": h.read("src/tree_cursor.c") + "\nstatic int ts_node_iterate_children;\n"})
		expect(t, res, Rejected, "src/tree_cursor.c")
	})

	t.Run("a type error in a source", func(t *testing.T) {
		res := h.validate(map[string]string{"src/point.c": "#include \"./point.h\"\nint bad(void) { TSPoint p = 1; return p.row; }\n"})
		expect(t, res, Rejected, "src/point.c")
	})
}

// C++ goes the same way: clangd for the header, g++ for its includers.
func TestValidateCPlusPlus(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"include/vec.hpp": "#pragma once\nnamespace geo {\nstruct Vec {\n  double x = 0;\n  double length() const;\n};\n}\n",
		"src/vec.cpp":     "#include \"vec.hpp\"\n#include <cmath>\n\ndouble geo::Vec::length() const { return std::abs(x); }\n",
		"src/main.cpp":    "#include \"vec.hpp\"\n\nint main() { geo::Vec v; v.x = 2; return v.length() > 1 ? 0 : 1; }\n",
	})
	var entries []string
	for _, f := range []string{"src/vec.cpp", "src/main.cpp"} {
		entries = append(entries, `{"directory": "`+dir+`", "file": "`+f+`", "arguments": ["g++", "-std=c++17", "-Iinclude", "-c", "`+f+`"]}`)
	}
	testfs.Write(t, dir, map[string]string{"compile_commands.json": "[" + strings.Join(entries, ",\n") + "]"})
	h := newHarnessAt(t, dir, harnessOptions{})
	h.requireServer("cpp")
	header := h.read("include/vec.hpp")

	res := h.validate(map[string]string{"include/vec.hpp": strings.Replace(header, "double x = 0;", "double dx = 0;", 1)})
	expect(t, res, Rejected, "src/main.cpp", "src/vec.cpp")
	if via := res.Servers[0].Via; !strings.Contains(via, "g++ -fsyntax-only in a shadow tree for 2 translation units") {
		t.Errorf("via = %q", via)
	}
	expect(t, h.validate(map[string]string{"include/vec.hpp": strings.Replace(header, "double length() const;", "double length() const;\n  double area() const;", 1)}), Clean)
	expect(t, h.validate(map[string]string{"src/main.cpp": strings.Replace(h.read("src/main.cpp"), "v.x = 2;", "v.x = \"2\";", 1)}), Rejected, "src/main.cpp")
}
