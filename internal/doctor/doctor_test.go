package doctor

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// env returns a getenv over vars only.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// noTools finds nothing on PATH, so no real server or tool is used.
func noTools(string) (string, error) { return "", exec.ErrNotFound }

func find(t *testing.T, r Report, group, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Group == group && c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s/%s check in %+v", group, name, r.Checks)
	return Check{}
}

func TestRunWithNothingInstalled(t *testing.T) {
	t.Parallel()
	dir := testfs.Tree(t, map[string]string{
		"ws/go.mod": "module x\n", "ws/main.go": "package main\n",
		"ws/.anvil/config.toml":          "provider = \"gemini\"\n",
		"home/.config/anvil/config.toml": "model = \n",
		"ws/lib/x.rs":                    "", "ws/lib/y.rs": "", "ws/Cargo.toml": "",
	})
	r, err := Run(context.Background(), Options{
		Dir:      filepath.Join(dir, "ws"),
		Getenv:   env(map[string]string{"HOME": filepath.Join(dir, "home"), "ANVIL_TOOLS_DIR": filepath.Join(dir, "tools"), "ANVIL_SESSION_DIR": filepath.Join(dir, "sessions")}),
		LookPath: noTools,
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		group, name string
		status      Status
		detail, fix string
	}{
		{GroupConfig, "user file", Fail, "config.toml", "correct"},
		{GroupConfig, "project file", Fail, "provider must be one of", "anvil config set KEY VALUE'"},
		{GroupProvider, "anthropic", Warn, "ANTHROPIC_API_KEY unset, ANTHROPIC_BASE_URL unset", ""},
		{GroupProvider, "selected", Warn, "unknown provider", ""},
		{GroupServer, "go", Fail, "no language server found for go (detected)", "scripts/install-servers.sh"},
		{GroupServer, "rust", Fail, "cargo is not on PATH, so Rust changes cannot be checked before the write", "rustup"},
		{GroupTool, "rg", Warn, "built-in engine", "install ripgrep"},
		{GroupSession, "session dir", OK, "sessions (ANVIL_SESSION_DIR) is writable", ""},
	}
	for _, tt := range tests {
		c := find(t, r, tt.group, tt.name)
		if c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) || !strings.Contains(c.Fix, tt.fix) {
			t.Errorf("%s/%s = %s %q (fix %q), want %s containing %q (fix %q)", tt.group, tt.name, c.Status, c.Detail, c.Fix, tt.status, tt.detail, tt.fix)
		}
	}
	if !r.Blocking() {
		t.Error("Blocking() = false with failures")
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schema_version":1`, `"ok":false`, `"status":"fail"`, `"group":"server"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s: %s", want, data)
		}
	}
}

func TestProviders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		vars     map[string]string
		selected Status
		detail   string
	}{
		{"none", nil, Warn, "'anvil demo' runs without one"},
		{"anthropic", map[string]string{"ANTHROPIC_API_KEY": "sk-ant-secret"}, OK, "a run would use anthropic"},
		{"openai without model", map[string]string{"OPENAI_BASE_URL": "http://localhost:1/v1"}, Warn, "name the model"},
		{"openai key", map[string]string{"OPENAI_API_KEY": "sk-secret"}, OK, "a run would use openai"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := Run(context.Background(), Options{
				Dir: t.TempDir(), LookPath: noTools,
				Getenv: env(mergeVars(tt.vars, map[string]string{"ANVIL_SESSION_DIR": t.TempDir()})),
			})
			if err != nil {
				t.Fatal(err)
			}
			sel := find(t, r, GroupProvider, "selected")
			if sel.Status != tt.selected || !strings.Contains(sel.Detail, tt.detail) {
				t.Errorf("selected = %s %q, want %s %q", sel.Status, sel.Detail, tt.selected, tt.detail)
			}
			data, _ := json.Marshal(r)
			if strings.Contains(string(data), "secret") {
				t.Errorf("a secret was printed: %s", data)
			}
			if r.Blocking() {
				t.Errorf("a provider problem blocks: %+v", r.Checks)
			}
		})
	}
}

func mergeVars(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestSessionDirNotWritable(t *testing.T) {
	t.Parallel()
	dir := testfs.Tree(t, map[string]string{"file": "x"})
	c := checkSession(config.Config{SessionDir: filepath.Join(dir, "file", "sessions")}, env(nil))
	if c.Status != Fail || !strings.Contains(c.Detail, "session_dir in the config") || !strings.Contains(c.Fix, "session_dir") {
		t.Errorf("check = %+v", c)
	}
}

func TestSessionProbeLeavesNothing(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "new", "base")
	if err := probeWritable(base); err != nil {
		t.Fatal(err)
	}
	if exists(base) {
		t.Errorf("probe left %s behind", base)
	}
	if !exists(filepath.Dir(base)) {
		t.Errorf("probe removed more than it created")
	}
}

func TestRunRefusesMissingWorkspace(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), Options{Dir: filepath.Join(t.TempDir(), "nope")})
	if err == nil {
		t.Fatal("no error for a missing workspace")
	}
}

func TestTailBuffer(t *testing.T) {
	t.Parallel()
	b := tailBuffer{max: 16}
	_, _ = b.Write([]byte("first line\nsecond\n\nthird\n"))
	if got := b.lastLines(2); got != "second | third" {
		t.Errorf("lastLines = %q", got)
	}
	if got := b.lastLines(5); got != "e | second | third" {
		t.Errorf("lastLines(5) = %q: the first 9 bytes should have been dropped", got)
	}
}

// The test binary is also the shadow tree's helper, for the trial tree.
func TestMain(m *testing.M) {
	sandbox.Main(os.Getenv)
	os.Exit(m.Run())
}

// On a machine that allows them (this one, as root and as a user), the
// trial shadow tree is made and holds its change.
func TestShadowTreeProbe(t *testing.T) {
	c := checkShadowTree(context.Background(), sandbox.HostPlaces{TempDir: os.TempDir()})
	if c.Status != OK || !strings.Contains(c.Detail, "a trial tree was made in") {
		t.Fatalf("%+v", c)
	}
}

// A C project without a compile database is told how to make one; with
// one, doctor names it.
func TestCompileDatabase(t *testing.T) {
	t.Parallel()
	dir := testfs.Tree(t, map[string]string{"src/a.c": "int a;\n", "src/a.h": "int a;\n"})
	c := checkCompileDatabase(dir)
	if c.Status != Warn || !strings.Contains(c.Fix, "cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON") || !strings.Contains(c.Fix, "bear -- make") {
		t.Fatalf("without one: %+v", c)
	}
	testfs.Write(t, dir, map[string]string{"build/compile_commands.json": "[]"})
	if c := checkCompileDatabase(dir); c.Status != OK || c.Detail != filepath.Join(dir, "build", "compile_commands.json") {
		t.Fatalf("with one: %+v", c)
	}
	testfs.Write(t, dir, map[string]string{"build/compile_commands.json": "{"})
	if c := checkCompileDatabase(dir); c.Status != Fail {
		t.Fatalf("unreadable: %+v", c)
	}
}
