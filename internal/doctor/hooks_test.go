package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/hooks"
)

// The doctor says, per client and scope, whether Anvil's hooks are
// installed; Codex's need of trust is said; hooks whose binary is gone
// warn with the command that puts them back.
func TestCheckHooks(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	bin := filepath.Join(dir, "anvil")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	install := func(c hooks.Client, s hooks.Scope, bin string) {
		p, err := hooks.PlanInstall(hooks.SettingsPath(c, s, dir, getenv), c, bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Apply(nil); err != nil {
			t.Fatal(err)
		}
	}
	install(hooks.Claude, hooks.Project, bin)
	install(hooks.Codex, hooks.User, bin)
	install(hooks.Gemini, hooks.Project, filepath.Join(dir, "gone", "anvil"))
	got := map[string]Check{}
	for _, c := range checkHooks(dir, getenv) {
		got[c.Name] = c
	}
	want := []struct {
		name   string
		status Status
		detail string
	}{
		{"claude (project)", OK, "guarded"},
		{"claude (user)", OK, "not guarded (anvil hooks install claude --scope user)"},
		{"codex (project)", OK, "not guarded"},
		{"codex (user)", OK, "trust them"},
		{"gemini (project)", Warn, "which is not there"},
		{"gemini (user)", OK, "not guarded"},
	}
	for _, w := range want {
		c, ok := got[w.name]
		if !ok {
			t.Errorf("no check %q in %v", w.name, got)
			continue
		}
		if c.Status != w.status || !strings.Contains(c.Detail, w.detail) {
			t.Errorf("%s: %v %q, want %v with %q", w.name, c.Status, c.Detail, w.status, w.detail)
		}
	}
	if c := got["gemini (project)"]; c.Fix != "anvil hooks install gemini" {
		t.Errorf("fix %q", c.Fix)
	}
}
