package setup

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/slash"
	"github.com/anvil-dev/anvil/internal/testfs"
)

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func actions(rs []Result) map[string]Action {
	out := map[string]Action{}
	for _, r := range rs {
		if r.Action != Kept || out[r.Path] == "" {
			out[r.Path] = r.Action
		}
	}
	return out
}

func TestApplyTwiceKeepsThenForceReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plan := Plan{Languages: []string{"go", "typescript"}, TestCommand: "go test ./...", Ignore: []string{"node_modules/", "dist/"}, Commands: true}
	rs, err := Apply(dir, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Action{
		".anvil/config.toml": Wrote, ".anvil/ignore": Wrote,
		".anvil/commands/review.md": Wrote, ".anvil/commands/document.md": Wrote, ".anvil/commands/test.md": Wrote,
	}
	if got := actions(rs); !maps.Equal(got, want) {
		t.Errorf("first run: %v, want %v", got, want)
	}
	cfg, err := config.ReadFile(filepath.Join(dir, ".anvil/config.toml"))
	if err != nil || strings.Join(cfg.Languages, ",") != "go,typescript" || cfg.TestCommand != "go test ./..." {
		t.Fatalf("config: %+v %v", cfg, err)
	}

	// The user edits; a second run keeps it all and adds only new patterns.
	testfs.Write(t, dir, map[string]string{".anvil/commands/review.md": "# mine\nmine\n"})
	plan2 := plan
	plan2.TestCommand, plan2.Ignore = "make test", []string{"dist", "build/"}
	rs, err = Apply(dir, plan2, false)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]Action{
		".anvil/config.toml": Kept, ".anvil/ignore": Appended,
		".anvil/commands/review.md": Kept, ".anvil/commands/document.md": Kept, ".anvil/commands/test.md": Kept,
	}
	if got := actions(rs); !maps.Equal(got, want) {
		t.Errorf("second run: %v, want %v", got, want)
	}
	if got := read(t, dir, ".anvil/ignore"); strings.Count(got, "dist/") != 1 || !strings.HasSuffix(got, "node_modules/\ndist/\nbuild/\n") {
		t.Errorf("ignore:\n%s", got)
	}
	if got := read(t, dir, ".anvil/commands/review.md"); got != "# mine\nmine\n" {
		t.Errorf("review.md replaced without --force: %q", got)
	}
	if !strings.Contains(rs[0].Detail, `(--force would set test_command = "make test")`) {
		t.Errorf("kept detail: %q", rs[0].Detail)
	}

	rs, err = Apply(dir, plan2, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rs); got[".anvil/config.toml"] != Updated || got[".anvil/commands/review.md"] != Wrote {
		t.Errorf("forced run: %v", got)
	}
	if cfg, _ := config.ReadFile(filepath.Join(dir, ".anvil/config.toml")); cfg.TestCommand != "make test" {
		t.Errorf("--force kept test_command %q", cfg.TestCommand)
	}
	if got := read(t, dir, ".anvil/commands/review.md"); !strings.Contains(got, "Review $ARGS") {
		t.Errorf("--force did not restore review.md: %q", got)
	}
}

func TestStarterCommandsReadAsSlashCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Apply(dir, Plan{TestCommand: "npm test", Commands: true}, false); err != nil {
		t.Fatal(err)
	}
	cmds, err := slash.List(slash.Dirs(dir, ""))
	if err != nil || len(cmds) != 3 {
		t.Fatalf("slash.List = %v, %v", cmds, err)
	}
	for _, c := range cmds {
		if c.Description == "" || strings.Contains(c.Description, "$ARGS") {
			t.Errorf("/%s: description %q", c.Name, c.Description)
		}
		req := c.Request("src/api.ts")
		if !strings.Contains(req, "src/api.ts") || strings.Contains(req, "$ARGS") {
			t.Errorf("/%s: request %q", c.Name, req)
		}
	}
	if got := read(t, dir, ".anvil/commands/test.md"); !strings.Contains(got, "`npm test`") {
		t.Errorf("test.md does not name the test command:\n%s", got)
	}
}

