package testrun

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Each verdict the run stage used to get wrong, as a user would meet it.

const calcPy = "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n\n\ndef double(x):\n    return 2 * x\n"

// unittestProject is tested with unittest, one test already failing.
var unittestProject = map[string]string{
	"calc.py": calcPy,
	"tests/test_calc.py": `import unittest

from calc import clamp, double


class TestCalc(unittest.TestCase):
    def test_clamp(self):
        self.assertEqual(clamp(5, 0, 3), 3)

    def test_double(self):
        self.assertEqual(double(3), 6)

    def test_known_broken(self):
        self.assertEqual(1, 2)
`,
}

// breakDouble is a type-correct behaviour break the tests catch.
var breakDouble = map[string]string{"calc.py": strings.Replace(calcPy, "return 2 * x", "return 2 + x", 1)}

// withInterpreter adds .venv/bin/python to files: Debian's Python, with
// or without its site packages (pytest among them).
func withInterpreter(files map[string]string, site bool) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		out[p] = c
	}
	flag := " -S"
	if site {
		flag = ""
	}
	out[".venv/bin/python"] = "#!/bin/sh\nexec /usr/bin/python3" + flag + " \"$@\"\n"
	return out
}

func executable(t *testing.T, dir, rel string) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, rel), 0o755); err != nil {
		t.Fatal(err)
	}
}

// unittest without pytest: each test's own result, the failing one
// pre-existing, the newly broken one named.
func TestUnittestPerTest(t *testing.T) {
	s, root, dir := stage(t, withInterpreter(unittestProject, false))
	executable(t, dir, ".venv/bin/python")
	rep := s.Run(context.Background(), setOf(t, root, breakDouble))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"test_calc.TestCalc.test_double"}) ||
		!slices.Equal(rep.Preexisting, []string{"test_calc.TestCalc.test_known_broken"}) || !strings.Contains(rep.Output, "AssertionError") {
		t.Fatalf("%+v", rep)
	}
	if rep.Tests != 3 {
		t.Errorf("%d tests ran, want 3", rep.Tests)
	}
}

// A configured command without per-test results, over a tree whose tests
// already fail, cannot tell a new failure from the old one: unverified,
// with the way out; with a JUnit report it can, test by test.
func TestConfiguredCommandWithFailingBaseline(t *testing.T) {
	t.Run("exit status only", func(t *testing.T) {
		s, root, _ := stage(t, unittestProject, "PATH=/usr/bin:/bin")
		s.opts.Test = "python3 -m unittest discover -s tests -t ."
		rep := s.Run(context.Background(), setOf(t, root, breakDouble))
		if rep.Status != shadow.RunUnverified || !strings.Contains(rep.Reason, "junit:PATH") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("a JUnit report", func(t *testing.T) {
		s, root, _ := stage(t, pyProject, "PATH=/usr/bin:/bin")
		s.opts.Test = "python3 -m pytest -q -p no:cacheprovider --junitxml=build/results.xml tests"
		s.opts.Report = "junit:build/results.xml"
		rep := s.Run(context.Background(), setOf(t, root, map[string]string{"calc.py": "def clamp(x, lo, hi):\n    return min(lo, max(hi, x))\n"}))
		if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"tests.test_calc.test_clamp"}) ||
			!slices.Contains(rep.Preexisting, "tests.test_calc.test_known_broken") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("a report path outside the tree", func(t *testing.T) {
		s, root, _ := stage(t, pyProject, "PATH=/usr/bin:/bin")
		victim := filepath.Join(t.TempDir(), "victim.xml")
		if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root.Dir(), victim)
		s.opts.Test = "true"
		s.opts.Report = "junit:" + filepath.ToSlash(rel)
		rep := s.Run(context.Background(), setOf(t, root, map[string]string{"calc.py": "def clamp(x, lo, hi):\n    return min(lo, max(hi, x))\n"}))
		// An error, which the gate counts as unverified: never passed.
		if rep.Status == shadow.RunPassed || !strings.Contains(rep.Reason, "not a path inside the workspace") {
			t.Errorf("a report outside the tree: %+v", rep)
		}
		if b, err := os.ReadFile(victim); err != nil || string(b) != "mine" {
			t.Fatalf("the file outside the tree was touched: %q %v", b, err)
		}
	})
}

// brokenPackageModule has a package that does not build (and imports
// the one that changes, so it is among those the change affects), beside
// one whose test the change breaks.
var brokenPackageModule = map[string]string{
	"go.mod":           "module example.com/m\n\ngo 1.22\n",
	"sorted/sorted.go": strings.Replace(sortedGo, "package sorted", "package sorted", 1),
	"sorted/sorted_test.go": `package sorted

import "testing"

func TestIsSorted(t *testing.T) {
	if !IsSorted([]int{1, 2, 3}) || IsSorted([]int{3, 1}) {
		t.Fatal("IsSorted is wrong")
	}
}
`,
	"broken/broken.go": "package broken\n\nimport \"example.com/m/sorted\"\n\nvar _ = sorted.IsSorted\n\nfunc Broken() int { return \"not an int\" }\n",
	"other/other.go":   "package other\n\n// Other has no test.\nfunc Other() int { return 1 }\n",
}

// One package that does not build hides nothing: every other package's
// tests still run, and the break is named.
func TestGoBrokenPackageHidesNothing(t *testing.T) {
	s, root, _ := stage(t, brokenPackageModule)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"sorted/sorted.go": strings.Replace(sortedGo, "xs[i-1] > xs[i]", "xs[i-1] < xs[i]", 1)}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"example.com/m/sorted.TestIsSorted"}) ||
		!slices.Equal(rep.Preexisting, []string{"build example.com/m/broken"}) {
		t.Fatalf("%+v", rep)
	}
	if !strings.Contains(rep.Command, "example.com/m/sorted") || strings.Contains(rep.Command, "example.com/m/other") {
		t.Errorf("the affected packages are the changed one and its importers: %s", rep.Command)
	}
}

