package servers

import "testing"

func TestConfigLanguage(t *testing.T) {
	for p, want := range map[string]string{
		"go.mod":                      "go",
		"sub/go.work":                 "go",
		"tsconfig.build.json":         "typescript",
		"web/package.json":            "typescript",
		"pyproject.toml":              "python",
		"Cargo.toml":                  "rust",
		".cargo/config.toml":          "rust",
		"crates/a/.cargo/config":      "rust",
		"rust-toolchain.toml":         "rust",
		"config.toml":                 "",
		"cargo/config.toml":           "",
		"compile_commands.json":       "c",
		"build/compile_commands.json": "c",
		".clangd":                     "c",
		"README.md":                   "",
	} {
		if got := ConfigLanguage(p); got != want {
			t.Errorf("ConfigLanguage(%q) = %q, want %q", p, got, want)
		}
	}
}
