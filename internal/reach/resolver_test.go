package reach

import (
	"context"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The resolver of one pass serves the next only over the same state: a
// tsconfig.json, or a base it extends, that maps a path elsewhere, a
// pyproject.toml that adds an import root, or a file created, is
// resolved afresh.
func TestResolverKeptForTheSameStateOnly(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"tsconfig.json": `{"extends": "./base.json"}`,
		"base.json":     `{"compilerOptions": {"strict": true, "paths": {"@lib/*": ["./one/*"]}}}`,
		"one/x.ts":      "export function f(): number { return 1; }\n",
		"two/x.ts":      "export function f(): number { return 1; }\n",
		"a.ts":          "import { f } from \"@lib/x\";\nexport const a = f();\n",
	})
	root, parser, files := scanned(t, dir)
	g := New(root, parser).WithoutRecords()
	importersOf := func(rel string) []string {
		t.Helper()
		c := &changeset.Change{Path: rel, BaseExists: true, Base: []byte("export function f(): number { return 1; }\n"),
			Content: []byte("export function f(): string { return \"1\"; }\n")}
		d, err := g.Dependants(context.Background(), files, []*changeset.Change{c}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return d.Files
	}
	for range 2 { // the second pass takes the kept resolver
		if got := importersOf("one/x.ts"); !slices.Contains(got, "a.ts") {
			t.Fatalf("one/x.ts: importers %v, want a.ts", got)
		}
	}
	testfs.Write(t, dir, map[string]string{"base.json": `{"compilerOptions": {"strict": true, "paths": {"@lib/*": ["./two/*"]}}}`})
	files = scanFiles(t, root)
	if got := importersOf("two/x.ts"); !slices.Contains(got, "a.ts") {
		t.Errorf("after the mapping moved: two/x.ts's importers %v, want a.ts", got)
	}
	if got := importersOf("one/x.ts"); slices.Contains(got, "a.ts") {
		t.Errorf("after the mapping moved: one/x.ts's importers %v still hold a.ts", got)
	}
	testfs.Write(t, dir, map[string]string{
		"vendor/helper.py": "def h() -> int:\n    return 1\n",
		"app/main.py":      "from helper import h\n\nx: int = h()\n",
		"pyproject.toml":   "[tool.pyright]\n",
	})
	files = scanFiles(t, root)
	py := &changeset.Change{Path: "vendor/helper.py", BaseExists: true, Base: []byte("def h() -> int:\n    return 1\n"), Content: []byte("def h() -> str:\n    return \"1\"\n")}
	pyImporters := func() []string {
		t.Helper()
		d, err := g.Dependants(context.Background(), files, []*changeset.Change{py}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return d.Files
	}
	pyImporters() // the pass kept
	testfs.Write(t, dir, map[string]string{"pyproject.toml": "[tool.pyright]\nextraPaths = [\"vendor\"]\n"})
	files = scanFiles(t, root)
	if got := pyImporters(); !slices.Contains(got, "app/main.py") {
		t.Errorf("after pyproject.toml added vendor to the import roots: vendor/helper.py's importers %v, want app/main.py", got)
	}
	testfs.Write(t, dir, map[string]string{"lib.ts": "export const l = 1;\n", "b.ts": "import { l } from \"./lib\";\nexport const b = l;\n"})
	files = scanFiles(t, root)
	c := &changeset.Change{Path: "lib.ts", BaseExists: true, Base: []byte("export const l = 1;\n"), Content: []byte("export const l = \"1\";\n")}
	if d, err := g.Dependants(context.Background(), files, []*changeset.Change{c}, 100); err != nil || !slices.Contains(d.Files, "b.ts") {
		t.Errorf("files created: lib.ts's importers %v (%v), want b.ts", d.Files, err)
	}
}
