package tsconfig

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A pass looks at each project file once: a change made during it is
// the next pass's, and the projects themselves see it at once.
func TestPassLooksAtEachProjectFileOnce(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string, mtime time.Time) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Now().Add(-time.Hour)
	write("tsconfig.json", `{"include": ["src"]}`, then)
	write("src/a.ts", "export const a = 1;\n", then)
	file := filepath.Join(root, "src", "a.ts")

	projects := NewProjects(root)
	pass := projects.Pass()
	if pass.Owner(file) == nil {
		t.Fatal("the pass finds no project for src/a.ts")
	}
	write("tsconfig.json", `{"include": ["lib"]}`, time.Now())
	if pass.Owner(file) == nil {
		t.Error("the pass looked at tsconfig.json again: it took the change made during it")
	}
	if projects.Owner(file) != nil {
		t.Error("the projects kept tsconfig.json as it was before the change")
	}
	if projects.Pass().Owner(file) != nil {
		t.Error("the next pass kept tsconfig.json as it was before the change")
	}
}

// A project file is loaded again when a base it extends changes, though
// the project file itself did not.
func TestProjectsSeeABaseChange(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tsconfig.json", `{"extends": "./configs/base.json"}`)
	write("configs/base.json", `{"include": ["../src"]}`)
	write("src/a.ts", "export const a = 1;\n")
	file := filepath.Join(root, "src", "a.ts")
	projects := NewProjects(root)
	if projects.Owner(file) == nil {
		t.Fatal("no project for src/a.ts")
	}
	write("configs/base.json", `{"include": ["../lib"], "compilerOptions": {}}`)
	if projects.Owner(file) != nil {
		t.Error("the base's change was not seen: src/a.ts is still in the project")
	}
}
