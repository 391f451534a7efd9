package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// npmPlaceholder is the test script 'npm init' writes, which only fails.
const npmPlaceholder = "no test specified"

// testCommand guesses how the project in dir runs its tests, trying the
// languages in order (most files first) and returning the first it
// recognises, or "".
func testCommand(dir string, languages []string) string {
	for _, l := range languages {
		var cmd string
		switch l {
		case "go":
			if fileExists(filepath.Join(dir, "go.mod")) || fileExists(filepath.Join(dir, "go.work")) {
				cmd = "go test ./..."
			}
		case "typescript", "javascript":
			cmd = nodeTestCommand(dir)
		case "python":
			if usesPytest(dir) {
				cmd = "pytest"
			}
		case "rust":
			if fileExists(filepath.Join(dir, "Cargo.toml")) {
				cmd = "cargo test"
			}
		}
		if cmd != "" {
			return cmd
		}
	}
	return ""
}

// nodeTestCommand is "npm test" (or the lock file's package manager) when
// package.json has a real test script.
func nodeTestCommand(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	script := pkg.Scripts["test"]
	if script == "" || strings.Contains(script, npmPlaceholder) {
		return ""
	}
	switch {
	case fileExists(filepath.Join(dir, "pnpm-lock.yaml")):
		return "pnpm test"
	case fileExists(filepath.Join(dir, "yarn.lock")):
		return "yarn test"
	}
	return "npm test"
}

// usesPytest reports whether the project configures pytest or has the
// files it collects.
func usesPytest(dir string) bool {
	for _, f := range []string{"pytest.ini", "conftest.py"} {
		if fileExists(filepath.Join(dir, f)) {
			return true
		}
	}
	for f, section := range map[string]string{"setup.cfg": "[tool:pytest]", "tox.ini": "[pytest]"} {
		if data, err := os.ReadFile(filepath.Join(dir, f)); err == nil && strings.Contains(string(data), section) {
			return true
		}
	}
	// In pyproject.toml, a [tool.pytest...] table or a dependency on it.
	if data, err := os.ReadFile(filepath.Join(dir, "pyproject.toml")); err == nil && strings.Contains(string(data), "pytest") {
		return true
	}
	info, err := os.Stat(filepath.Join(dir, "tests"))
	return err == nil && info.IsDir()
}
