package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetInFileKeepsTheRest(t *testing.T) {
	t.Parallel()
	const servers = "\n# our gopls\n[servers.gopls]\ncommand = \"/opt/gopls\" # pinned\n"
	tests := []struct {
		name, before, key, value string
		after                    string
	}{
		{
			name: "new file", before: "", key: "model", value: "m",
			after: "model = \"m\"\n",
		},
		{
			name: "replace in place", before: "# settings\nmodel = \"old\" # why\nmax_attempts = 2\n" + servers,
			key: "model", value: "new",
			after: "# settings\nmodel = \"new\"\nmax_attempts = 2\n" + servers,
		},
		{
			name: "add after the last key", before: "model = \"m\"\n" + servers, key: "max_attempts", value: "4",
			after: "model = \"m\"\nmax_attempts = 4\n" + servers,
		},
		{
			name: "add before tables", before: "[servers.gopls]\ncommand = \"/opt/gopls\"\n", key: "provider", value: "openai",
			after: "provider = \"openai\"\n\n[servers.gopls]\ncommand = \"/opt/gopls\"\n",
		},
		{
			name: "multi-line array", before: "languages = [\n  \"go\", # main\n  \"python\",\n]\nmodel = \"m\"\n", key: "languages", value: "typescript",
			after: "languages = [\"typescript\"]\nmodel = \"m\"\n",
		},
		{
			name: "duration and no trailing newline", before: "model = \"m\"", key: "validation_timeout", value: "1m",
			after: "model = \"m\"\nvalidation_timeout = \"1m0s\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), ".anvil", "config.toml")
			if tt.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			k, _ := LookupKey(tt.key)
			if err := SetInFile(path, k, tt.value); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.after {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.after)
			}
			if tt.before != "" {
				if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
					t.Errorf("mode = %v, want the old 0600", info.Mode().Perm())
				}
			}
		})
	}
}

func TestUnsetInFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	const before = "model = \"m\"\nlanguages = [\n  \"go\",\n]\n\n[servers.gopls]\ncommand = \"x\"\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	k, _ := LookupKey("languages")
	if err := UnsetInFile(path, k); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "model = \"m\"\n\n[servers.gopls]\ncommand = \"x\"\n"; string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	missing := filepath.Join(dir, "none", "config.toml")
	if err := UnsetInFile(missing, k); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("unset created %s", missing)
	}
}

func TestSetInFileRefusesBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.toml")
	const text = "model = \n"
	if err := os.WriteFile(broken, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	model, _ := LookupKey("model")
	if err := SetInFile(broken, model, "m"); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("broken file: err = %v, want one naming the file", err)
	}
	if got, _ := os.ReadFile(broken); string(got) != text {
		t.Errorf("broken file was changed: %q", got)
	}
	attempts, _ := LookupKey("max_attempts")
	fresh := filepath.Join(dir, "fresh.toml")
	if err := SetInFile(fresh, attempts, "0"); err == nil || !strings.Contains(err.Error(), "positive integer") {
		t.Errorf("bad value: err = %v", err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a refused value created %s", fresh)
	}
}

func TestSetInFileFallsBackOnLayoutsItCannotEdit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	// A quoted key is valid TOML the line editor does not recognise; the
	// result must still be right.
	if err := os.WriteFile(path, []byte("\"model\" = \"old\"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	model, _ := LookupKey("model")
	if err := SetInFile(path, model, "new"); err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(path)
	if err != nil || c.Model != "new" {
		t.Fatalf("after fallback: %+v %v", c, err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want the old 0640", info.Mode().Perm())
	}
}
