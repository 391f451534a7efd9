package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestLoadMerges(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"ws/.anvil/config.toml": "model = \"project-model\"\nvalidation_timeout = \"45s\"\n[servers.pyright]\ncommand = \"basedpyright-langserver\"\nmode = \"pull\"\n",
	})
	// The user trusts the workspace, so its [servers] tables count.
	testfs.Write(t, dir, map[string]string{"user/anvil/config.toml": "model = \"user-model\"\nprovider = \"anthropic\"\nmax_attempts = 5\n" +
		"trusted_projects = [\"" + filepath.Join(dir, "ws") + "\"]\n[servers.gopls]\nargs = [\"-v\"]\n"})
	p := DefaultPaths(filepath.Join(dir, "ws"), func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return filepath.Join(dir, "user")
		}
		return ""
	})
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "project-model" || c.Provider != "anthropic" || c.Attempts() != 5 || c.Timeout() != 45*time.Second {
		t.Errorf("merged: %+v", c)
	}
	if len(c.Servers) != 2 || c.Servers["pyright"].Command != "basedpyright-langserver" || c.Servers["pyright"].Mode != "pull" {
		t.Errorf("servers: %+v", c.Servers)
	}
	names := map[string]bool{}
	for _, s := range c.ServerSpecs() {
		names[s.Name] = true
	}
	if !names["gopls"] || !names["pyright"] {
		t.Errorf("ServerSpecs names: %v", names)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"unknown.toml": "modle = \"typo\"\n",
		"bad.toml":     "model = \n",
	})
	for file, want := range map[string]string{"unknown.toml": `unknown key "modle"`, "bad.toml": "bad.toml"} {
		_, err := Load(Paths{Project: filepath.Join(dir, file)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", file, err, want)
		}
	}
	if c, err := Load(Paths{Project: filepath.Join(dir, "missing.toml")}); err != nil || c.Attempts() != DefaultMaxAttempts {
		t.Errorf("missing file: %+v %v", c, err)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "config.toml")
	in := Config{Model: "m", MaxAttempts: 2, ValidationTimeout: Duration{10 * time.Second}}
	if err := write(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := Load(Paths{Project: path})
	if err != nil || out.Model != "m" || out.MaxAttempts != 2 || out.Timeout() != 10*time.Second {
		t.Fatalf("round trip: %+v %v", out, err)
	}
}

// A [check] whose format is unknown, or one its command cannot print, is
// an error when the file is read, naming the formats.
func TestCheckFormatAtConfigTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, wantErr string }{
		{"[check]\ncommand = \"mypy src\"\nformat = \"mypy\"\nlanguages = [\"python\"]\n", ""},
		{"[check]\ncommand = \"mypy src\"\nformat = \"pylint\"\n", "one of gcc, rustc-json, sarif, javac, tsc, mypy, govet"},
		{"[check]\ncommand = \"mypy src\"\nformat = \"javac\"\n", "it prints mypy"},
		{"[check]\nformat = \"mypy\"\n", "no command"},
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := ReadFile(path)
		if tc.wantErr == "" {
			if err != nil || c.Check.Command != "mypy src" || c.Check.Languages[0] != "python" {
				t.Errorf("%q: %+v, %v", tc.text, c.Check, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: err = %v, want %q naming the file", tc.text, err, tc.wantErr)
		}
	}
}
