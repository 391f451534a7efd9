package testrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// goRunner builds every package and runs every test of a Go module. It
// asks for all of them and lets the go command's test cache skip what the
// change cannot reach: a cached result is keyed by the test binary, which
// covers every file of the package and its dependencies, and the shadow
// tree keeps the workspace's path, so the cache the user's own runs
// filled stays valid.
type goRunner struct{}

func (goRunner) command() string { return "go build ./... && go test ./..." }

// goEvent is a line of go test -json. Build output comes as
// "build-output" events of an ImportPath, which the package's "fail"
// names as FailedBuild.
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

func (goRunner) run(ctx context.Context, s *Stage, changes []sandbox.Change, only []string) (*outcome, error) {
	o := newOutcome()
	if only == nil {
		res, err := s.exec(ctx, changes, "go", "build", "./...")
		if err != nil {
			return nil, err
		}
		if res.ExitCode != 0 {
			o.failed["build"] = true
			o.output["build"] = string(res.Output)
			return o, nil
		}
	}
	argv := []string{"go", "test", "-json"}
	if only != nil {
		pkgs, run := selection(only)
		argv = append(append(argv, "-count=1", "-run", run), pkgs...)
	} else {
		argv = append(argv, "./...")
	}
	res, err := s.exec(ctx, changes, argv...)
	if err != nil {
		return nil, err
	}
	parseGoTest(res.Output, o)
	if res.ExitCode != 0 && len(o.failed) == 0 && !res.Killed {
		// Failed without naming a test: the test build, or go itself.
		o.failed["go test"] = true
		o.output["go test"] = string(res.Output)
	}
	return o, nil
}

// parseGoTest records each failed test as "package.Test" (subtests as
// "package.Test/sub"), a package that failed outside its tests (a test
// build error, TestMain) as "package", with their output.
func parseGoTest(out []byte, o *outcome) {
	outputs := map[string]*strings.Builder{}
	testsFailed := map[string]bool{} // packages with a failed test
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	builds := map[string]*strings.Builder{}
	failedBuild := map[string]string{} // package → its failed build
	for sc.Scan() {
		var e goEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action == "build-output" {
			b := builds[e.ImportPath]
			if b == nil {
				b = &strings.Builder{}
				builds[e.ImportPath] = b
			}
			b.WriteString(e.Output)
			continue
		}
		if e.Package == "" {
			continue
		}
		if e.FailedBuild != "" {
			failedBuild[e.Package] = e.FailedBuild
		}
		name := e.Package
		if e.Test != "" {
			name += "." + e.Test
		}
		switch e.Action {
		case "output":
			b := outputs[name]
			if b == nil {
				b = &strings.Builder{}
				outputs[name] = b
			}
			if b.Len() < 64<<10 {
				b.WriteString(e.Output)
			}
		case "fail":
			if e.Test != "" {
				o.failed[name] = true
				top, _, _ := strings.Cut(e.Test, "/")
				o.retry[name] = e.Package + "\x00" + top
				testsFailed[e.Package] = true
			} else if !testsFailed[e.Package] {
				o.failed[name] = true
			}
		}
	}
	for name := range o.failed {
		if b := outputs[name]; b != nil {
			o.output[name] = b.String()
		}
		if fb, ok := failedBuild[name]; ok && builds[fb] != nil {
			o.output[name] = builds[fb].String() + o.output[name]
		}
	}
}

// selection turns retry selectors ("package\x00TopLevelTest") into
// packages and a -run pattern of the test names.
func selection(tests []string) (pkgs []string, run string) {
	names := map[string]bool{}
	seen := map[string]bool{}
	for _, t := range tests {
		pkg, name, ok := strings.Cut(t, "\x00")
		if !ok {
			continue
		}
		if !seen[pkg] {
			seen[pkg] = true
			pkgs = append(pkgs, pkg)
		}
		names[regexp.QuoteMeta(name)] = true
	}
	var alts []string
	for n := range names {
		alts = append(alts, n)
	}
	slices.Sort(alts)
	return pkgs, fmt.Sprintf("^(%s)$", strings.Join(alts, "|"))
}