// A change no test covers is not "passed": nothing checked it.
func TestNoTestRanIsUnverified(t *testing.T) {
	s, root, _ := stage(t, brokenPackageModule)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"other/other.go": "package other\n\n// Other has no test.\nfunc Other() int { return 2 }\n"}))
	if rep.Status != shadow.RunUnverified || !strings.Contains(rep.Reason, "no test ran") {
		t.Fatalf("%+v", rep)
	}
}

// flakyBaseModule has a test that fails on its first run only, and that
// the change breaks for good.
var flakyBaseModule = map[string]string{
	"go.mod": "module example.com/f\n\ngo 1.22\n",
	"f.go":   "package f\n\n// Answer is the answer.\nfunc Answer() int { return 42 }\n",
	"f_test.go": `package f

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAnswer(t *testing.T) {
	marker := filepath.Join(os.Getenv("FLAKY_DIR"), "answer-ran")
	if _, err := os.Stat(marker); err != nil {
		os.WriteFile(marker, nil, 0o644)
		t.Fatal("flaked on its first run")
	}
	if Answer() != 42 {
		t.Fatal("wrong answer")
	}
}
`,
}

// A test that failed once in the baseline is re-run alone before it
// counts as pre-existing: a flake there is no licence for a real break.
func TestBaselineFlakeIsNoLicence(t *testing.T) {
	s, root, _ := stage(t, flakyBaseModule)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"f.go": "package f\n\n// Answer is the answer.\nfunc Answer() int { return 41 }\n"}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"example.com/f.TestAnswer"}) || len(rep.Preexisting) != 0 {
		t.Fatalf("%+v", rep)
	}
}

// Concurrent requests over one tree compute its baseline once.
func TestBaselineOnceForConcurrentRequests(t *testing.T) {
	s, root, _ := stage(t, goProject)
	var wg sync.WaitGroup
	reps := make([]*shadow.RunReport, 4)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i] = s.Run(context.Background(), setOf(t, root, map[string]string{"sorted.go": sortedGo + strings.Repeat("\n", i+1)}))
		}()
	}
	wg.Wait()
	for _, rep := range reps {
		if rep.Status != shadow.RunPassed {
			t.Fatalf("%+v", rep)
		}
	}
	if n := s.baselineRuns.Load(); n != 1 {
		t.Fatalf("the baseline ran %d times, want once", n)
	}
}

