package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// A change inside an installed package is the turn's to name, however it
// was made: a generator that rewrites its client, patch-package, a hand
// edit, a link re-pointed. Each leaves the dependency directory's own
// entries as they were, and before, the stamp read only those: a turn
// whose shell broke the code through a package ended clean. What no
// checker reads there (a tool's cache, compiled bytecode) is no change.
func TestTurnSeesAChangeInsideAPackage(t *testing.T) {
	start := map[string]string{
		"src/a.ts":                                                     "import { Client } from '@prisma/client';\nexport const c = new Client();\n",
		"node_modules/.prisma/client/index.d.ts":                       "export declare class Client {}\n",
		"node_modules/lib/index.js":                                    "module.exports = 1;\n",
		"node_modules/lib/package.json":                                `{"name": "lib", "version": "1.0.0"}`,
		"node_modules/.pnpm/lib@1/index.js":                            "",
		"node_modules/.cache/babel/x.json":                             "{}",
		".venv/pyvenv.cfg":                                             "home = /usr/bin\n",
		".venv/lib/python3.12/site-packages/pkg/a.py":                  "def f() -> int: ...\n",
		".venv/lib/python3.12/site-packages/pkg/a.pyc":                 "\x00one",
		".venv/lib/python3.12/site-packages/fast/_core.so":             "\x7fELF\x00",
		".venv/lib/python3.12/site-packages/fast-1.0.dist-info/RECORD": "fast/_core.so\n",
		"node_modules/.modules.yaml":                                   "layoutVersion: 5\n",
	}
	later := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string // the directories named, or ""
	}{
		{"a generator rewrites a declaration", func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{"node_modules/.prisma/client/index.d.ts": "export declare class Client { x: number }\n"})
		}, "node_modules/"},
		{"patch-package rewrites a module in place, to the same size", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "node_modules/lib/index.js")
			testfs.Write(t, dir, map[string]string{"node_modules/lib/index.js": "module.exports = 2;\n"})
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}, "node_modules/"},
		{"a package's manifest", func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{"node_modules/lib/package.json": `{"name": "lib", "version": "1.0.1", "types": "x.d.ts"}`})
		}, "node_modules/"},
		{"a link re-pointed", func(t *testing.T, dir string) {
			link := filepath.Join(dir, "node_modules/linked")
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(".pnpm/lib@2", link); err != nil {
				t.Fatal(err)
			}
		}, "node_modules/"},
		{"a virtual environment's package", func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{".venv/lib/python3.12/site-packages/pkg/a.py": "def f() -> str: ...\n"})
		}, ".venv/"},
		{"a compiled package uninstalled (no code a checker reads)", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, ".venv/lib/python3.12/site-packages/fast")); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(dir, ".venv/lib/python3.12/site-packages/fast-1.0.dist-info")); err != nil {
				t.Fatal(err)
			}
		}, ".venv/"},
		{"an installer's record", func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{"node_modules/.modules.yaml": "layoutVersion: 6\n"})
		}, "node_modules/"},
		{"a tool's cache", func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{"node_modules/.cache/babel/x.json": `{"a": 1}`, "node_modules/.vite/deps/lib.js": "export {}\n"})
		}, ""},
		{"compiled bytecode", func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{".venv/lib/python3.12/site-packages/pkg/a.pyc": "\x00two, longer"})
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, s := storeOver(t, start)
			if err := os.Symlink(".pnpm/lib@1", root.Abs("node_modules/linked")); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			snap, err := s.Ensure(ctx, root, "pkg", "")
			if err != nil {
				t.Fatal(err)
			}
			tc.change(t, root.Dir())
			_, unknown, err := (&Gate{Snapshots: s}).wayBack(ctx, root, snap)
			if err != nil || strings.Join(unknown, " ") != tc.want {
				t.Fatalf("wayBack named %q (%v), want %q", unknown, err, tc.want)
			}
		})
	}
}

// Past its bound (entries, each counted once), a dependency directory is
// stamped by its top alone and the turn says what it cannot see; an
// install is still seen.
func TestAPackageStampPastItsBound(t *testing.T) {
	root, _ := storeOver(t, map[string]string{
		"node_modules/a/index.d.ts": "export {};\n",
		"node_modules/b/index.d.ts": "export {};\n",
		"node_modules/c/index.d.ts": "export {};\n",
	})
	// Six entries: three folders, a declaration in each.
	whole := packagesStamp(root, "node_modules", 6, nil)
	top := packagesStamp(root, "node_modules", 5, nil)
	if strings.HasPrefix(whole, partialStamp) || !strings.HasPrefix(top, partialStamp) {
		t.Fatalf("stamps %q (bound 6), %q (bound 5): want the first whole, the second partial", whole, top)
	}
	if got := unseenInside(map[string]string{"node_modules": top, ".venv": whole}); strings.Join(got, " ") != "node_modules/" {
		t.Errorf("unseenInside = %q, want node_modules/", got)
	}
	testfs.Write(t, root.Dir(), map[string]string{"node_modules/d/index.d.ts": "export {};\n"}) // npm install d
	later := time.Now().Add(time.Hour)                                                          // as a later install's clock says
	if err := os.Chtimes(root.Abs("node_modules"), later, later); err != nil {
		t.Fatal(err)
	}
	if again := packagesStamp(root, "node_modules", 5, nil); again == top {
		t.Errorf("an install left the partial stamp as it was")
	}
}

