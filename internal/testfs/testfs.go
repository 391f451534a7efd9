// Package testfs builds small file trees for tests.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates files under dir from a map of slash-separated relative paths
// to contents, making parent directories as needed. A value of the form
// "->target" creates a symlink to target instead.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if len(content) > 2 && content[:2] == "->" {
			if err := os.Symlink(content[2:], p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Tree creates a temporary directory holding files (see [Write]) and returns
// its path.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	Write(t, dir, files)
	return dir
}

// Copy copies the directory tree src into a new temporary directory and
// returns its path. Tests that change files work on a copy of a fixture.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Snapshot returns every regular file under dir with its content, keyed by
// slash-separated relative path, to check later that nothing changed. A
// symlink is recorded as "->target" and not followed.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = "->" + target
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Unchanged fails the test for every file of dir that differs from
// before (a [Snapshot]): changed, removed, or added since.
func Unchanged(t testing.TB, before map[string]string, dir string) {
	t.Helper()
	after := Snapshot(t, dir)
	for p, c := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Errorf("%s was removed", p)
		case a != c:
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was added", p)
		}
	}
}
