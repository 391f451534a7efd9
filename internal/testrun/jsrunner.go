package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/sandbox"
)

// jsRunner runs a JavaScript or TypeScript project's tests with its own
// vitest or jest, from its node_modules, reading their shared JSON report.
// With the changed source files known, only the tests related to them run
// (vitest related, jest --findRelatedTests: the test files that import
// them, directly or not), on the unchanged tree and with the change alike.
type jsRunner struct {
	tool    string   // "vitest" or "jest"
	bin     string   // node_modules/.bin/<tool>, relative to the root
	related []string // changed source files; none: every test
}

// jsSource are the extensions whose tests the runners can relate.
var jsSource = map[string]bool{".ts": true, ".tsx": true, ".mts": true, ".cts": true, ".js": true, ".jsx": true, ".mjs": true, ".cjs": true}

func (r jsRunner) forChanges(_ context.Context, _ *call, set *changeset.Set) runner {
	var files []string
	changes := set.Changes()
	for _, c := range changes {
		if !c.Delete && jsSource[filepath.Ext(c.Path)] {
			files = append(files, c.Path)
		}
	}
	if len(files) == 0 || len(files) < len(changes) {
		return r // a change the runners cannot relate (a config, a deletion): every test
	}
	r.related = files
	return r
}

func (r jsRunner) command() string {
	return strings.Join(r.argv(nil), " ")
}

// argv is the command line; only, when set, re-runs those test files.
func (r jsRunner) argv(only []string) []string {
	argv := []string{r.bin}
	switch {
	case r.tool == "vitest" && only != nil:
		argv = append(append(argv, "run"), only...)
	case r.tool == "vitest" && len(r.related) > 0:
		argv = append(append(argv, "related"), r.related...)
		argv = append(argv, "--run")
	case r.tool == "vitest":
		argv = append(argv, "run")
	case only != nil:
		argv = append(argv, only...)
	case len(r.related) > 0:
		argv = append(append(argv, "--findRelatedTests"), r.related...)
	}
	return argv
}

// jsReport is the part of the JSON report (jest's format, which vitest
// also writes) the runner reads.
type jsReport struct {
	TestResults []struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			FullName        string   `json:"fullName"`
			Status          string   `json:"status"`
			FailureMessages []string `json:"failureMessages"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// jsReportFile is the report's name in the report directory.
const jsReportFile = "report.json"

func (r jsRunner) run(ctx context.Context, s *call, changes []sandbox.Change, only []string) (*outcome, error) {
	argv := r.argv(only)
	// The report goes to a file of its own: a test can print anything,
	// a report-shaped line included, on the output.
	report := sandbox.ReportDir + "/" + jsReportFile
	if r.tool == "vitest" {
		argv = append(argv, "--reporter=json", "--outputFile="+report)
	} else {
		argv = append(argv, "--json", "--outputFile="+report, "--ci", "--passWithNoTests")
	}
	res, err := s.exec(ctx, changes, execSpec{argv: argv, reports: true})
	if err != nil {
		return nil, err
	}
	o := newOutcome()
	if res.Killed {
		return o, nil
	}
	if len(r.related) > 0 && only == nil {
		o.note = "the tests related to " + strings.Join(r.related, ", ")
	}
	data, ok := res.Reports[jsReportFile]
	var rep jsReport
	if !ok || json.Unmarshal(data, &rep) != nil {
		if res.ExitCode == 0 {
			return nil, fmt.Errorf("%s exited 0 but wrote no report to %s:\n%s", r.tool, report, trimOutput(string(res.Output), 20))
		}
		runFailed(o, r.tool, res, "it wrote no report")
		return o, nil
	}
	o.tests = 0
	for _, f := range rep.TestResults {
		file, err := filepath.Rel(s.root.Dir(), f.Name)
		if err != nil {
			file = f.Name
		}
		file = filepath.ToSlash(file)
		if len(f.AssertionResults) == 0 && f.Status == "failed" {
			// The file failed to load (a syntax or import error).
			o.failed[file] = true
			o.output[file] = f.Message
			continue
		}
		for _, a := range f.AssertionResults {
			switch a.Status {
			case "passed":
				o.tests++
			case "failed":
				o.tests++
				name := file + " > " + a.FullName
				o.failed[name] = true
				o.output[name] = ownFrames(strings.Join(a.FailureMessages, "\n"))
				o.retry[name] = file
			}
		}
	}
	// The exit status counts too: a run that fails with every test
	// passing (an unhandled error, a failed teardown, a coverage
	// threshold) is a failure of the run.
	if res.ExitCode != 0 && len(o.failed) == 0 {
		runFailed(o, r.tool, res, "the run failed with no test failing")
	}
	return o, nil
}

// ownFrames drops the stack frames of the test runner and of Node itself
// from a failure message: what is left is the assertion and where in the
// project's code it failed.
func ownFrames(msg string) string {
	var keep []string
	for _, l := range strings.Split(msg, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "at ") && (strings.Contains(t, "node_modules") || strings.Contains(t, "node:internal") || strings.Contains(t, "<anonymous>")) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}