// A snapshot taken before the stamps read inside packages is compared by
// the stamps it holds: a session in flight across an upgrade of Anvil is
// not told its packages changed.
func TestASnapshotOfTopStampsIsComparedByThem(t *testing.T) {
	root, s := storeOver(t, map[string]string{"src/a.ts": "export {};\n", "node_modules/a/index.d.ts": "export {};\n"})
	ctx := context.Background()
	snap, err := s.Ensure(ctx, root, "old", "")
	if err != nil {
		t.Fatal(err)
	}
	snap.InstalledWhole = false
	snap.Installed = map[string]string{"node_modules": shadow.InstalledStamp(root, "node_modules")}
	if _, unknown, err := (&Gate{Snapshots: s}).wayBack(ctx, root, snap); err != nil || len(unknown) > 0 {
		t.Fatalf("wayBack named %q (%v) on an unchanged tree", unknown, err)
	}
}

// An edit tool's edit of a file inside a package is the way back's to
// take back (the edit hook kept the file's content): the directory's
// stamp takes the file as it was at its first edit, and the end of the
// turn does not name the directory as though a package had been
// installed. A file a shell changed before its first edit is named still.
func TestAnEditOfAPackageFileIsTheWayBacks(t *testing.T) {
	const file = "node_modules/lib/index.d.ts"
	for _, tc := range []struct {
		name        string
		shellBefore bool
		named       string
	}{
		{"edited by the edit tool alone", false, ""},
		{"changed by a shell before its first edit", true, "node_modules/ " + file},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, s := storeOver(t, map[string]string{"src/a.ts": "export {};\n", file: "export declare const x: number;\n"})
			ctx := context.Background()
			snap, err := s.Ensure(ctx, root, "edit", "")
			if err != nil {
				t.Fatal(err)
			}
			later := time.Now().Add(time.Hour)
			if tc.shellBefore {
				testfs.Write(t, root.Dir(), map[string]string{file: "export declare const x: boolean;\n"})
				if err := os.Chtimes(root.Abs(file), later, later); err != nil {
					t.Fatal(err)
				}
			}
			data, _ := os.ReadFile(root.Abs(file))
			if err := s.Record(root, snap, file, data, true); err != nil {
				t.Fatal(err)
			}
			testfs.Write(t, root.Dir(), map[string]string{file: "export declare const x: string;\n"}) // the edit
			edited := later.Add(time.Hour)
			if err := os.Chtimes(root.Abs(file), edited, edited); err != nil {
				t.Fatal(err)
			}
			cur, err := s.Load(root, "edit")
			if err != nil {
				t.Fatal(err)
			}
			specs, unknown, err := (&Gate{Snapshots: s}).wayBack(ctx, root, cur)
			if err != nil {
				t.Fatal(err)
			}
			var back []string
			for _, sp := range specs {
				back = append(back, sp.Path)
			}
			if strings.Join(back, " ") != file {
				t.Errorf("the way back covers %q, want %s", back, file)
			}
			if named := strings.Join(unknown, " "); named != tc.named {
				t.Errorf("named %q, want %q", named, tc.named)
			}
		})
	}
}

// What a session's start and each end of a turn pay to stamp a
// node_modules of 20,000 files in 2,000 packages (a middling project's):
// `go test -run '^$' -bench PackagesStamp ./internal/hooks`.
func BenchmarkPackagesStamp(b *testing.B) {
	files := map[string]string{}
	for p := range 2000 {
		pkg := fmt.Sprintf("node_modules/pkg%d/", p)
		files[pkg+"package.json"] = `{"name": "x"}`
		files[pkg+"README.md"] = "x"
		for f := range 8 {
			files[pkg+fmt.Sprintf("lib/f%d.js", f)] = "x"
		}
	}
	dir := b.TempDir()
	testfs.Write(b, dir, files)
	root, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if strings.HasPrefix(packagesStamp(root, "node_modules", maxPackageFiles, nil), partialStamp) {
			b.Fatal("partial")
		}
	}
}
