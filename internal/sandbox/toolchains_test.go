package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// A repository's .venv/pyvenv.cfg (or its bin/python link) names where
// its base interpreter lives; a directory of the home it names is shown
// only when a Python installation is there, so "home = ~/.config/x"
// widens nothing build scripts and tests see.
func TestToolchainsVenvHomeShowsOnlyAnInstallation(t *testing.T) {
	home := testfs.Tree(t, map[string]string{
		".config/x/token":                             "home-SECRET\n",
		".pyenv/versions/3.12.1/bin/python3.12":       "#!/bin/sh\n",
		".pyenv/versions/3.12.1/lib/python3.12/os.py": "",
	})
	if err := chmodX(filepath.Join(home, ".pyenv/versions/3.12.1/bin/python3.12")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, venvHome, link string
		want, notWant        string
	}{
		{name: "pyvenv.cfg names a directory of the home", venvHome: filepath.Join(home, ".config", "x"), notWant: filepath.Join(home, ".config", "x")},
		{name: "pyvenv.cfg names its parent's bin", venvHome: filepath.Join(home, ".config", "bin"), notWant: filepath.Join(home, ".config")},
		{name: "bin/python links into the home", link: filepath.Join(home, ".config", "x", "token"), notWant: filepath.Join(home, ".config", "x")},
		{name: "pyenv's interpreter", venvHome: filepath.Join(home, ".pyenv/versions/3.12.1/bin"), want: filepath.Join(home, ".pyenv/versions/3.12.1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{".venv/pyvenv.cfg": "home = " + tt.venvHome + "\n"}
			if tt.link != "" {
				files = map[string]string{".venv/bin/python": "->" + tt.link}
			}
			root := testfs.Tree(t, files)
			got := Toolchains(context.Background(), []string{"PATH=/usr/bin:/bin", "HOME=" + home}, root).Visible
			if tt.notWant != "" && slices.Contains(got, tt.notWant) {
				t.Errorf("shows %s: %v", tt.notWant, got)
			}
			if tt.want != "" && !slices.Contains(got, tt.want) {
				t.Errorf("does not show %s: %v", tt.want, got)
			}
		})
	}
}

func chmodX(p string) error { return os.Chmod(p, 0o755) }
