package reach

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// fakeRecorder is pyright's or the compilers' record, fixed (relative
// paths, made absolute under root), or failing; it counts its runs and
// keeps what the last was asked of (pyright's projects, the units).
type fakeRecorder struct {
	root  string
	edges map[string][]string
	err   error
	runs  int
	asked []string
}

func (f *fakeRecorder) PythonImports(_ context.Context, projects []string) (map[string][]string, error) {
	return f.record(projects)
}

func (f *fakeRecorder) CIncludes(_ context.Context, units []string) (map[string][]string, error) {
	return f.record(units)
}

func (f *fakeRecorder) record(asked []string) (map[string][]string, error) {
	f.runs++
	f.asked = asked
	if f.err != nil {
		return nil, f.err
	}
	out := map[string][]string{}
	for from, ts := range f.edges {
		for _, t := range ts {
			if !filepath.IsAbs(t) {
				t = filepath.Join(f.root, t)
			}
			out[filepath.Join(f.root, from)] = append(out[filepath.Join(f.root, from)], t)
		}
	}
	return out, nil
}

// pyright's record adds the importers Anvil's reading misses; no check
// waits for it (the record kept is used, made in the background); a
// record of an older shape still adds; a shape whose record failed is not
// asked again.
func TestDependantsTakePyrightsRecord(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"extra/nspkg/mod.py": "def f() -> int:\n    return 1\n",
		"app/uses.py":        "from nspkg.mod import f\n\nx: int = f()\n",
		"app/other.py":       "print(1)\n",
	})
	root, parser, files := scanned(t, dir)
	rec := &fakeRecorder{root: root.Dir(), edges: map[string][]string{"app/uses.py": {"extra/nspkg/mod.py", "/elsewhere/typeshed.pyi"}}}
	g := New(root, parser).WithPython(rec)
	content := []byte("def f() -> str:\n    return \"1\"\n")
	c := &changeset.Change{Path: "extra/nspkg/mod.py", Content: content, Base: []byte("def f() -> int:\n    return 1\n"), BaseExists: true}
	cold := false
	dependants := func() []string {
		t.Helper()
		d, err := g.Dependants(context.Background(), files, []*changeset.Change{c}, 100)
		if err != nil {
			t.Fatal(err)
		}
		cold = d.PythonUnrecorded
		return d.Files
	}
	if got := dependants(); slices.Contains(got, "app/uses.py") || rec.runs != 0 || !cold {
		t.Fatalf("before any record: dependants %v, %d runs, unrecorded %v; want Anvil's reading alone, no run, and said", got, rec.runs, cold)
	}
	if !g.PythonStale(files) {
		t.Fatal("no record, and not stale")
	}
	g.RefreshPython(context.Background(), files)
	if got := dependants(); !slices.Contains(got, "app/uses.py") || slices.Contains(got, "app/other.py") || cold {
		t.Fatalf("with the record: dependants %v (unrecorded %v), want app/uses.py alone", got, cold)
	}
	if g.PythonStale(files) {
		t.Error("a record of this shape, and stale")
	}
	// A file created: another shape. The record kept still adds.
	testfs.Write(t, dir, map[string]string{"app/new.py": "print(2)\n"})
	files = scanFiles(t, root)
	if !g.PythonStale(files) || !slices.Contains(dependants(), "app/uses.py") {
		t.Errorf("another shape: stale %v, dependants %v", g.PythonStale(files), dependants())
	}
	// A record that fails is not asked again for that shape.
	rec.err, rec.runs = errors.New("pyright crashed"), 0
	g.RefreshPython(context.Background(), files)
	g.RefreshPython(context.Background(), files)
	if rec.runs != 1 || g.PythonStale(files) || !slices.Contains(dependants(), "app/uses.py") {
		t.Errorf("after a failure: %d runs, stale %v, dependants %v", rec.runs, g.PythonStale(files), dependants())
	}
}

// The record is asked of every pyright project the Python files belong
// to (the nearest configuration above each, the root's first), as the
// batch checker runs them.
func TestPyrightsRecordCoversEveryProject(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"pyrightconfig.json":       `{"include": ["app"]}`,
		"app/main.py":              "print(1)\n",
		"tools/pyrightconfig.json": "{}",
		"tools/run.py":             "print(2)\n",
		"tools/sub/deep.py":        "print(3)\n",
		"lib/pyproject.toml":       "[tool.pyright]\n",
		"lib/x.py":                 "print(4)\n",
		"other/pyproject.toml":     "[project]\nname = \"o\"\n",
		"other/y.py":               "print(5)\n",
	})
	root, parser, files := scanned(t, dir)
	rec := &fakeRecorder{root: root.Dir()}
	g := New(root, parser).WithPython(rec)
	g.RefreshPython(context.Background(), files)
	if got := strings.Join(rec.asked, " "); got != ". lib tools" {
		t.Errorf("projects asked %q, want \". lib tools\" (other/'s pyproject.toml configures no pyright)", got)
	}
}

// With more pyright projects than a record runs, the files of the ones
// past it have no recorded imports, and any of them may import a changed
// file: a Python interface change is unrecorded, as at a cold start,
// record or not (the code before this test took the partial record as
// whole). At the bound it is not.
func TestAPartialPyrightRecordIsAColdStart(t *testing.T) {
	for _, tc := range []struct {
		projects int
		want     bool
	}{{maxPyRecordProjects, false}, {maxPyRecordProjects + 1, true}} {
		dir := t.TempDir()
		layout := map[string]string{}
		for i := range tc.projects {
			layout[fmt.Sprintf("p%d/pyrightconfig.json", i)] = "{}"
			layout[fmt.Sprintf("p%d/mod.py", i)] = "def f() -> int:\n    return 1\n"
		}
		testfs.Write(t, dir, layout)
		root, parser, files := scanned(t, dir)
		g := New(root, parser).WithPython(&fakeRecorder{root: root.Dir()})
		g.RefreshPython(context.Background(), files)
		c := &changeset.Change{Path: "p0/mod.py", Content: []byte("def f() -> str:\n    return \"1\"\n"), Base: []byte(layout["p0/mod.py"]), BaseExists: true}
		d, err := g.Dependants(context.Background(), files, []*changeset.Change{c}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if d.PythonUnrecorded != tc.want {
			t.Errorf("%d projects, a record made: unrecorded %v, want %v", tc.projects, d.PythonUnrecorded, tc.want)
		}
	}
}

// The pyright projects of a workspace are grouped as the batch checker
// groups them: each Python file under its nearest configuring directory,
// the root's first; a project's file is the first it does not leave out,
// and none when it leaves out all of them.
func TestPythonProjectsGroupAsTheBatchChecker(t *testing.T) {
	dir := t.TempDir()
	layout := map[string]string{
		"pyrightconfig.json":       "{}",
		"a.py":                     "",
		"pkg/b.py":                 "",
		"tools/pyrightconfig.json": `{"exclude": ["aaa_skip.py"]}`,
		"tools/aaa_skip.py":        "",
		"tools/main.py":            "",
		"other/pyrightconfig.json": `{"include": ["src"]}`,
		"other/x.py":               "",
		"README.md":                "",
	}
	testfs.Write(t, dir, layout)
	files := Files{}
	for rel := range layout {
		files[rel] = FileStat{Abs: filepath.Join(dir, rel)}
	}
	got := PythonProjects(dir, files)
	want := []PythonProject{{".", "a.py"}, {"other", ""}, {"tools", "tools/main.py"}}
	if !slices.Equal(got, want) {
		t.Errorf("PythonProjects = %v, want %v", got, want)
	}
}