// The baseline's key covers what the tests depend on besides the files:
// installed packages, lock files and the commands' environment.
func TestBaselineKeyCoversDependenciesAndEnvironment(t *testing.T) {
	s, root, dir := stage(t, map[string]string{
		"package.json": `{"name": "x", "devDependencies": {"vitest": "3.2.4"}}`, "package-lock.json": "{}\n",
		"node_modules/.package-lock.json": "{}\n", "node_modules/dep/index.js": "module.exports = 1;\n", "index.js": "1;\n",
	})
	r := commandRunner{test: "true"}
	ctx := context.Background()
	key := func() string {
		k, err := s.baselineKey(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := key()
	later := func(rel, content string) {
		time.Sleep(10 * time.Millisecond)
		testfs.Write(t, dir, map[string]string{rel: content})
	}
	for _, c := range []struct{ what, rel, content string }{
		{"an install", "node_modules/.package-lock.json", "{\"packages\": {}}\n"},
		{"the lock file", "package-lock.json", "{\"lockfileVersion\": 3}\n"},
	} {
		later(c.rel, c.content)
		if k := key(); k == first {
			t.Errorf("%s did not change the baseline's key", c.what)
		} else {
			first = k
		}
	}
	other := New(root, Options{Policy: policyOf(root, []string{"PATH=/usr/bin", "GOFLAGS=-tags=integration"}, nil, nil)})
	if k, _ := other.baselineKey(ctx, r); k == first {
		t.Error("another environment has the same baseline key")
	}
}

// The shadow tree lies over the workspace: an edit during the run makes
// the run unverified, whatever it found.
func TestWorkspaceChangedDuringTheRun(t *testing.T) {
	s, root, dir := stage(t, map[string]string{"check.sh": "sleep 1\n", "state.txt": "good\n"})
	s.opts.Test = "sh check.sh"
	set := setOf(t, root, map[string]string{"state.txt": "good, still\n"})
	if rep := s.Run(context.Background(), set); rep.Status != shadow.RunPassed {
		t.Fatalf("%+v", rep)
	}
	done := make(chan *shadow.RunReport)
	go func() { done <- s.Run(context.Background(), set) }()
	time.Sleep(300 * time.Millisecond)
	testfs.Write(t, dir, map[string]string{"edited-meanwhile.txt": "x\n"})
	if rep := <-done; rep.Status != shadow.RunUnverified || !strings.Contains(rep.Reason, "changed while the tests ran") {
		t.Fatalf("%+v", rep)
	}
}

// pytest: a test that reaches the change only through a conftest.py
// fixture runs, and its failure is named.
func TestPytestSelectsFixtureUsers(t *testing.T) {
	files := map[string]string{
		"pytest.ini": "[pytest]\n",
		"calc.py":    calcPy,
		"tests/conftest.py": "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n\nimport pytest\n\nfrom calc import double\n\n\n" +
			"@pytest.fixture\ndef doubled():\n    return double(21)\n",
		"tests/test_fixture.py": "def test_doubled(doubled):\n    assert doubled == 42\n",
		"other/test_other.py":   "def test_other():\n    assert True\n",
	}
	s, root, _ := stage(t, files, "PATH=/usr/bin:/bin")
	parser := syntax.New(syntax.Options{})
	t.Cleanup(parser.Close)
	s.opts.Importers = reach.New(root, parser)
	rep := s.Run(context.Background(), setOf(t, root, breakDouble))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"tests/test_fixture.py::test_doubled"}) || !strings.HasSuffix(rep.Command, "pytest tests") {
		t.Fatalf("%+v", rep)
	}
}

// The commands' environment is an allow-list: no provider key, agent
// socket or token reaches code under test.
func TestEnvironmentIsAllowListed(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"a.txt": "a\n"})
	root := rootOf(t, dir)
	s := New(root, Options{Policy: policyOf(root, []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "ANTHROPIC_API_KEY=sk-ant-secret", "OPENAI_API_KEY=sk-secret",
		"SSH_AUTH_SOCK=/run/user/0/ssh", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus", "GITHUB_TOKEN=ghp_secret", "GOFLAGS=-mod=mod", "MY_SETTING=kept"},
		[]string{"MY_SETTING"}, nil)})
	res, err := (&call{Stage: s}).exec(context.Background(), nil, execSpec{argv: []string{"env"}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	for _, leak := range []string{"secret", "SSH_AUTH_SOCK", "DBUS_SESSION", "GITHUB_TOKEN"} {
		if strings.Contains(out, leak) {
			t.Errorf("%s reached the command:\n%s", leak, out)
		}
	}
	for _, kept := range []string{"GOFLAGS=-mod=mod", "MY_SETTING=kept", "TMPDIR=/tmp"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s did not reach the command:\n%s", kept, out)
		}
	}
}

