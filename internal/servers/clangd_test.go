package servers

import (
	"context"
	"errors"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// realManager is a manager of Anvil's installed servers for dir, as the
// app makes one (the policy's environment, the tools directory), shut
// down when the test ends.
func realManager(t *testing.T, dir string) *Manager {
	t.Helper()
	mgr := NewManager(dir, NewRegistry(RegistryOptions{Policy: execpolicy.New(execpolicy.Options{Root: dir, Environ: os.Environ()}), ToolsDir: DefaultToolsDir(os.Getenv)}), ManagerOptions{StartTimeout: time.Minute})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		mgr.Shutdown(ctx)
	})
	return mgr
}

// The measured facts behind the C/C++ check (internal/shadow/cfamily.go),
// pinned against the installed clangd: it answers a changed file by a
// publish of the version sent; a translation unit checked after a
// header's overlay still reads the header from disk; and it does not
// answer an unchanged document sent again, so a push check cannot ask it
// about dependants. A newer clangd that fails this test may check
// includers itself.
func TestClangdReadsIncludesFromDisk(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"a.h": "struct point { int x; };\n",
		"a.c": "#include \"a.h\"\nint get(struct point p) { return p.x; }\n",
		"b.c": "int b(void) { return 1; }\n",
	})
	testfs.Write(t, dir, map[string]string{"compile_commands.json": `[{"directory": "` + dir + `", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},
 {"directory": "` + dir + `", "file": "b.c", "arguments": ["cc", "-c", "b.c"]}]`})
	srv, err := realManager(t, dir).ForLanguage("c")
	if err != nil {
		t.Fatalf("clangd: %v (apt-get install clangd)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	read := func(rel string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	header := FileChange{Path: filepath.Join(dir, "a.h"), Language: "c", Old: read("a.h"), OldExists: true, New: []byte("struct point { int xx; };\n")}

	// A changed source is answered with its version.
	src := FileChange{Path: filepath.Join(dir, "b.c"), Language: "c", Old: read("b.c"), OldExists: true, New: []byte("int b(void) { return \"x\" * 1; }\n")}
	res, err := srv.Check(ctx, CheckRequest{Files: []FileChange{src}})
	if err != nil || len(res.After[src.Path]) == 0 {
		t.Fatalf("the type error in b.c: %v, %+v", err, res.After)
	}

	// The includer, changed and so answered, after the header's overlay:
	// it sees the header on disk, where x still exists.
	includer := FileChange{Path: filepath.Join(dir, "a.c"), Language: "c", Old: read("a.c"), OldExists: true, New: append(read("a.c"), "// edited\n"...)}
	res, err = srv.Check(ctx, CheckRequest{Files: []FileChange{header, includer}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.After[includer.Path] {
		if d.IsError() && strings.Contains(d.Message, "x") {
			t.Fatalf("clangd used the header's overlay for another translation unit (%s): the include check can ask it instead of compiling", d.Message)
		}
	}

	// An unchanged dependant sent again is not answered.
	short, cancelShort := context.WithTimeout(ctx, 3*time.Second)
	defer cancelShort()
	_, err = srv.Check(short, CheckRequest{Files: []FileChange{header}, Dependants: []string{includer.Path}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a dependant sent again unchanged: err = %v, want no answer", err)
	}
}
