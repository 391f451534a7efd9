package corpus

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Real projects laid out for the benchmarks and tests that run the gate or
// an agent on them, each written into an empty directory.

// RxJS lays out rxjs 7.8.2's sources and tsconfig.json in dir, with
// TypeScript 4.2 (the version it pins) in its node_modules: a 251-file
// project checked by tsserver, with a central types.ts.
func (c Cache) RxJS(t testing.TB, dir string) {
	t.Helper()
	pkg := c.NPMPackage(t, "rxjs@7.8.2")
	CopyFiles(t, filepath.Join(pkg, "src"), filepath.Join(dir, "src"), ".ts")
	if err := copyFile(filepath.Join(pkg, "tsconfig.json"), filepath.Join(dir, "tsconfig.json")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "package.json"), `{"name": "rxjs-corpus", "private": true, "devDependencies": {"typescript": "~4.2.0"}}`)
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(c.NPMPackage(t, "typescript@4.2.4"), filepath.Join(dir, "node_modules", "typescript")); err != nil {
		t.Fatal(err)
	}
}

// Rich lays out Debian's python3-rich 13.3.1 in dir with a pyproject.toml
// whose [tool.pyright] checks it: 78 modules, with hubs (style.py,
// segment.py, text.py) that most of them import.
func (c Cache) Rich(t testing.TB, dir string) {
	t.Helper()
	deb := c.DebianPackage(t, "python3-rich")
	CopyFiles(t, filepath.Join(deb, "root", "usr", "lib", "python3", "dist-packages", "rich"), filepath.Join(dir, "rich"), ".py")
	write(t, filepath.Join(dir, "pyproject.toml"), "[project]\nname = \"rich\"\n\n[tool.pyright]\ninclude = [\"rich\"]\ntypeCheckingMode = \"standard\"\nreportMissingImports = \"none\"\nreportMissingModuleSource = \"none\"\n")
}

// CopyFiles copies the files under src with extension ext ("" for all)
// to the same places under dst, writable.
func CopyFiles(t testing.TB, src, dst, ext string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (ext != "" && filepath.Ext(p) != ext) {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return copyFile(p, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
