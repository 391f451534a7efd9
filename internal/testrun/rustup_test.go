package testrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// rustupEnv is what a stage's environment (a HOME of its own) needs for a
// rustup install's cargo, a proxy that finds its toolchains through
// RUSTUP_HOME and CARGO_HOME, by default under HOME: the test's own
// values when set (scripts/test.sh sets them from where the cargo on PATH
// lives, when HOME has none), else the home's directories. It fails the
// test, with the reason, when cargo does not run with them: a stage whose
// cargo cannot start would report "no test ran".
func rustupEnv(t *testing.T) []string {
	t.Helper()
	home, _ := os.UserHomeDir()
	var out []string
	for _, v := range []struct{ name, dir string }{{"RUSTUP_HOME", ".rustup"}, {"CARGO_HOME", ".cargo"}} {
		dir := os.Getenv(v.name)
		if dir == "" && home != "" {
			dir = filepath.Join(home, v.dir)
		}
		if _, err := os.Stat(dir); dir != "" && err == nil {
			out = append(out, v.name+"="+dir)
		}
	}
	cmd := exec.Command("cargo", "--version")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, out...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo does not run under a fresh HOME with %v: %v\n%s(a rustup install: set RUSTUP_HOME and CARGO_HOME, as scripts/test.sh does)", out, err, b)
	}
	return out
}
