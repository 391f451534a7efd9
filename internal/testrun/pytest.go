package testrun

import (
	"context"
	"regexp"
	"strings"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// pytestRunner runs a Python project's tests with pytest: every test (the
// selection of affected tests by import is not done yet), the failures
// read from pytest's short summary.
type pytestRunner struct{ python string }

func (r pytestRunner) command() string { return r.python + " -m pytest" }

// summaryLine is a line of pytest's -rfE summary: "FAILED tests/test_a.py::test_b - AssertionError".
var summaryLine = regexp.MustCompile(`^(FAILED|ERROR) (\S+)`)

func (r pytestRunner) run(ctx context.Context, s *Stage, changes []sandbox.Change, only []string) (*outcome, error) {
	argv := []string{r.python, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "--color=no"}
	argv = append(argv, only...)
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
