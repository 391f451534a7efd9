package testrun

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/sandbox"
)

// unittestDriver runs the tests with a result that records each one
// (unittest_driver.py): unittest's own output is for people, and a test
// can print a line that looks like a result.
//
//go:embed unittest_driver.py
var unittestDriver string

// unittestRunner runs a Python project's unittest tests, one result per
// test, where pytest is not installed. With the import graph, only the
// test modules that import a changed module, directly or not, run.
type unittestRunner struct {
	python string
	ids    []string // the test modules to run, as dotted names; none: discover every test
	note   string
}

func (r unittestRunner) command() string {
	if len(r.ids) == 0 {
		return r.python + " -m unittest discover"
	}
	return r.python + " -m unittest " + strings.Join(r.ids, " ")
}

func (r unittestRunner) forChanges(ctx context.Context, s *call, set *changeset.Set) runner {
	tests, note, ok := pythonSelection(ctx, s, set, func(base string) bool {
		return strings.HasPrefix(base, "test") && strings.HasSuffix(base, ".py")
	}, false)
	if !ok {
		return r
	}
	for _, t := range tests {
		r.ids = append(r.ids, moduleName(t))
	}
	r.note = note
	return r
}

// moduleName is a test file's module as unittest names it: its path from
// the root, or from a tests/ or test/ directory that is not a package.
func moduleName(rel string) string {
	return strings.ReplaceAll(strings.TrimSuffix(rel, ".py"), "/", ".")
}

// unittestResult is one test's line of the driver's report.
type unittestResult struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Output string `json:"output"`
}

const unittestReport = "unittest.json"

func (r unittestRunner) run(ctx context.Context, s *call, changes []sandbox.Change, only []string) (*outcome, error) {
	argv := []string{r.python, "-c", unittestDriver, sandbox.ReportDir + "/" + unittestReport}
	res, o, killed, err := s.execTests(ctx, changes, argv, r.ids, only, r.note)
	if err != nil || killed {
		return o, err
	}
	var results []unittestResult
	data, ok := res.Reports[unittestReport]
	if !ok || json.Unmarshal(data, &results) != nil {
		runFailed(o, "unittest", res, "the tests wrote no report")
		return o, nil
	}
	o.tests = 0
	for _, t := range results {
		o.tests++
		if t.Status != "fail" {
			continue
		}
		o.failed[t.ID] = true
		o.output[t.ID] = t.Output
		// A module that failed to import is named by unittest's loader;
		// re-running it by that name finds nothing.
		if !strings.HasPrefix(t.ID, "unittest.loader.") {
			o.retry[t.ID] = unittestSelector(t.ID)
		}
	}
	return o, nil
}

// unittestSelector is what re-runs a test alone: a subtest's id ("mod.C.t
// (x=1)") re-runs its test.
func unittestSelector(id string) string {
	if i := strings.Index(id, " "); i > 0 {
		return id[:i]
	}
	return id
}
