package reach

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A source file too large to read for imports imports what it may: it
// is a dependant of every change of its language that changes an
// interface (it was none: its imports were never read, nor its
// compiler's record of them taken). A data file that large imports
// nothing.
func TestAFileTooLargeToScanMayImportAnything(t *testing.T) {
	padding := strings.Repeat("// generated\n", (maxImportScanSize/13)+1)
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"tsconfig.json":   `{"compilerOptions": {"strict": true}, "include": ["src"]}`,
		"src/count.ts":    "export function count(): number { return 1; }\n",
		"src/huge.ts":     "import { count } from \"./count\";\nexport const n: number = count();\n" + padding,
		"src/data.json":   "[" + strings.Repeat("1,", maxImportScanSize) + "1]",
		"src/plain.ts":    "export const p = 1;\n",
		"app/mod.py":      "def f() -> int:\n    return 1\n",
		"app/big.py":      "from app.mod import f\n" + strings.ReplaceAll(padding, "//", "#"),
		"app/__init__.py": "",
	})
	root, parser, snap := scanned(t, dir)
	for _, tc := range []struct {
		file, after string
		want        string
	}{
		{"src/count.ts", "export function count(): string { return \"1\"; }\n", "src/huge.ts"},
	} {
		ch := &changeset.Change{Path: tc.file}
		if err := ch.ReadBase(root); err != nil {
			t.Fatal(err)
		}
		ch.Content = []byte(tc.after)
		d, err := New(root, parser).Dependants(context.Background(), snap, []*changeset.Change{ch}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(d.Files, tc.want) {
			t.Errorf("%s: dependants %v, want %s", tc.file, d.Files, tc.want)
		}
	}
}
