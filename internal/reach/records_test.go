package reach

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/tsdecl"
)

// fakeTSRecorder answers a fixed record (relative paths, made absolute
// under root) and counts its requests for the disk, with the last one's
// reuse.
type fakeTSRecorder struct {
	root      string
	edges     map[string][][2]string // from → [specifier, target]
	asks      int
	lastReuse bool
}

func (f *fakeTSRecorder) Lifetime() context.Context { return context.Background() }

func (f *fakeTSRecorder) Imports(_ context.Context, _, _ string, overlay map[string]*string, reuse bool) (tsdecl.Imports, error) {
	if overlay == nil {
		f.asks++
		f.lastReuse = reuse
	}
	out := tsdecl.Imports{}
	for from, pairs := range f.edges {
		for _, p := range pairs {
			out[filepath.Join(f.root, from)] = append(out[filepath.Join(f.root, from)], [2]string{p[0], filepath.Join(f.root, p[1])})
		}
	}
	return out, nil
}

// No check waits for TypeScript's record of a disk state whose files and
// JSON are the last record's: the record kept answers, and the files
// changed since are taken as importing anything, so an interface change
// reaches them (an import the compiler would now record and Anvil's
// reading misses) while a body-only change reaches nobody. A background
// refresh (RefreshTypeScript) makes the state's own record, reusing the
// compiler's program; a file created is another shape, asked at once.
func TestTypeScriptRecordKeptForLaterStatesOfTheSameShape(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true}}`,
		"a.ts":          "export function f(): number { return 1; }\n",
		"c.ts":          "export const c = 1;\n",
		"e.ts":          "export const e = 1;\n",
	})
	root, parser, files := scanned(t, dir)
	rec := &fakeTSRecorder{root: root.Dir(), edges: map[string][][2]string{"c.ts": {{"./a", "a.ts"}}}}
	g := New(root, parser)
	g.records = rec
	base := []byte("export function f(): number { return 1; }\n")
	iface := &changeset.Change{Path: "a.ts", Base: base, BaseExists: true, Content: []byte("export function f(): string { return \"1\"; }\n")}
	body := &changeset.Change{Path: "a.ts", Base: base, BaseExists: true, Content: []byte("export function f(): number { return 2; }\n")}
	dependants := func(c *changeset.Change) Dependants {
		t.Helper()
		d, err := g.Dependants(context.Background(), files, []*changeset.Change{c}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	if d := dependants(iface); !slices.Contains(d.Files, "c.ts") || slices.Contains(d.Files, "e.ts") || !d.Recorded || rec.asks != 1 {
		t.Fatalf("the first state: dependants %v, recorded %v after %d asks; want c.ts by the record, asked once", d.Files, d.Recorded, rec.asks)
	}

	// e.ts's content changes on disk: the same shape.
	testfs.Write(t, dir, map[string]string{"e.ts": "export const e = 2; // now with an import the reading misses\n"})
	files = scanFiles(t, root)
	if !g.TypeScriptStale(files) {
		t.Fatal("a later state, and the record kept is not stale")
	}
	d := dependants(iface)
	if rec.asks != 1 {
		t.Fatalf("a check of a later state of the same shape asked the compiler (%d asks)", rec.asks)
	}
	if !slices.Contains(d.Files, "c.ts") || !slices.Contains(d.Files, "e.ts") || d.Recorded {
		t.Fatalf("the record kept: dependants %v, recorded %v; want c.ts by the record, e.ts as changed since, and not recorded", d.Files, d.Recorded)
	}
	if d := dependants(body); len(d.Files) != 0 {
		t.Errorf("a body-only change reached %v", d.Files)
	}

	g.RefreshTypeScript(context.Background(), files)
	if rec.asks != 2 || !rec.lastReuse || g.TypeScriptStale(files) {
		t.Fatalf("the refresh: %d asks (reuse %v), stale %v; want one more, reusing the program", rec.asks, rec.lastReuse, g.TypeScriptStale(files))
	}
	if d := dependants(iface); !slices.Contains(d.Files, "c.ts") || slices.Contains(d.Files, "e.ts") || !d.Recorded || rec.asks != 2 {
		t.Fatalf("after the refresh: dependants %v, recorded %v after %d asks", d.Files, d.Recorded, rec.asks)
	}

	// A file created: another shape, asked at once, without reuse.
	testfs.Write(t, dir, map[string]string{"g.ts": "export const g = 1;\n"})
	files = scanFiles(t, root)
	if d := dependants(iface); !d.Recorded || rec.asks != 3 || rec.lastReuse {
		t.Fatalf("another shape: recorded %v after %d asks (reuse %v); want asked at once, afresh", d.Recorded, rec.asks, rec.lastReuse)
	}
}