// What Hidden names is not visible to the stage's commands (Anvil's
// state and configuration, credential stores), nor is the rest of the
// home, and the home is not written.
func TestStageHidesStateConfigAndCredentials(t *testing.T) {
	// Outside /tmp, as a real home is (the commands' /tmp is their own).
	home, err := os.MkdirTemp("/var/tmp", "anvil-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	testfs.Write(t, home, map[string]string{
		".ssh/id_ed25519": "PRIVATE KEY", ".config/anvil/config.toml": "provider = \"anthropic\"\n",
		".local/state/anvil/journal/x": "{}", ".netrc": "machine x password p", "notes.txt": "SECRET notes\n",
		".claude/.credentials.json": "SECRET", ".codex/auth.json": "SECRET", ".config/git/credentials": "SECRET", ".bash_history": "SECRET",
		".gitconfig": "[user]\n\tname = Tester\n",
	})
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	dir := testfs.Tree(t, map[string]string{"a.txt": "a\n"})
	root := rootOf(t, dir)
	s := New(root, Options{Policy: policyOf(root, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, nil, Hidden(getenv))})
	script := `cat ~/.ssh/id_ed25519 ~/.netrc; ls -A ~/.config/anvil ~/.local/state/anvil; cat ~/notes.txt ~/.claude/.credentials.json ~/.codex/auth.json ~/.config/git/credentials ~/.bash_history ~/.gitconfig
echo pwned >> ~/.bashrc; echo pwned > ~/.config/anvil/config.toml`
	res, err := (&call{Stage: s}).exec(context.Background(), nil, execSpec{argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	for _, leak := range []string{"PRIVATE KEY", "password", "config.toml\n", "journal", "SECRET"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q is visible to the command:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, "name = Tester") {
		t.Errorf("git's configuration should be visible:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, ".bashrc")); err == nil {
		t.Error("the home was written")
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".config/anvil/config.toml")); strings.Contains(string(b), "pwned") {
		t.Error("Anvil's configuration was written")
	}
}

func rootOf(t *testing.T, dir string) *workspace.Root {
	t.Helper()
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// vitestProject's test prints a line shaped like the start of a report.
func vitestProject() map[string]string {
	return map[string]string{
		"package.json": `{"name": "calc", "private": true, "type": "module", "devDependencies": {"vitest": "3.2.4"}}`,
		"src/calc.ts":  sumTS,
		"src/calc.test.ts": "import { expect, test } from \"vitest\";\nimport { clamp } from \"./calc\";\n\n" +
			"test(\"clamps\", () => {\n  console.log(JSON.stringify({ numbers: [1, 2] }));\n  expect(clamp(5, 0, 3)).toBe(3);\n});\n",
	}
}

// The JavaScript runners' results come from their report file: a test
// that logs report-shaped JSON hides nothing, and a run that fails with
// every test passing (an unhandled error) is a failure.
func TestJSReportFromItsFile(t *testing.T) {
	s, root, dir := stage(t, vitestProject())
	withVitest(t, dir)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"src/calc.ts": strings.Replace(sumTS, "Math.max(lo, Math.min(hi, x))", "Math.min(lo, Math.max(hi, x))", 1)}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"src/calc.test.ts > clamps"}) {
		t.Fatalf("a break behind report-shaped output: %+v", rep)
	}
	rep = s.Run(context.Background(), setOf(t, root, map[string]string{"src/calc.ts": sumTS + "\nsetTimeout(() => { throw new Error(\"unhandled\"); }, 0);\n"}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"vitest (exit status 1)"}) {
		t.Fatalf("an unhandled error with every test passing: %+v", rep)
	}
}

// A Rust workspace: a crate that does not compile is its own failure, and
// the others' tests still run and name the break.
func TestCargoBrokenCrateHidesNothing(t *testing.T) {
	rustup := rustupEnv(t)
	s, root, _ := stage(t, map[string]string{
		"Cargo.toml":        "[workspace]\nmembers = [\"clamp\", \"broken\"]\n",
		"clamp/Cargo.toml":  "[package]\nname = \"clamp\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"clamp/src/lib.rs":  clampRS,
		"broken/Cargo.toml": "[package]\nname = \"broken\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"broken/src/lib.rs": "pub fn broken() -> i64 { \"not a number\" }\n",
	}, rustup...)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"clamp/src/lib.rs": strings.Replace(clampRS, "x.max(lo).min(hi)", "x.min(lo).max(hi)", 1)}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"tests::clamps"}) ||
		!slices.Equal(rep.Preexisting, []string{"build broken", "tests::known_broken"}) {
		t.Fatalf("%+v", rep)
	}
}

