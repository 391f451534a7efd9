package reach

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The compilers' record of what a translation unit reads adds includers
// Anvil's reading does not see: here a table of any name a unit reads
// that no directive Anvil reads names (the record is a fake; shadow's
// TestCIncludesAsTheCompilerReads holds the real one to gcc). Without the
// record the table's change is no C change at all; the record is made in
// the background for the disk's shape, asked of every unit, kept for a
// later state of the same shape, and a shape whose record failed is not
// asked again.
func TestDependantsTakeTheCompilersRecord(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"compile_commands.json": `[{"directory": "` + dir + `", "command": "cc -c main.c", "file": "main.c"}]`,
		"main.c":                "int main(void) { return 0; }\n",
		"other.c":               "int other;\n",
		"data/table.txt":        "1, 2,\n",
	})
	root, parser, files := scanned(t, dir)
	rec := &fakeRecorder{root: root.Dir(), edges: map[string][]string{"main.c": {"data/table.txt", "/usr/include/stdio.h"}}}
	g := New(root, parser).WithC(rec)
	c := &changeset.Change{Path: "data/table.txt", Content: []byte("1,\n"), Base: []byte("1, 2,\n"), BaseExists: true}
	dependants := func() []string {
		t.Helper()
		d, err := g.Dependants(context.Background(), files, []*changeset.Change{c}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(slices.Values(d.Files))
	}
	if got := dependants(); len(got) != 0 || rec.runs != 0 {
		t.Fatalf("before any record: dependants %v, %d runs; want none (no check waits for a record)", got, rec.runs)
	}
	if !g.CStale(files) {
		t.Fatal("no record made, yet not stale")
	}
	g.RefreshC(context.Background(), files)
	if got := strings.Join(rec.asked, " "); got != "main.c other.c" {
		t.Errorf("the record was asked of %q, want every unit", got)
	}
	if got := dependants(); !slices.Equal(got, []string{"main.c"}) {
		t.Fatalf("with the record: dependants %v, want [main.c]", got)
	}
	g.RefreshC(context.Background(), files)
	if rec.runs != 1 || g.CStale(files) {
		t.Fatalf("the record was made again for the same shape (%d runs)", rec.runs)
	}
	// A state of another shape (a unit created) is stale; its record
	// fails, and the one kept still adds.
	files2 := Files{}
	for k, v := range files {
		files2[k] = v
	}
	files2["new.c"] = files["other.c"]
	rec.err = errors.New("the compiler could not run")
	g.RefreshC(context.Background(), files2)
	g.RefreshC(context.Background(), files2)
	if rec.runs != 2 || g.CStale(files2) {
		t.Fatalf("a failed shape was asked again, or stays stale (%d runs)", rec.runs)
	}
	if got := dependants(); !slices.Equal(got, []string{"main.c"}) {
		t.Fatalf("after a failed record: dependants %v, want the kept record's [main.c]", got)
	}
}