func TestApplyRefusesBrokenConfig(t *testing.T) {
	t.Parallel()
	dir := testfs.Tree(t, map[string]string{".anvil/config.toml": "languages = [\n"})
	if _, err := Apply(dir, Plan{Languages: []string{"go"}, Commands: true}, true); err == nil || !strings.Contains(err.Error(), "config.toml") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".anvil/commands")); !os.IsNotExist(err) {
		t.Error("files were written next to a broken config")
	}
}

func TestApplyKeepsOtherConfig(t *testing.T) {
	t.Parallel()
	const before = "# my settings\nmodel = \"m\"\n\n[servers.gopls]\ncommand = \"/opt/gopls\"\n"
	dir := testfs.Tree(t, map[string]string{".anvil/config.toml": before})
	rs, err := Apply(dir, Plan{Languages: []string{"go"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rs); got[".anvil/config.toml"] != Updated {
		t.Errorf("results: %+v", rs)
	}
	got := read(t, dir, ".anvil/config.toml")
	if want := "# my settings\nmodel = \"m\"\nlanguages = [\"go\"]\n\n[servers.gopls]\ncommand = \"/opt/gopls\"\n"; got != want {
		t.Errorf("config:\n%s\nwant:\n%s", got, want)
	}
}

// A proposed [check] is written commented out, so that nothing runs until
// the user confirms it; a second init, or a file with a [check] already,
// keeps the file; a built-in checker writes nothing.
func TestApplyProposesCheckCommentedOut(t *testing.T) {
	dir := t.TempDir()
	p := &CheckProposal{Command: "mvn -q -B compile", Format: "javac", Why: "pom.xml"}
	rs, err := Apply(dir, Plan{TestCommand: "mvn test", Check: p}, false)
	if err != nil {
		t.Fatal(err)
	}
	text := read(t, dir, config.ProjectFile)
	if !strings.Contains(text, "# [check]\n# command = \"mvn -q -B compile\"\n# format = \"javac\"\n") {
		t.Fatalf("no commented-out proposal:\n%s", text)
	}
	c, err := config.ReadFile(filepath.Join(dir, config.ProjectFile))
	if err != nil || c.Check.Command != "" || c.TestCommand != "mvn test" {
		t.Fatalf("the proposal is in effect or broke the file: %+v, %v", c.Check, err)
	}
	var said bool
	for _, r := range rs {
		said = said || strings.Contains(r.Detail, "proposed [check] command")
	}
	if !said {
		t.Errorf("the report does not say what was proposed: %+v", rs)
	}
	if _, err := Apply(dir, Plan{Check: p}, false); err != nil {
		t.Fatal(err)
	}
	if again := read(t, dir, config.ProjectFile); again != text {
		t.Errorf("a second init proposed again:\n%s", again)
	}

	cargo := t.TempDir()
	rs, err = Apply(cargo, Plan{Check: &CheckProposal{Command: "cargo check", Builtin: true, Why: "Cargo.toml"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cargo, config.ProjectFile)); err == nil {
		t.Errorf("a built-in checker wrote the config: %+v", rs)
	}
}

// The ignore file is written even when nothing is found to ignore (the
// README and 'anvil init --help' promise it), and a second run keeps it.
func TestApplyWritesTheIgnoreFileWithNothingToIgnore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rs, err := Apply(dir, Plan{Languages: []string{"go"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rs)[".anvil/ignore"]; got != Wrote {
		t.Errorf("first run: .anvil/ignore %q, want %q (%v)", got, Wrote, rs)
	}
	if got := read(t, dir, ".anvil/ignore"); got != ignoreHeader {
		t.Errorf("ignore file %q, want the header alone %q", got, ignoreHeader)
	}
	rs, err = Apply(dir, Plan{Languages: []string{"go"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rs)[".anvil/ignore"]; got != Kept {
		t.Errorf("second run: .anvil/ignore %q, want %q (%v)", got, Kept, rs)
	}
	if got := read(t, dir, ".anvil/ignore"); got != ignoreHeader {
		t.Errorf("second run changed the ignore file: %q", got)
	}
}
