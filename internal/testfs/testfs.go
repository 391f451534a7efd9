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
