package compiledb

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Find looks where clangd looks: the file's directory and its parents,
// and a build/ beside each, compile_commands.json before compile_flags.txt.
func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string // relative to the tree; "" for none
	}{
		{"beside the file", []string{"src/compile_commands.json"}, "src/compile_commands.json"},
		{"in a parent", []string{"compile_commands.json"}, "compile_commands.json"},
		{"in build/ beside a parent", []string{"build/compile_commands.json"}, "build/compile_commands.json"},
		{"nearest first", []string{"compile_commands.json", "src/build/compile_commands.json"}, "src/build/compile_commands.json"},
		{"commands before flags", []string{"src/compile_flags.txt", "src/compile_commands.json"}, "src/compile_commands.json"},
		{"flags", []string{"compile_flags.txt"}, "compile_flags.txt"},
		{"build/ of a sibling does not count", []string{"other/build/compile_commands.json"}, ""},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"src/a.c": "int a;\n"}
			for _, f := range tc.files {
				files[f] = "[]"
			}
			write(t, dir, files)
			got, err := Find(filepath.Join(dir, "src", "a.c"))
			if tc.want == "" {
				if !IsNotFound(err) {
					t.Fatalf("Find = %q, %v; want not found", got, err)
				}
				if !strings.Contains(err.Error(), "cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON") || !strings.Contains(err.Error(), "bear -- make") {
					t.Fatalf("the error does not say how to make one: %v", err)
				}
				return
			}
			if err != nil || got != filepath.Join(dir, filepath.FromSlash(tc.want)) {
				t.Fatalf("Find = %q, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestLoadAndCommands(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"compile_commands.json": `[
 {"directory": "` + dir + `/build", "file": "../src/a.c", "arguments": ["gcc", "-include", "config.h", "-I../include", "-iquote", "q", "-isystem", "/usr/x", "--include-directory=../long", "--include-directory-after", "/usr/after", "--include=long.h", "-c", "../src/a.c", "-o", "a.o", "-MD", "-MF", "a.d"]},
 {"directory": "` + dir + `", "file": "` + dir + `/src/b.c", "command": "cc -DNAME=\"a b\" -I 'inc dir' -c src/b.c"}
]`})
	db, err := Load(filepath.Join(dir, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := db.For(filepath.Join(dir, "src", "a.c"))
	if !ok {
		t.Fatal("no command for src/a.c")
	}
	inc := a.Includes()
	if want := []string{filepath.Join(dir, "include"), "/usr/x", filepath.Join(dir, "long"), "/usr/after"}; !slices.Equal(inc.Angle, want) {
		t.Errorf("angle dirs = %v, want %v", inc.Angle, want)
	}
	if want := []string{filepath.Join(dir, "build", "q")}; !slices.Equal(inc.Quote, want) {
		t.Errorf("quote dirs = %v, want %v", inc.Quote, want)
	}
	if got, want := strings.Join(a.SyntaxOnly(), " "), "gcc -include config.h -I../include -iquote q -isystem /usr/x --include-directory=../long --include-directory-after /usr/after --include=long.h ../src/a.c -fsyntax-only -fdiagnostics-color=never"; got != want {
		t.Errorf("SyntaxOnly = %s\nwant %s", got, want)
	}
	if want := []string{"config.h", "long.h"}; !slices.Equal(inc.Forced, want) {
		t.Errorf("forced includes = %v, want %v", inc.Forced, want)
	}
	b, ok := db.For(filepath.Join(dir, "src", "b.c"))
	if !ok {
		t.Fatal("no command for src/b.c")
	}
	if want := []string{"cc", "-DNAME=a b", "-I", "inc dir", "-c", "src/b.c"}; !slices.Equal(b.Args, want) {
		t.Errorf("split command = %q, want %q", b.Args, want)
	}
	if db.Covers(filepath.Join(dir, "src", "c.c")) {
		t.Error("a file without an entry is covered")
	}
}

func TestFlagsFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"compile_flags.txt": "-Iinclude\n-DX=1\n"})
	db, err := Load(filepath.Join(dir, "compile_flags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := db.For(filepath.Join(dir, "src", "a.cpp"))
	if !ok || c.Args[0] != "c++" || !slices.Contains(c.Args, "-DX=1") || c.Dir != dir {
		t.Fatalf("command for a.cpp = %+v, %v", c, ok)
	}
	if db.Covers(filepath.Join(dir, "src", "a.h")) {
		t.Error("a header has a command of its own")
	}
	if db.Covers(filepath.Join(filepath.Dir(dir), "elsewhere.c")) {
		t.Error("a file outside the flags' directory is covered")
	}
}

func TestLoadRejectsBadDatabases(t *testing.T) {
	for name, content := range map[string]string{
		"not json":    "{",
		"no file":     `[{"directory": "/x", "arguments": ["cc"]}]`,
		"no command":  `[{"directory": "/x", "file": "a.c"}]`,
		"bad quoting": `[{"directory": "/x", "file": "a.c", "command": "cc 'a.c"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{"compile_commands.json": content})
			if _, err := Load(filepath.Join(dir, "compile_commands.json")); err == nil {
				t.Fatal("loaded")
			}
		})
	}
}