// A module's dependencies in a module cache under /tmp (containers and CI
// set HOME=/tmp), which the commands' private /tmp would hide: the
// stage asks go where the cache is and shows it, so a behaviour break is
// a failed test, not "no test ran" over a build that cannot find its
// dependency.
func TestGoDependencyInATmpHome(t *testing.T) {
	home := t.TempDir() // under /tmp
	proxy := goProxy(t, "example.com/dep", "v1.0.0", map[string]string{
		"go.mod": "module example.com/dep\n\ngo 1.22\n",
		"dep.go": "package dep\n\n// Less orders two ints.\nfunc Less(a, b int) bool { return a < b }\n",
	})
	dir := testfs.Tree(t, map[string]string{
		"go.mod":         "module example.com/sorted\n\ngo 1.22\n",
		"sorted.go":      "package sorted\n\nimport \"example.com/dep\"\n\n// IsSorted reports whether xs is in ascending order.\nfunc IsSorted(xs []int) bool {\n\tfor i := 1; i < len(xs); i++ {\n\t\tif dep.Less(xs[i], xs[i-1]) {\n\t\t\treturn false\n\t\t}\n\t}\n\treturn true\n}\n",
		"sorted_test.go": "package sorted\n\nimport \"testing\"\n\nfunc TestIsSorted(t *testing.T) {\n\tif !IsSorted([]int{1, 2, 3}) || IsSorted([]int{3, 1}) {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
	})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GOTOOLCHAIN=local", "GOSUMDB=off", "GOFLAGS=-modcacherw"}
	get := exec.Command("go", "get", "example.com/dep@v1.0.0")
	get.Dir, get.Env = dir, append(env, "GOPROXY=file://"+proxy)
	if out, err := get.CombinedOutput(); err != nil {
		t.Fatalf("go get: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, "go", "pkg", "mod", "example.com", "dep@v1.0.0")); err != nil {
		t.Fatalf("the module cache is not in the home: %v", err)
	}
	root := rootOf(t, dir)
	s := New(root, Options{Policy: policyOf(root, append(env, "GOPROXY=off"), nil, nil)})
	broken := strings.Replace(fileText(t, dir, "sorted.go"), "dep.Less(xs[i], xs[i-1])", "dep.Less(xs[i-1], xs[i])", 1)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"sorted.go": broken}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"example.com/sorted.TestIsSorted"}) {
		t.Fatalf("status %s, failed %v, pre-existing %v (reason %q)\n%s", rep.Status, rep.Failed, rep.Preexisting, rep.Reason, rep.Output)
	}
}

// goProxy lays out a GOPROXY directory holding module path at version,
// its files as given.
func goProxy(t *testing.T, path, version string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	at := filepath.Join(dir, filepath.FromSlash(path), "@v")
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for name, content := range files {
		w, err := zw.Create(path + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, content)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, at, map[string]string{"list": version + "\n", version + ".info": `{"Version":"` + version + `"}`, version + ".mod": files["go.mod"], version + ".zip": zipped.String()})
	return dir
}

func fileText(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A command stopped by a bound of the run says which in the verdict: a
// change that makes the tests fill the private /tmp fails, and the
// report names [run] tmp_size with its value; a file past [run]
// file_size likewise.
func TestBoundHitIsStated(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
		limits             sandbox.Limits
	}{
		{"tmp_size", "dd if=/dev/zero of=/tmp/big bs=64k count=$(cat blocks.txt)", "the run hit [run] tmp_size = 1M", sandbox.Limits{Tmp: 1 << 20}},
		{"file_size", "dd if=/dev/zero of=big bs=64k count=$(cat blocks.txt)", "the run hit [run] file_size = 1M", sandbox.Limits{FileSize: 1 << 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, root, _ := stage(t, map[string]string{"check.sh": tc.script + "\n", "blocks.txt": "4\n"})
			s.opts.Test, s.opts.Limits = "sh check.sh", tc.limits
			rep := s.Run(context.Background(), setOf(t, root, map[string]string{"blocks.txt": "64\n"}))
			if rep.Status != shadow.RunFailed || !strings.Contains(rep.Note, tc.want) {
				t.Fatalf("status %s, note %q, reason %q", rep.Status, rep.Note, rep.Reason)
			}
			if rep := s.Run(context.Background(), setOf(t, root, map[string]string{"blocks.txt": "8\n"})); rep.Status != shadow.RunPassed || strings.Contains(rep.Note, "hit") {
				t.Fatalf("within the bound: status %s, note %q", rep.Status, rep.Note)
			}
		})
	}
}
