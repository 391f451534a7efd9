package testrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// detect picks the runner: the configured commands, else the project's
// ecosystem.
func (s *Stage) detect() runner {
	if s.opts.Test != "" || s.opts.Build != "" {
		return commandRunner{build: s.opts.Build, test: s.opts.Test}
	}
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(s.root.Dir(), name))
		return err == nil
	}
	if has("go.mod") {
		if _, err := sandbox.LookPath("go", s.opts.Env); err == nil {
			return goRunner{}
		}
	}
	if has("Cargo.toml") {
		if _, err := sandbox.LookPath("cargo", s.opts.Env); err == nil {
			return cargoRunner{}
		}
	}
	if has("package.json") {
		for _, tool := range []string{"vitest", "jest"} {
			bin := filepath.Join("node_modules", ".bin", tool)
			if has(bin) && fileHas(filepath.Join(s.root.Dir(), "package.json"), `"`+tool+`"`) {
				return jsRunner{tool: tool, bin: bin}
			}
		}
	}
	if has("pytest.ini") || has("conftest.py") || has("tests") || has("test") || fileHas(filepath.Join(s.root.Dir(), "pyproject.toml"), "[tool.pytest") ||
		fileHas(filepath.Join(s.root.Dir(), "setup.cfg"), "[tool:pytest]") {
		// The project's virtual environment first, then the Python the
		// commands' PATH finds.
		for _, py := range []string{filepath.Join(s.root.Dir(), ".venv", "bin", "python"), filepath.Join(s.root.Dir(), "venv", "bin", "python"), "python3", "python"} {
			path, err := sandbox.LookPath(py, s.opts.Env)
			if err == nil && exec.Command(path, "-c", "import pytest").Run() == nil {
				return pytestRunner{python: path}
			}
		}
	}
	return nil
}

func fileHas(path, s string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), s)
}

// commandRunner runs configured shell commands; pass or fail is their
// exit status.
type commandRunner struct{ build, test string }

func (r commandRunner) command() string {
	switch {
	case r.build != "" && r.test != "":
		return r.build + " && " + r.test
	case r.build != "":
		return r.build
	}
	return r.test
}

func (r commandRunner) run(ctx context.Context, s *Stage, changes []sandbox.Change, only []string) (*outcome, error) {
	o := newOutcome()
	for _, step := range []struct{ name, line string }{{"build", r.build}, {"test", r.test}} {
		if step.line == "" {
			continue
		}
		res, err := s.exec(ctx, changes, "sh", "-c", step.line)
		if err != nil {
			return nil, err
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
