package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/anvil-dev/anvil/internal/servers"
)

// binDir holds the anvil binary built once for the CLI scripts, so they
// exercise exactly what a user runs.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "anvil-bin-")
	if err != nil {
		panic(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "anvil"), ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("building anvil: " + err.Error())
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestScripts runs the txtar scripts in testdata/script against the built
// binary. Each script states its workspace as files and asserts on output
// and exit status.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			env.Setenv("HOME", env.WorkDir)
			// The language servers installed for the real user, found again
			// under the scripts' own HOME.
			env.Setenv("ANVIL_TOOLS_DIR", servers.DefaultToolsDir(os.Getenv))
			env.Setenv("ANVIL_SESSION_DIR", filepath.Join(env.WorkDir, "sessions"))
			return nil
		},
	})
}
