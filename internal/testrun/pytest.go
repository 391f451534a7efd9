package testrun

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// pytestRunner runs a Python project's tests with pytest, the failures
// read from pytest's short summary. With the import graph, only the test
// modules that import a changed module (directly or not) run.
type pytestRunner struct {
	python string
	tests  []string // the test modules to run; none: every test
}

func (r pytestRunner) command() string {
	return strings.Join(append([]string{r.python, "-m", "pytest"}, r.tests...), " ")
}

// forChanges selects the test modules among the changed files and their
// dependants. It keeps every test when it cannot be sure: a change to
// something other than a module (a conftest.py, data, configuration), or
// no test module found (a test may reach the code another way).
func (r pytestRunner) forChanges(ctx context.Context, s *Stage, set *changeset.Set) runner {
	if s.opts.Importers == nil {
		return r
	}
	var files []string
	for _, c := range set.Changes() {
		if filepath.Ext(c.Path) != ".py" || filepath.Base(c.Path) == "conftest.py" {
			return r
		}
		if !c.Delete {
			files = append(files, c.Path)
		}
	}
	snap, err := shadow.Scan(ctx, s.root)
	if err != nil {
		return r
	}
	deps, err := s.opts.Importers.Importers(ctx, snap, set.Changes(), 5000)
	if err != nil || deps.Capped {
		return r
	}
	for _, f := range append(files, deps.Files...) {
		if base := filepath.Base(f); (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")) && !slices.Contains(r.tests, f) {
			r.tests = append(r.tests, f)
		}
	}
	slices.Sort(r.tests)
	return r
}

// summaryLine is a line of pytest's -rfE summary: "FAILED tests/test_a.py::test_b - AssertionError".
var summaryLine = regexp.MustCompile(`^(FAILED|ERROR) (\S+)`)

func (r pytestRunner) run(ctx context.Context, s *Stage, changes []sandbox.Change, only []string) (*outcome, error) {
	argv := []string{r.python, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "--color=no"}
	if only != nil {
		argv = append(argv, only...)
	} else {
		argv = append(argv, r.tests...)
	}
	res, err := s.exec(ctx, changes, argv...)
	if err != nil {
		return nil, err
	}
	o := newOutcome()
	out := string(res.Output)
	for _, line := range strings.Split(out, "\n") {
		if m := summaryLine.FindStringSubmatch(line); m != nil {
			o.failed[m[2]] = true
			o.output[m[2]] = section(out, m[2])
			if m[1] == "FAILED" {
				o.retry[m[2]] = m[2]
			}
		}
	}
	// Exit 5: no tests collected; 0 and 1 are read from the summary.
	if res.ExitCode > 1 && res.ExitCode != 5 && len(o.failed) == 0 && !res.Killed {
		o.failed["pytest"] = true
		o.output["pytest"] = out
	}
	return o, nil
}

// section returns pytest's report of the failing test nodeid: the block
// under its "____ name ____" header.
func section(out, nodeid string) string {
	name := nodeid[strings.LastIndex(nodeid, "::")+2:]
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "_") && strings.Contains(l, " "+name+" ") {
			var b strings.Builder
			for _, m := range lines[i+1:] {
				if strings.HasPrefix(m, "____") || strings.HasPrefix(m, "====") {
					break
				}
				b.WriteString(m + "\n")
			}
			return b.String()
		}
	}
	return ""
}
