package testrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// detect picks the runner: the configured commands, else the project's
// ecosystem. Whatever it has to run to decide runs in the shadow tree
// too, bounded.
func (s *call) detect(ctx context.Context) (runner, error) {
	if s.opts.Test != "" || s.opts.Build != "" {
		return commandRunner{build: s.opts.Build, test: s.opts.Test, report: s.opts.Report}, nil
	}
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(s.root.Dir(), name))
		return err == nil
	}
	if has("go.mod") {
		if _, err := sandbox.LookPath("go", s.env); err == nil {
			return goRunner{}, nil
		}
	}
	if has("Cargo.toml") {
		if _, err := sandbox.LookPath("cargo", s.env); err == nil {
			return cargoRunner{}, nil
		}
	}
	if has("package.json") {
		for _, tool := range []string{"vitest", "jest"} {
			bin := filepath.Join("node_modules", ".bin", tool)
			if has(bin) && fileHas(filepath.Join(s.root.Dir(), "package.json"), `"`+tool+`"`) {
				return jsRunner{tool: tool, bin: bin}, nil
			}
		}
	}
	// A Python project: pytest's or unittest's, whichever the
	// interpreter has, discovers its tests (none found: no test ran).
	if slices.ContainsFunc([]string{"pytest.ini", "conftest.py", "pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "tests", "test"}, has) {
		// The project's virtual environment first, then the Python the
		// commands' PATH finds.
		for _, py := range []string{filepath.Join(s.root.Dir(), ".venv", "bin", "python"), filepath.Join(s.root.Dir(), "venv", "bin", "python"), "python3", "python"} {
			path, err := sandbox.LookPath(py, s.env)
			if err != nil {
				continue
			}
			p, err := s.probePython(ctx, path)
			if err != nil {
				return nil, err
			}
			switch {
			case p.pytest:
				return pytestRunner{python: path}, nil
			case p.runs:
				return unittestRunner{python: path}, nil
			}
		}
	}
	return nil, nil
}

// probeResult is what an interpreter can run.
type probeResult struct{ runs, pytest bool }

// probeTimeout bounds an interpreter check.
const probeTimeout = time.Minute

// probePython asks python, in the shadow tree, whether it has pytest;
// cached by the interpreter's path and modification time.
func (s *call) probePython(ctx context.Context, python string) (probeResult, error) {
	key := python
	if info, err := os.Stat(python); err == nil {
		key += "\x00" + info.ModTime().String()
	}
	s.mu.Lock()
	p, ok := s.probes[key]
	s.mu.Unlock()
	if ok {
		return p, nil
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	res, err := s.exec(ctx, nil, execSpec{argv: []string{python, "-c", "import sys\ntry:\n import pytest\nexcept ImportError:\n sys.exit(3)"}})
	if err != nil {
		return p, err
	}
	if res.Killed {
		return p, fmt.Errorf("checking %s for pytest did not finish within %s", python, probeTimeout)
	}
	p = probeResult{runs: res.ExitCode == 0 || res.ExitCode == 3, pytest: res.ExitCode == 0}
	s.mu.Lock()
	s.probes[key] = p
	s.mu.Unlock()
	return p, nil
}

func fileHas(path, s string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), s)
}

// commandRunner runs configured shell commands. Without a report, pass
// or fail is their exit status; with one ("junit:PATH"), each test's.
type commandRunner struct{ build, test, report string }

func (r commandRunner) command() string {
	switch {
	case r.build != "" && r.test != "":
		return r.build + " && " + r.test
	case r.build != "":
		return r.build
	}
	return r.test
}

func (r commandRunner) run(ctx context.Context, s *call, changes []sandbox.Change, only []string) (*outcome, error) {
	o := newOutcome()
	o.tests, o.opaque = -1, true
	reportPath := ""
	if r.report != "" {
		reportPath = strings.TrimPrefix(r.report, "junit:")
		// A report left in the tree by an earlier run is not this run's.
		changes = append(slices.Clone(changes), sandbox.Change{Path: reportPath, Delete: true})
	}
	for _, step := range []struct{ name, line string }{{"build", r.build}, {"test", r.test}} {
		if step.line == "" {
			continue
		}
		e := execSpec{argv: []string{"sh", "-c", step.line}}
		if step.name == "test" && reportPath != "" {
			// Read back through the report directory: the command's own
			// path in the shadow tree, copied out when it is done.
			e.argv = []string{"sh", "-c", step.line + "\nstatus=$?; cp -- \"$1\" " + sandbox.ReportDir + "/junit.xml 2>/dev/null; exit $status", "sh", reportPath}
			e.reports = true
		}
		res, err := s.exec(ctx, changes, e)
		if err != nil {
			return nil, err
		}
		if res.Killed {
			return o, nil
		}
		if step.name == "test" && reportPath != "" {
			data, ok := res.Reports["junit.xml"]
			if !ok {
				return nil, fmt.Errorf("the test command wrote no report at %s ([run] report)", reportPath)
			}
			o.opaque = false
			// A failure is re-run (the whole command: it has no way to
			// run one test) before it counts as pre-existing.
			if err := readJUnit(data, o, junitName, func(junitCase) string { return "test" }); err != nil {
				return nil, fmt.Errorf("the test command's report %s: %w", reportPath, err)
			}
			if res.ExitCode != 0 && len(o.failed) == 0 {
				name := fmt.Sprintf("test (exit status %d)", res.ExitCode)
				o.failed[name] = true
				o.output[name] = trimOutput(string(res.Output), 40)
			}
			return o, nil
		}
		if res.ExitCode != 0 {
			o.failed[step.name] = true
			o.output[step.name] = trimOutput(string(res.Output), 40)
			if step.name == "test" {
				o.retry["test"] = "test"
			}
			return o, nil
		}
	}
	return o, nil
}
