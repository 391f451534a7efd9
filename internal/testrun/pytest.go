package testrun

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// pytestRunner runs a Python project's tests with pytest, reading the
// results per test from the JUnit XML report pytest writes itself. With
// the import graph, only the tests a change can reach run: the test
// modules that import a changed module, directly or not, and every test
// below a conftest.py that does (its fixtures reach the change for the
// tests that use them, whatever those import).
type pytestRunner struct {
	python string
	tests  []string // the test modules and directories to run; none: every test
	note   string
}

func (r pytestRunner) command() string {
	return strings.Join(append([]string{r.python, "-m", "pytest"}, r.tests...), " ")
}

// forChanges selects the tests among the changed files and their
// dependants. It keeps every test when it cannot be sure: a change to
// something other than a module (data, configuration), or no test found
// (a test may reach the code another way).
func (r pytestRunner) forChanges(ctx context.Context, s *call, set *changeset.Set) runner {
	tests, note, ok := pythonSelection(ctx, s, set, isPytestModule, true)
	if ok {
		r.tests, r.note = tests, note
	}
	return r
}

// isPytestModule is pytest's default test module pattern.
func isPytestModule(base string) bool {
	return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// pythonSelection returns the test modules (and, with conftests, the
// directories below a conftest.py) among the changed files and their
// importers; ok is false when every test must run.
func pythonSelection(ctx context.Context, s *call, set *changeset.Set, isTest func(string) bool, conftests bool) (tests []string, note string, ok bool) {
	if s.opts.Importers == nil {
		return nil, "", false
	}
	var files []string
	for _, c := range set.Changes() {
		if filepath.Ext(c.Path) != ".py" {
			return nil, "", false
		}
		if !c.Delete {
			files = append(files, c.Path)
		}
	}
	snap, err := shadow.Scan(ctx, s.root)
	if err != nil {
		return nil, "", false
	}
	deps, err := s.opts.Importers.Importers(ctx, snap.Files, set.Changes(), 5000)
	if err != nil || deps.Capped {
		return nil, "", false
	}
	var dirs []string
	for _, f := range append(files, deps.Files...) {
		base := path.Base(f)
		switch {
		case conftests && base == "conftest.py":
			dir := path.Dir(f)
			if !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		case isTest(base) && !slices.Contains(tests, f):
			tests = append(tests, f)
		}
	}
	if slices.Contains(dirs, ".") {
		return nil, "", false // a conftest.py at the root: every test
	}
	// A directory's tests include the modules below it.
	tests = slices.DeleteFunc(tests, func(t string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(t, d+"/") })
	})
	tests = append(tests, dirs...)
	if len(tests) == 0 {
		return nil, "", false
	}
	slices.Sort(tests)
	return tests, fmt.Sprintf("%d of the project's tests selected: those that import the change, directly or not, and those below a conftest.py that does", len(tests)), true
}

// junitFile is pytest's report's name in the report directory.
const junitFile = "junit.xml"

func (r pytestRunner) run(ctx context.Context, s *call, changes []sandbox.Change, only []string) (*outcome, error) {
	argv := []string{r.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no",
		"--junitxml=" + sandbox.ReportDir + "/" + junitFile, "-o", "junit_family=xunit1"}
	res, o, killed, err := s.execTests(ctx, changes, argv, r.tests, only, r.note)
	if err != nil || killed {
		return o, err
	}
	report, ok := res.Reports[junitFile]
	if !ok {
		runFailed(o, "pytest", res, "pytest wrote no report")
		return o, nil
	}
	retry := func(c junitCase) string {
		if c.File == "" {
			return "" // a collection error: nothing to select
		}
		return pytestNodeID(c)
	}
	if err := readJUnit(report, o, pytestNodeID, retry); err != nil {
		return nil, fmt.Errorf("pytest's report: %w", err)
	}
	// Exit 0: passed; 1: tests failed; 5: none collected. Anything else
	// (interrupted, an internal or usage error) with no failed test is
	// the run's failure.
	if res.ExitCode != 0 && res.ExitCode != 1 && res.ExitCode != 5 && len(o.failed) == 0 {
		runFailed(o, "pytest", res, "")
	}
	return o, nil
}

// pytestNodeID rebuilds a test's node id ("tests/test_a.py::TestB::test_c")
// from its JUnit entry: the file, and the class path left of the name
// once the module's dotted path is taken off.
func pytestNodeID(c junitCase) string {
	if c.File == "" {
		return junitName(c) // a collection error: named by its module
	}
	module := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(c.File), ".py"), "/", ".")
	classes := strings.TrimPrefix(strings.TrimPrefix(c.Classname, module), ".")
	id := c.File
	if classes != "" && classes != c.Classname {
		id += "::" + strings.ReplaceAll(classes, ".", "::")
	}
	return id + "::" + c.Name
}
