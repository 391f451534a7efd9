package testrun

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// jsRunner runs a JavaScript or TypeScript project's tests with its own
// vitest or jest, from its node_modules, reading their shared JSON report.
// Every test runs (their related-files selection is not used yet).
type jsRunner struct {
	tool string // "vitest" or "jest"
	bin  string // node_modules/.bin/<tool>, relative to the root
}

func (r jsRunner) command() string {
	if r.tool == "vitest" {
		return r.bin + " run"
	}
	return r.bin
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

func (r jsRunner) run(ctx context.Context, s *Stage, changes []sandbox.Change, only []string) (*outcome, error) {
	argv := []string{r.bin}
	if r.tool == "vitest" {
		argv = append(argv, "run", "--reporter=json")
	} else {
		argv = append(argv, "--json", "--ci")
	}
	argv = append(argv, only...) // test files, to re-run
	res, err := s.exec(ctx, changes, argv...)
	if err != nil {
		return nil, err
	}
	o := newOutcome()
	out := string(res.Output)
	i := strings.Index(out, `{"num`)
	var rep jsReport
	if i < 0 || json.NewDecoder(strings.NewReader(out[i:])).Decode(&rep) != nil {
		if res.ExitCode != 0 && !res.Killed {
			o.failed[r.tool] = true
			o.output[r.tool] = trimOutput(out, 40)
		}
		return o, nil
	}
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
			if a.Status != "failed" {
				continue
			}
			name := file + " > " + a.FullName
			o.failed[name] = true
			o.output[name] = ownFrames(strings.Join(a.FailureMessages, "\n"))
			o.retry[name] = file
		}
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
