package reach

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// The include graph: a file depends on what it includes, resolved as the
// compiler resolves it with the file's compile command, transitively,
// with no cut-off; what cannot be traced reaches every C/C++ file.
func TestIncludeGraph(t *testing.T) {
	files := map[string]string{
		"include/shapes.h":  "struct point { int x; };\n",
		"include/angle.h":   "int angle;\n",
		"include/config.h":  "#define N 1\n",
		"include/macros.h":  "#define M 1\n",
		"include/unused.h":  "int unused;\n",
		"quoted/q.h":        "int q;\n",
		"src/shapes.c":      "#include \"shapes.h\"\n#include <forced.h>\n",
		"src/report.h":      "#ifndef R\n#define R\n  #  include \"shapes.h\"\n#endif\n",
		"src/report.c":      "#include \"report.h\"\n#include <stdio.h>\n",
		"src/main.c":        "#include <angle.h>\n#include <report.h> /* not on -I */\n#include \"q.h\"\n#include <extra/e.h>\n#include <tail/t.h>\n",
		"vendor/extra/e.h":  "int e;\n",
		"include/forced.h":  "int forced;\n",
		"other/q.h":         "int other_q;\n",
		"other/user.c":      "#include \"q.h\"\n",
		"vendor/x/tail/t.h": "int t;\n",
		"src/lib.c":         "#include \"impl.c\"\n",
		"src/impl.c":        "#include \"impl.inc\"\n",
		"src/impl.inc":      "int impl;\n",
		"src/standalone.c":  "int standalone;\n",
		"src/notes.txt":     "#include \"shapes.h\"\n",
	}
	dir := testfs.Tree(t, files)
	var entries []map[string]any
	for _, f := range []string{"shapes", "report", "main", "lib", "standalone"} {
		args := []string{"gcc", "-Iinclude", "-c", "src/" + f + ".c"}
		switch f {
		case "main":
			args = []string{"gcc", "-include", "include/config.h", "-iquote", "quoted", "-I", "include", "--include-directory=vendor", "--sysroot=/opt/sdk", "-include", "forced.h", "-c", "src/main.c"}
		case "standalone":
			args = []string{"gcc", "-imacros", "include/macros.h", "-c", "src/standalone.c"}
		}
		entries = append(entries, map[string]any{"directory": dir, "file": "src/" + f + ".c", "arguments": args})
	}
	db, _ := json.Marshal(entries)
	testfs.Write(t, dir, map[string]string{"build/compile_commands.json": string(db)})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	parser := syntax.New(syntax.Options{})
	t.Cleanup(parser.Close)
	g := New(root, parser)
	snap := scanFiles(t, root)
	all := []string{"include/angle.h", "include/config.h", "include/forced.h", "include/macros.h", "include/shapes.h", "other/q.h", "other/user.c", "quoted/q.h", "src/impl.c", "src/impl.inc", "src/lib.c", "src/main.c", "src/report.c", "src/report.h", "src/shapes.c", "src/standalone.c", "vendor/extra/e.h", "vendor/x/tail/t.h"}
	for _, tc := range []struct {
		change  string
		content string // "" keeps the file's content
		want    []string
	}{
		// main.c through its <report.h>, taken as src/report.h (below).
		{change: "include/shapes.h", want: []string{"src/main.c", "src/report.c", "src/report.h", "src/shapes.c"}},
		// main.c's <report.h> is on none of the directories Anvil reads
		// of its command (-I only, where it is not): the compiler may
		// find it through a search path Anvil does not read, so it is
		// taken as the workspace's file of that name.
		{change: "src/report.h", want: []string{"src/main.c", "src/report.c"}},
		// <extra/e.h>, on a path given as --include-directory=, which
		// Anvil reads, and <tail/t.h>, on a path only the sysroot may
		// lead to, which it does not read.
		{change: "vendor/extra/e.h", want: []string{"src/main.c"}},
		{change: "vendor/x/tail/t.h", want: []string{"src/main.c"}},
		// main.c's command forces in forced.h, found along -I (gcc looks
		// in the compilation's directory first, then the "…" chain).
		{change: "include/forced.h", want: []string{"src/main.c", "src/shapes.c"}},
		// main.c's "q.h" is quoted/q.h by -iquote, but its command names
		// a sysroot, which may put other/ first.
		{change: "other/q.h", want: []string{"other/user.c", "src/main.c"}},
		{change: "include/angle.h", want: []string{"src/main.c"}},
		// other/user.c, which has no command, is read with every
		// command's directories, main.c's sysroot among them.
		{change: "quoted/q.h", want: []string{"other/user.c", "src/main.c"}},
		{change: "include/config.h", want: []string{"src/main.c"}},
		{change: "include/macros.h", want: []string{"src/standalone.c"}},
		{change: "src/impl.inc", want: []string{"src/impl.c", "src/lib.c"}},
		{change: "src/impl.c", want: []string{"src/lib.c"}},
		{change: "src/standalone.c", want: nil},
		{change: "include/unused.h", want: withoutFile(all, "include/unused.h")},
		{change: "src/shapes.c", content: "#include \"shapes.h\"\n#include MACRO\n", want: nil},
	} {
		t.Run(tc.change, func(t *testing.T) {
			c := &changeset.Change{Path: tc.change}
			if err := c.ReadBase(root); err != nil {
				t.Fatal(err)
			}
			c.Content = c.Base
			if tc.content != "" {
				c.Content = []byte(tc.content)
			}
			d, err := g.Dependants(context.Background(), snap, []*changeset.Change{c}, 5000)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(slices.Values(d.Files))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("dependants = %v\nwant %v", got, tc.want)
			}
		})
	}
	// A created header nothing includes has no dependants.
	created := &changeset.Change{Path: "include/new.h", Content: []byte("int fresh;\n")}
	if d, err := g.Dependants(context.Background(), snap, []*changeset.Change{created}, 5000); err != nil || len(d.Files) != 0 {
		t.Fatalf("a created header: %v, %v", d.Files, err)
	}
	// A file with an include nothing resolves depends on every change,
	// and so does a unit whose command names a response file Anvil does
	// not read (outside its compile directory), which may force any file
	// in.
	entries = append(entries, map[string]any{"directory": dir + "/src", "file": "rsp.c", "arguments": []string{"gcc", "@../build/flags.rsp", "-c", "rsp.c"}})
	db, _ = json.Marshal(entries)
	testfs.Write(t, dir, map[string]string{"src/macro.c": "#include CONFIG_HEADER\n", "src/missing.c": "#include \"missing.h\"\n",
		"src/rsp.c": "int rsp;\n", "build/flags.rsp": "-include ../include/unused.h\n", "build/compile_commands.json": string(db)})
	snap = scanFiles(t, root)
	c := &changeset.Change{Path: "src/standalone.c"}
	if err := c.ReadBase(root); err != nil {
		t.Fatal(err)
	}
	c.Content = []byte("int standalone = 2;\n")
	d, err := g.Dependants(context.Background(), snap, []*changeset.Change{c}, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(d.Files)); strings.Join(got, " ") != "src/macro.c src/missing.c src/rsp.c" {
		t.Fatalf("untraceable includers = %v", got)
	}
}

