package detect

import (
	"os"
	"path/filepath"
	"strings"
)

// CheckProposal is the project checker 'anvil init' proposes for the
// [check] table: what it found the project builds with. Anvil never
// turns one on by itself: init writes it commented out, for the user to
// confirm.
type CheckProposal struct {
	// Command and Format are the [check] table's ("" Format: no format
	// Anvil reads fits the command's output yet).
	Command string `json:"command"`
	Format  string `json:"format,omitempty"`
	// Builtin: Anvil checks this already (cargo check), nothing to write.
	Builtin bool `json:"builtin,omitempty"`
	// Why names the file it was found from.
	Why string `json:"why"`
}

// checkCommand proposes the project's own checker from the files at the
// root of dir, or nil when none is recognised.
func checkCommand(dir string) *CheckProposal {
	has := func(name string) bool { return fileExists(filepath.Join(dir, name)) }
	switch {
	case has("Cargo.toml"):
		return &CheckProposal{Command: "cargo check --workspace --all-targets --message-format=json", Format: "rustc-json", Builtin: true, Why: "Cargo.toml"}
	case has("pom.xml"):
		// -B: Maven colours its output even into a pipe otherwise; -q
		// leaves the compiler's "[ERROR] /abs/File.java:[l,c]" lines.
		return &CheckProposal{Command: "mvn -q -B compile", Format: "javac", Why: "pom.xml"}
	case has("build.gradle") || has("build.gradle.kts"):
		cmd := "gradle compileJava -q"
		if has("gradlew") {
			cmd = "./gradlew compileJava -q"
		}
		return &CheckProposal{Command: cmd, Format: "javac", Why: "build.gradle"}
	case has("mypy.ini") || has(".mypy.ini") || section(filepath.Join(dir, "setup.cfg"), "[mypy]") || section(filepath.Join(dir, "pyproject.toml"), "[tool.mypy]"):
		return &CheckProposal{Command: "mypy --show-column-numbers --show-error-codes .", Format: "mypy", Why: "mypy's configuration"}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.csproj")); len(m) > 0 {
		return &CheckProposal{Command: "dotnet build", Why: filepath.Base(m[0])}
	}
	return nil
}

// section reports whether the file at p has a line starting header.
func section(p, header string) bool {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), header) {
			return true
		}
	}
	return false
}
