package testrun

import (
	"context"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// The test binary is also the shadow tree's helper.
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	os.Exit(m.Run())
}

const sortedGo = `package sorted

// IsSorted reports whether xs is in ascending order.
func IsSorted(xs []int) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i-1] > xs[i] {
			return false
		}
	}
	return true
}

// flaky makes TestFlaky fail on its first run.
const flaky = false
`

var goProject = map[string]string{
	"go.mod":    "module example.com/sorted\n\ngo 1.22\n",
	"sorted.go": sortedGo,
	"sorted_test.go": `package sorted

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsSorted(t *testing.T) {
	for _, tc := range []struct {
		xs   []int
		want bool
	}{{[]int{1, 2, 3}, true}, {[]int{3, 1}, false}, {nil, true}} {
		if got := IsSorted(tc.xs); got != tc.want {
			t.Errorf("IsSorted(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

// TestKnownBroken fails with or without any change.
func TestKnownBroken(t *testing.T) { t.Fatal("known to fail") }

// TestWritesFiles writes into the tree, as tests do.
func TestWritesFiles(t *testing.T) {
	if err := os.WriteFile("written-by-test.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFlaky fails the first time it runs with flaky set, then passes.
func TestFlaky(t *testing.T) {
	marker := filepath.Join(os.Getenv("FLAKY_DIR"), "ran")
	if _, err := os.Stat(marker); flaky && err != nil {
		os.WriteFile(marker, nil, 0o644)
		t.Fatal("flaked")
	}
}
`,
}

func stage(t testing.TB, files map[string]string, env ...string) (*Stage, *workspace.Root, string) {
	t.Helper()
	return stageAt(t, testfs.Tree(t, files), env...)
}

// stageAt is stage over the project laid out in dir.
func stageAt(t testing.TB, dir string, env ...string) (*Stage, *workspace.Root, string) {
	t.Helper()
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// A flaky test keeps its state where the shadow tree lets it write:
	// the Go runner's cache (the host's /tmp is not the tests').
	// The stage's caches are where its policy's environment puts them:
	// one cache for every test of the package (a cold Go build cache per
	// test costs minutes on 2 cores), outside /tmp like a user's.
	cacheHome, err := os.UserCacheDir()
	if err != nil {
		cacheHome = filepath.Join(home, ".cache")
	}
	cacheHome = filepath.Join(cacheHome, "anvil-testrun-tests")
	flaky := filepath.Join(cacheHome, "anvil", "go-build", "anvil-test-flaky", filepath.Base(dir))
	if err := os.MkdirAll(flaky, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(flaky) })
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + cacheHome, "GOPATH=" + filepath.Join(home, "go"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "FLAKY_DIR=" + flaky}
	s := New(root, Options{Policy: policyOf(root, append(base, env...), []string{"FLAKY_DIR"}, nil)})
	if got := s.cachePath("go-build"); !strings.HasPrefix(flaky, got+string(filepath.Separator)) {
		t.Fatalf("the stage's Go cache is %s, not under this test's HOME", got)
	}
	return s, root, dir
}

