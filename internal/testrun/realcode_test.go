package testrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// realRunProject is a real project's source and its own test suite, with
// a seeded type-correct behaviour break that suite catches.
type realRunProject struct {
	name string
	// setup lays the project out in dir and returns the environment its
	// tests need.
	setup func(t testing.TB, dir string) []string
	// file is changed by replacing from with to.
	file, from, to string
	// failing names a test the break must fail.
	failing string
}

func realRunProjects() []realRunProject {
	return []realRunProject{
		{name: "cobra v1.10.2 (Go, go test)", setup: cobraProject,
			file: "args.go", from: "if len(args) != n {", to: "if len(args) < n {", failing: "github.com/spf13/cobra.TestExactArgs_WithInvalidCount"},
		{name: "toolz 0.12.0 (Python, pytest)", setup: toolzProject,
			file: "toolz/itertoolz.py", from: "d[item] += 1", to: "d[item] += 2", failing: "toolz/tests/test_itertoolz.py::test_frequencies"},
		{name: "simplejson 3.18.3 (Python, unittest)", setup: simplejsonProject,
			file: "simplejson/encoder.py", from: "    item_separator = ', '", to: "    item_separator = ',  '", failing: "simplejson.tests.test_dump.TestDump.test_"},
	}
}

// cobraProject is spf13/cobra from the Go module proxy, its dependencies
// in the corpus's module cache, tested offline.
func cobraProject(t testing.TB, dir string) []string {
	src := testCorpus().GoModule(t, "github.com/spf13/cobra", "v1.10.2")
	testfs.Write(t, dir, testfs.Snapshot(t, src))
	env := []string{"GOMODCACHE=" + testCorpus().GoModCache(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	return append(env, "GOPROXY=off")
}

// debianPython lays out a Debian python3-* package's module (its .py
// files, tests included) at dir.
func debianPython(t testing.TB, dir, pkg, module string) {
	src := filepath.Join(testCorpus().DebianPackage(t, pkg), "root", "usr", "lib", "python3", "dist-packages", module)
	files := map[string]string{}
	for p, c := range testfs.Snapshot(t, src) {
		if strings.HasSuffix(p, ".py") {
			files[module+"/"+p] = c
		}
	}
	testfs.Write(t, dir, files)
}

// toolzProject is python3-toolz, run with Debian's pytest.
func toolzProject(t testing.TB, dir string) []string {
	debianPython(t, dir, "python3-toolz", "toolz")
	testfs.Write(t, dir, map[string]string{"pyproject.toml": "[project]\nname = \"toolz\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"toolz/tests\"]\n"})
	return []string{"PATH=/usr/bin:/bin"}
}

// simplejsonProject is python3-simplejson with an interpreter that has no
// pytest (Debian's Python without its site packages): unittest runs it.
func simplejsonProject(t testing.TB, dir string) []string {
	debianPython(t, dir, "python3-simplejson", "simplejson")
	testfs.Write(t, dir, withInterpreter(map[string]string{"setup.cfg": "[metadata]\nname = simplejson\n"}, false))
	if err := os.Chmod(filepath.Join(dir, ".venv/bin/python"), 0o755); err != nil {
		t.Fatal(err)
	}
	return nil
}

// Real projects' own suites reject their seeded break, naming the test,
// and pass a benign edit.
func TestRealProjectSuites(t *testing.T) {
	for _, p := range realRunProjects() {
		t.Run(p.name, func(t *testing.T) {
			dir := t.TempDir()
			env := p.setup(t, dir)
			s, root, _ := stageAt(t, dir, env...)
			content, err := os.ReadFile(filepath.Join(dir, p.file))
			if err != nil || !strings.Contains(string(content), p.from) {
				t.Fatalf("the seeded break's anchor is gone from %s: %v", p.file, err)
			}
			start := time.Now()
			rep := s.Run(context.Background(), setOf(t, root, map[string]string{p.file: strings.Replace(string(content), p.from, p.to, 1)}))
			t.Logf("the break: %s, %d tests, %d failing, in %s", rep.Status, rep.Tests, len(rep.Failed), time.Since(start).Round(time.Millisecond))
			if rep.Status != shadow.RunFailed || !strings.Contains(strings.Join(rep.Failed, "\n"), p.failing) {
				t.Fatalf("status %s, failed %v, pre-existing %v, reason %q", rep.Status, rep.Failed, rep.Preexisting, rep.Reason)
			}
			rep = s.Run(context.Background(), setOf(t, root, map[string]string{p.file: string(content) + "\n"}))
			if rep.Status != shadow.RunPassed || rep.Tests == 0 {
				t.Fatalf("a benign edit: %+v", rep)
			}
		})
	}
}