func withoutFile(list []string, f string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == f })
}

// The changed files a unit reads with the change: its includes
// transitively (a changed file's new text decides what it includes), the
// compilers' record of it, and every changed file once an include on the
// way names no file.
func TestIncludedChanged(t *testing.T) {
	files := map[string]string{
		"src/main.c": "#include \"a.h\"\n",
		"src/a.h":    "#include \"b.h\"\n",
		"src/b.h":    "int b;\n",
		"src/c.h":    "int c;\n",
		"src/d.h":    "int d;\n",
	}
	dir := testfs.Tree(t, files)
	db, _ := json.Marshal([]map[string]any{{"directory": dir, "file": "src/main.c", "arguments": []string{"gcc", "-c", "src/main.c"}}})
	testfs.Write(t, dir, map[string]string{"compile_commands.json": string(db)})
	read := func(rel string) []byte { return []byte(files[rel]) }
	tests := []struct {
		name     string
		changed  map[string]string
		recorded []string
		want     []string
	}{
		{"through an unchanged header", map[string]string{"src/b.h": "long b;\n", "src/c.h": "long c;\n"}, nil, []string{"src/b.h"}},
		{"the change's own include", map[string]string{"src/a.h": "#include \"b.h\"\n#include \"c.h\"\n", "src/c.h": "long c;\n"}, nil, []string{"src/a.h", "src/c.h"}},
		{"the compilers' record adds", map[string]string{"src/b.h": "long b;\n", "src/d.h": "long d;\n"}, []string{"src/d.h"}, []string{"src/b.h", "src/d.h"}},
		{"an include that names no file", map[string]string{"src/a.h": "#include LIST\n", "src/c.h": "long c;\n", "src/d.h": "long d;\n"}, nil, []string{"src/a.h", "src/c.h", "src/d.h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := map[string]*changeset.Change{}
			var paths []string
			for p, text := range tt.changed {
				changed[p] = &changeset.Change{Path: p, Base: []byte(files[p]), BaseExists: true, Content: []byte(text)}
				paths = append(paths, p)
			}
			res := compiledb.NewResolver(dir, append(slices.Collect(maps.Keys(files)), paths...))
			got := IncludedChanged(res, "src/main.c", changed, read, tt.recorded)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("IncludedChanged = %v, want %v", got, tt.want)
			}
		})
	}
}