func setOf(t testing.TB, root *workspace.Root, files map[string]string) *changeset.Set {
	t.Helper()
	var specs []changeset.Spec
	for p, c := range files {
		specs = append(specs, changeset.Spec{Path: p, Content: &c})
	}
	set, err := changeset.Load(root, specs)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestGo(t *testing.T) {
	s, root, dir := stage(t, goProject)
	before := testfs.Snapshot(t, dir)
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		change     map[string]string
		status     string
		failed     []string
		flaky      []string
		wantOutput string
	}{
		{"a type-correct behaviour break", map[string]string{"sorted.go": strings.Replace(sortedGo, "xs[i-1] > xs[i]", "xs[i-1] < xs[i]", 1)},
			shadow.RunFailed, []string{"example.com/sorted.TestIsSorted"}, nil, "IsSorted([1 2 3]) = false, want true"},
		{"a benign change", map[string]string{"sorted.go": strings.Replace(sortedGo, "// IsSorted reports", "// IsSorted tells", 1)},
			shadow.RunPassed, nil, nil, ""},
		{"a test that fails once", map[string]string{"sorted.go": strings.Replace(sortedGo, "const flaky = false", "const flaky = true", 1)},
			shadow.RunPassed, nil, []string{"example.com/sorted.TestFlaky"}, ""},
		{"a build break", map[string]string{"sorted.go": sortedGo + "\nfunc broken() int { return \"x\" }\n"},
			shadow.RunFailed, []string{"build example.com/sorted"}, nil, "cannot use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := s.Run(ctx, setOf(t, root, tc.change))
			if rep.Status != tc.status || !slices.Equal(rep.Failed, tc.failed) || !slices.Equal(rep.Flaky, tc.flaky) {
				t.Fatalf("status %s, failed %v, flaky %v (reason %q)\n%s", rep.Status, rep.Failed, rep.Flaky, rep.Reason, rep.Output)
			}
			if tc.status != shadow.RunFailed || !strings.HasPrefix(tc.failed[0], "build ") {
				if !slices.Contains(rep.Preexisting, "example.com/sorted.TestKnownBroken") {
					t.Errorf("the pre-existing failure is not reported: %v", rep.Preexisting)
				}
			}
			if !strings.Contains(rep.Output, tc.wantOutput) {
				t.Errorf("output lacks %q:\n%s", tc.wantOutput, rep.Output)
			}
		})
	}
	testfs.Unchanged(t, before, dir)
	if len(s.baselines) != 1 {
		t.Errorf("the unchanged tree was run %d times, want once", len(s.baselines))
	}
}

var pyProject = map[string]string{
	"pytest.ini": "[pytest]\n",
	"calc.py":    "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n",
	"tests/test_calc.py": `from calc import clamp


def test_clamp():
    assert clamp(5, 0, 3) == 3
    assert clamp(-1, 0, 3) == 0


def test_known_broken():
    assert 1 == 2
`,
	"conftest.py": "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n",
	// Imports nothing that changes below: not run for those changes.
	"other.py":            "OTHER = 1\n",
	"tests/test_other.py": "from other import OTHER\n\n\ndef test_other_broken():\n    assert OTHER == 2\n",
}

func TestPytest(t *testing.T) {
	// Debian's Python, where apt installs pytest (scripts/install-deps.sh).
	s, root, dir := stage(t, pyProject, "PATH=/usr/bin:/bin")
	parser := syntax.New(syntax.Options{})
	t.Cleanup(parser.Close)
	s.opts.Importers = reach.New(root, parser)
	before := testfs.Snapshot(t, dir)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"calc.py": "def clamp(x, lo, hi):\n    return min(lo, max(hi, x))\n"}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"tests/test_calc.py::test_clamp"}) ||
		!slices.Equal(rep.Preexisting, []string{"tests/test_calc.py::test_known_broken"}) || !strings.Contains(rep.Output, "assert") ||
		!strings.HasSuffix(rep.Command, "pytest tests/test_calc.py") {
		t.Fatalf("%+v", rep)
	}
	rep = s.Run(context.Background(), setOf(t, root, map[string]string{"calc.py": "def clamp(x, lo, hi):\n    \"\"\"Clamp x.\"\"\"\n    return max(lo, min(hi, x))\n"}))
	if rep.Status != shadow.RunPassed {
		t.Fatalf("%+v", rep)
	}
	testfs.Unchanged(t, before, dir) // no __pycache__ either
}

func TestNothingToRun(t *testing.T) {
	s, root, _ := stage(t, map[string]string{"README.md": "x\n"})
	if rep := s.Run(context.Background(), setOf(t, root, map[string]string{"README.md": "y\n"})); rep.Status != shadow.RunSkipped {
		t.Fatalf("%+v", rep)
	}
}

