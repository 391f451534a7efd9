package execpolicy

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestDifferences(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // in the notice; "" for none
	}{
		{"nothing of its own", map[string]string{"a.ts": "x\n"}, ""},
		{"its TypeScript 5", map[string]string{"node_modules/typescript/package.json": `{"name": "typescript", "version": "5.4.5"}`}, "its own TypeScript 5.4.5"},
		{"its compiler", map[string]string{"compile_commands.json": `[{"directory": ".", "command": "./cc -c a.c", "file": "a.c"}]`}, "compiler ./cc"},
		{"a crate with a build script", map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n", "build.rs": "fn main() {}\n"}, "build scripts and procedural macros"},
		{"a member that is a procedural macro", map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"crates/m\"]\n", "crates/m/Cargo.toml": "[lib]\nproc-macro = true\n"}, "build scripts"},
		{"a registry dependency", map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n", "Cargo.lock": "[[package]]\nname = \"libc\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"}, "build scripts"},
		{"a crate that runs nothing", map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n", "Cargo.lock": "[[package]]\nname = \"a\"\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, tc.files)
			got := New(Options{Root: dir}).DifferencesNotice(nil)
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("notice %q, want one naming %q", got, tc.want)
			}
			if tc.want != "" && !strings.Contains(got, "anvil trust") {
				t.Errorf("the notice does not say how to trust: %q", got)
			}
			if trusted := New(Options{Root: dir, Trusted: true}).DifferencesNotice(nil); trusted != "" {
				t.Errorf("trusted: %q", trusted)
			}
		})
	}
}
