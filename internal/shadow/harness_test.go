package shadow

import (
	"context"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"go/build"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// fixture returns the path of a project under testdata/projects.
func fixture(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "projects", name)
}

// harness is a copy of a fixture project with real language servers.
type harness struct {
	t    *testing.T
	dir  string
	root *workspace.Root
	mgr  *servers.Manager
	v    *Validator
}

type harnessOptions struct {
	// files overwrite or add fixture files before the servers start ("" deletes).
	files     map[string]string
	overrides []servers.Spec
	opts      Options
	noDeps    bool
	// noRecords leaves out TypeScript's and pyright's records of
	// imports: the graph has Anvil's own resolution alone.
	noRecords bool
	// toolsDir replaces Anvil's tools directory ("" for the installed one).
	toolsDir string
	// hidden are the places the policy keeps from sealed commands;
	// untrusted makes the workspace one the user does not trust (the
	// fixtures' own programs are the user's otherwise).
	hidden    []string
	untrusted bool
}

func newHarness(t *testing.T, project string, ho harnessOptions) *harness {
	t.Helper()
	dir := testfs.Copy(t, fixture(project))
	absoluteCompileCommands(t, dir)
	return newHarnessAt(t, dir, ho)
}

// absoluteCompileCommands puts the copy's directory for @ROOT@ in its
// compile_commands.json, if it has one: compile databases name absolute
// directories, and a fixture is copied.
func absoluteCompileCommands(t testing.TB, dir string) {
	t.Helper()
	db := filepath.Join(dir, "compile_commands.json")
	data, err := os.ReadFile(db)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, []byte(strings.ReplaceAll(string(data), "@ROOT@", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newHarnessAt is newHarness on the project already laid out in dir.
func newHarnessAt(t *testing.T, dir string, ho harnessOptions) *harness {
	t.Helper()
	for rel, content := range ho.files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if content == "" {
			os.Remove(p)
			continue
		}
		testfs.Write(t, dir, map[string]string{rel: content})
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	toolsDir := ho.toolsDir
	if toolsDir == "" {
		toolsDir = servers.DefaultToolsDir(os.Getenv)
	}
	policy := ho.opts.Policy
	if policy == nil {
		policy = execpolicy.New(execpolicy.Options{Root: root.Dir(), Trusted: !ho.untrusted, Environ: os.Environ(), Hidden: ho.hidden})
		ho.opts.Policy = policy
	}
	reg := servers.NewRegistry(servers.RegistryOptions{Overrides: ho.overrides, ToolsDir: toolsDir, Policy: policy})
	mgr := servers.NewManager(root.Dir(), reg, servers.ManagerOptions{Log: testLog{t}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		mgr.Shutdown(ctx)
	})
	var deps DependantFinder
	if !ho.noDeps {
		parser := syntax.New(syntax.Options{})
		t.Cleanup(parser.Close)
		// As the app builds it: TypeScript's declaration emit decides
		// where it is complete, and TypeScript records the imports (one
		// process does both here).
		decl := declarationEmitter(t)
		g := reach.New(root, parser).WithTypeScript(decl).WithImportRecords(decl)
		if ho.noRecords {
			g = g.WithoutRecords()
		}
		deps = g
	}
	if ho.opts.GoBuild == nil {
		ho.opts.GoBuild = &build.Default // as the app's, from this environment
	}
	if ho.opts.Log == nil {
		f, err := os.Create(filepath.Join(t.TempDir(), "shadow.log"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		ho.opts.Log = NewLog(f)
	}
	v := New(root, mgr, deps, ho.opts)
	// Its background jobs (a batch baseline, pyright's record) end with
	// the test, before the servers are shut down.
	t.Cleanup(v.Close)
	if g, ok := deps.(*reach.Graph); ok && !ho.noRecords {
		// As the app wires it: pyright's record is run by the
		// validator's batch checker (none without BatchStateDir), the
		// compilers' record of what units read by its compile runs.
		g.WithPython(v).WithC(v)
	}
	return &harness{t: t, dir: root.Dir(), root: root, mgr: mgr, v: v}
}

// requireServer fails the test when the language's server is missing: in
// CI a missing server is a failure, not a skip.
func (h *harness) requireServer(language string) *servers.Server {
	h.t.Helper()
	s, err := h.mgr.ForLanguage(language)
	if err != nil {
		h.t.Fatalf("language server for %s: %v (run scripts/install-servers.sh)", language, err)
	}
	return s
}

// validate checks changes given as path → new content ("" with a leading
// "-" path deletes: {"-src/x.ts": ""}).
func (h *harness) validate(changes map[string]string) *Result {
	h.t.Helper()
	return h.validateScope(changes, Scope{})
}

// validateScope is validate within scope (Complete: the end of a turn;
// Confirm: a commit).
func (h *harness) validateScope(changes map[string]string, scope Scope) *Result {
	h.t.Helper()
	var specs []changeset.Spec
	for p, content := range changes {
		if strings.HasPrefix(p, "-") {
			specs = append(specs, changeset.Spec{Path: p[1:], Delete: true})
			continue
		}
		c := content
		specs = append(specs, changeset.Spec{Path: p, Content: &c})
	}
	set, err := changeset.Load(h.root, specs)
	if err != nil {
		h.t.Fatal(err)
	}
	before := testfs.Snapshot(h.t, h.dir)
	res, err := h.v.Validate(context.Background(), set, 1, scope, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	after := testfs.Snapshot(h.t, h.dir)
	for p, c := range before {
		if after[p] != c {
			h.t.Errorf("validation changed %s on disk", p)
		}
	}
	if len(after) != len(before) {
		h.t.Errorf("validation added or removed files: %d before, %d after", len(before), len(after))
	}
	return res
}

// read returns a file of the project.
// prepareRecords makes the dependant finder's records for the disk as it
// is (as a session's warm-up does), and waits for them.
func (h *harness) prepareRecords() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	snap, err := h.v.syncDisk(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	if p, ok := h.v.deps.(preparer); ok {
		p.Prepare(ctx, snap.Files)
	}
}

func (h *harness) read(rel string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(rel)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("server: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// expect checks a result's verdict and where its new errors are.
func expect(t *testing.T, res *Result, verdict Verdict, newIn ...string) {
	t.Helper()
	if res.Verdict != verdict {
		t.Fatalf("verdict = %s, want %s\n%s", res.Verdict, verdict, describe(res))
	}
	got := res.NewErrorFiles()
	if strings.Join(got, ",") != strings.Join(newIn, ",") {
		t.Fatalf("new errors in %v, want %v\n%s", got, newIn, describe(res))
	}
}

func describe(res *Result) string {
	var b strings.Builder
	b.WriteString(res.Summary() + "\n")
	for _, d := range res.New {
		b.WriteString("  new: " + d.String() + "\n")
	}
	for _, d := range res.Preexisting {
		b.WriteString("  pre: " + d.String() + "\n")
	}
	for _, d := range res.Resolved {
		b.WriteString("  resolved: " + d.String() + "\n")
	}
	for _, u := range res.Unverified {
		b.WriteString("  unverified: " + u.Path + ": " + u.Reason + "\n")
	}
	checked := res.CheckedFiles
	if len(checked) > 20 {
		checked = append(checked[:20:20], fmt.Sprintf("… (%d in all)", len(res.CheckedFiles)))
	}
	b.WriteString("  checked: " + strings.Join(checked, " ") + "\n")
	return b.String()
}

// dependants returns what the validator's import graph finds as the
// importers of rel, directly or not (those a change to any of its
// interfaces would reach).
func (h *harness) dependants(t *testing.T, rel string) []string {
	t.Helper()
	g, ok := h.v.deps.(*reach.Graph)
	if !ok {
		t.Fatal("the harness has no import graph")
	}
	snap, _, err := (&diskWatcher{root: h.root}).scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := &changeset.Change{Path: rel}
	if err := c.ReadBase(h.root); err != nil {
		t.Fatal(err)
	}
	c.Content = c.Base
	d, err := g.Importers(context.Background(), snap.Files, []*changeset.Change{c}, 5000)
	if err != nil {
		t.Fatal(err)
	}
	return d.Files
}

// testPolicy is the policy of a workspace its user trusts, with the
// test's environment.
func testPolicy(root string) *execpolicy.Policy {
	return execpolicy.New(execpolicy.Options{Root: root, Trusted: true, Environ: os.Environ()})
}