func TestConfiguredCommand(t *testing.T) {
	s, root, _ := stage(t, map[string]string{"check.sh": "grep -q good state.txt\n", "state.txt": "good\n"})
	s.opts.Test = "sh check.sh"
	if rep := s.Run(context.Background(), setOf(t, root, map[string]string{"state.txt": "bad\n"})); rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"test"}) {
		t.Fatalf("%+v", rep)
	}
	if rep := s.Run(context.Background(), setOf(t, root, map[string]string{"state.txt": "good, still\n"})); rep.Status != shadow.RunPassed {
		t.Fatalf("%+v", rep)
	}
}

const sumTS = "export function clamp(x: number, lo: number, hi: number): number {\n  return Math.max(lo, Math.min(hi, x));\n}\n"

// A TypeScript project's vitest, from its own node_modules (copied in:
// a symlink would lead the tests' writes out of the shadow tree).
func TestVitest(t *testing.T) {
	s, root, dir := stage(t, map[string]string{
		"package.json": `{"name": "calc", "private": true, "type": "module", "devDependencies": {"vitest": "3.2.4"}}`,
		"src/calc.ts":  sumTS,
		"src/calc.test.ts": "import { expect, test } from \"vitest\";\nimport { clamp } from \"./calc\";\n\n" +
			"test(\"clamps\", () => {\n  expect(clamp(5, 0, 3)).toBe(3);\n  expect(clamp(-1, 0, 3)).toBe(0);\n});\n\n" +
			"test(\"known broken\", () => {\n  expect(1).toBe(2);\n});\n",
		// Not related to calc.ts: never run for a change to it.
		"src/other.ts":      "export const other = 1;\n",
		"src/other.test.ts": "import { expect, test } from \"vitest\";\nimport { other } from \"./other\";\n\ntest(\"other broken\", () => {\n  expect(other).toBe(2);\n});\n",
	})
	withVitest(t, dir)
	before := testfs.Snapshot(t, dir)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"src/calc.ts": strings.Replace(sumTS, "Math.max(lo, Math.min(hi, x))", "Math.min(lo, Math.max(hi, x))", 1)}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"src/calc.test.ts > clamps"}) ||
		!slices.Equal(rep.Preexisting, []string{"src/calc.test.ts > known broken"}) || !strings.Contains(rep.Output, "to be 3") || strings.Contains(rep.Output, "node_modules") ||
		!strings.Contains(rep.Command, "related src/calc.ts") {
		t.Fatalf("%+v", rep)
	}
	if rep := s.Run(context.Background(), setOf(t, root, map[string]string{"src/calc.ts": "// Clamp.\n" + sumTS})); rep.Status != shadow.RunPassed {
		t.Fatalf("%+v", rep)
	}
	testfs.Unchanged(t, before, dir)
}

const clampRS = "pub fn clamp(x: i64, lo: i64, hi: i64) -> i64 {\n    x.max(lo).min(hi)\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn clamps() {\n        assert_eq!(clamp(5, 0, 3), 3);\n        assert_eq!(clamp(-1, 0, 3), 0);\n    }\n\n    #[test]\n    fn known_broken() {\n        assert_eq!(1, 2);\n    }\n}\n"

// A Rust package: cargo, offline, its target directory outside the tree.
func TestCargo(t *testing.T) {
	rustup := rustupEnv(t)
	s, root, dir := stage(t, map[string]string{
		"Cargo.toml": "[package]\nname = \"clamp\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": clampRS,
	}, rustup...)
	before := testfs.Snapshot(t, dir)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"src/lib.rs": strings.Replace(clampRS, "x.max(lo).min(hi)", "x.min(lo).max(hi)", 1)}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"tests::clamps"}) ||
		!slices.Equal(rep.Preexisting, []string{"tests::known_broken"}) || !strings.Contains(rep.Output, "assertion") {
		t.Fatalf("%+v", rep)
	}
	if rep := s.Run(context.Background(), setOf(t, root, map[string]string{"src/lib.rs": "// Clamp.\n" + clampRS})); rep.Status != shadow.RunPassed {
		t.Fatalf("%+v", rep)
	}
	testfs.Unchanged(t, before, dir) // no target/, no Cargo.lock
}