// FuzzParse: a compile database of any content reads or is refused,
// never panics, and every command it gives has a compiler and absolute
// paths.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"directory": ".", "file": "a.c", "command": "cc -Iinc -c a.c"}]`))
	f.Add([]byte(`[{"directory": "/w", "file": "/w/a.c", "arguments": ["cc", "-c", "a.c"]}]`))
	f.Add([]byte(`[{"directory": "d", "file": "a.c", "command": "cc '-DX=\"y z\"' a.c"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Parse("/w/compile_commands.json", data)
		if err != nil {
			return
		}
		for _, c := range db.Commands {
			if len(c.Args) == 0 || !filepath.IsAbs(c.Dir) || !filepath.IsAbs(c.File) {
				t.Fatalf("command %+v", c)
			}
			_ = c.Includes()
			_ = c.SyntaxOnly()
		}
	})
}

// A response file's words are read in place, in turn for one it names;
// one outside the compilation's directory, or missing, is not read and
// leaves the command's search unread.
func TestIncludesReadResponseFiles(t *testing.T) {
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	write(t, dir, map[string]string{
		"build/flags.rsp":  "-Iinc \"-Ispaced dir\"\n--include=forced.h @more.rsp\n",
		"build/more.rsp":   "-isystem sys\n",
		"build/loop.rsp":   "@loop.rsp\n",
		"outside.rsp":      "-Isecret\n",
		"build/linked.rsp": "",
	})
	if err := os.Remove(filepath.Join(build, "linked.rsp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "outside.rsp"), filepath.Join(build, "linked.rsp")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		angle      []string
		forced     []string
		unreadWant bool
	}{
		{"read in place, in turn", []string{"cc", "@flags.rsp", "-c", "a.c"}, []string{filepath.Join(build, "inc"), filepath.Join(build, "spaced dir"), filepath.Join(build, "sys")}, []string{"forced.h"}, false},
		{"outside the compilation's directory", []string{"cc", "@../outside.rsp", "-c", "a.c"}, nil, nil, true},
		{"a link out of it", []string{"cc", "@linked.rsp", "-c", "a.c"}, nil, nil, true},
		{"missing", []string{"cc", "@gone.rsp", "-c", "a.c"}, nil, nil, true},
		{"naming itself", []string{"cc", "@loop.rsp", "-c", "a.c"}, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Command{Dir: build, File: filepath.Join(build, "a.c"), Args: tc.args}.Includes()
			if !slices.Equal(d.Angle, tc.angle) || !slices.Equal(d.Forced, tc.forced) || d.Unread != tc.unreadWant {
				t.Errorf("angle %q forced %q unread %v; want %q %q %v", d.Angle, d.Forced, d.Unread, tc.angle, tc.forced, tc.unreadWant)
			}
		})
	}
}

// Whatever a response file holds, reading it gives clean absolute
// directories, or leaves the search unread.
func FuzzIncludesResponseFile(f *testing.F) {
	for _, seed := range []string{"-Iinc", "\"-Ia b\" -include x.h", "@f.rsp", "-I", "'unterminated", "--include-directory=../up -isystem\n/abs"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.rsp"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		d := Command{Dir: dir, File: filepath.Join(dir, "a.c"), Args: []string{"cc", "@f.rsp", "-c", "a.c"}}.Includes()
		for _, p := range append(slices.Clone(d.Angle), d.Quote...) {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				t.Errorf("directory %q from %q", p, data)
			}
		}
	})
}