// A stage that cannot run is an error, never a pass.
func TestUnavailableIsAnError(t *testing.T) {
	// The temporary directory the policy's environment names is inside
	// the workspace: no scratch can be made there.
	dir := testfs.Tree(t, goProject)
	s, root, _ := stageAt(t, dir, "TMPDIR="+dir)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"sorted.go": sortedGo + "\n"}))
	if rep.Status != shadow.RunError || !strings.Contains(rep.Reason, "no shadow tree") {
		t.Fatalf("%+v", rep)
	}
}

// A test file that no longer compiles fails its package, with the
// compiler's message.
func TestGoTestBuildFailure(t *testing.T) {
	s, root, _ := stage(t, goProject)
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"sorted_test.go": goProject["sorted_test.go"] + "\nfunc TestBroken(t *testing.T) { var x int = \"s\"; _ = x }\n"}))
	if rep.Status != shadow.RunFailed || !slices.Equal(rep.Failed, []string{"build example.com/sorted"}) || !strings.Contains(rep.Output, "cannot use") {
		t.Fatalf("%+v", rep)
	}
}

// zodProject is zod 3's source and its vitest tests, from npm, with
// vitest installed: a real project's suite.
func zodProject(t testing.TB) map[string]string {
	pkg := testCorpus().NPMPackage(t, "zod@3.25.76")
	files := map[string]string{
		"package.json": `{"name": "zod-corpus", "private": true, "type": "module", "devDependencies": {"vitest": "3.2.4"}}`,
		// The tests import "zod/v3": the package itself, here its source.
		"vitest.config.mjs": "import { fileURLToPath } from \"node:url\";\n" +
			"export default { resolve: { alias: { \"zod/v3\": fileURLToPath(new URL(\"./src/v3/index.ts\", import.meta.url)) } } };\n",
	}
	for p, c := range testfs.Snapshot(t, filepath.Join(pkg, "src", "v3")) {
		files["src/v3/"+p] = c
	}
	return files
}

func withVitest(t testing.TB, dir string) {
	if out, err := exec.Command("cp", "-a", filepath.Join(testCorpus().NPM(t, "vitest@3.2.4"), "node_modules"), filepath.Join(dir, "node_modules")).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// Real code: zod 3's own source and its 545 vitest tests, from npm. A
// type-correct off-by-one in string.min (the language servers accept it)
// is rejected with the failing tests named; a benign edit passes.
func TestZodRealCode(t *testing.T) {
	files := zodProject(t)
	s, root, dir := stage(t, files)
	withVitest(t, dir)
	before := testfs.Snapshot(t, dir)
	types := files["src/v3/types.ts"]
	const check = "if (input.data.length < check.value) {"
	if strings.Count(types, check) < 1 {
		t.Fatal("the mutation's anchor is gone from zod's source")
	}
	rep := s.Run(context.Background(), setOf(t, root, map[string]string{"src/v3/types.ts": strings.Replace(types, check, "if (input.data.length <= check.value) {", 1)}))
	if rep.Status != shadow.RunFailed || len(rep.Failed) == 0 || len(rep.Preexisting) != 0 || !strings.Contains(strings.Join(rep.Failed, "\n"), "src/v3/tests/string.test.ts > ") {
		t.Fatalf("status %s, %d failed: %v\nreason %q", rep.Status, len(rep.Failed), rep.Failed, rep.Reason)
	}
	rep = s.Run(context.Background(), setOf(t, root, map[string]string{"src/v3/types.ts": "// Edited.\n" + types}))
	if rep.Status != shadow.RunPassed {
		t.Fatalf("a benign edit: %+v", rep)
	}
	testfs.Unchanged(t, before, dir)
}

// policyOf is the execution policy of root for a run started with environ.
func policyOf(root *workspace.Root, environ, allow, hidden []string) *execpolicy.Policy {
	return execpolicy.New(execpolicy.Options{Root: root.Dir(), Environ: environ, EnvAllow: allow, Hidden: hidden})
}
