package detect

import (
	"context"
	"reflect"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

func scan(t *testing.T, files map[string]string) Project {
	t.Helper()
	root, err := workspace.New(testfs.Tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Scan(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		files     map[string]string
		languages []string
		ignore    []string
		test      string
	}{
		{
			name: "go module with vendor",
			files: map[string]string{
				"go.mod": "module x\n", "main.go": "package main\n", "vendor/y/y.go": "package y\n",
				"scripts/gen.py": "", // one stray script in ten files does not count
				"a.go":           "", "b.go": "", "c.go": "", "d.go": "", "e.go": "", "f.go": "", "g.go": "", "h.go": "", "i.go": "",
			},
			languages: []string{"go"}, ignore: []string{"vendor/"}, test: "go test ./...",
		},
		{
			name: "typescript with package.json, node_modules and a gitignored dist",
			files: map[string]string{
				"tsconfig.json": "{}", "package.json": `{"scripts": {"test": "vitest run"}}`, "pnpm-lock.yaml": "",
				"src/a.ts": "", "src/b.tsx": "", "node_modules/x/index.js": "", "packages/p/node_modules/y/i.js": "",
				"dist/a.js": "", ".gitignore": "dist/\n", "build/out.js": "",
			},
			languages: []string{"typescript"}, ignore: []string{"build/", "node_modules/"}, test: "pnpm test",
		},
		{
			name: "mixed go and python with pytest",
			files: map[string]string{
				"go.mod": "module x\n", "cmd/main.go": "", "pyproject.toml": "[tool.pytest.ini_options]\n",
				"tools/a.py": "", "tools/b.py": "", ".venv/lib/site.py": "",
			},
			languages: []string{"python", "go"}, ignore: []string{".venv/"}, test: "pytest",
		},
		{
			name: "npm placeholder test script",
			files: map[string]string{
				"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`, "index.js": "",
			},
			languages: []string{"javascript"}, test: "",
		},
		{
			name: "already ignored in .anvil/ignore",
			files: map[string]string{
				"Cargo.toml": "", "src/main.rs": "", "target/debug/x": "", ".anvil/ignore": "target/\n",
			},
			languages: []string{"rust"}, test: "cargo test",
		},
		{name: "empty", files: map[string]string{"README.md": "hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := scan(t, tt.files)
			if got := p.Names(); !reflect.DeepEqual(got, tt.languages) {
				t.Errorf("languages = %v, want %v (%+v)", got, tt.languages, p.Languages)
			}
			if !reflect.DeepEqual(p.IgnoreDirs, tt.ignore) {
				t.Errorf("ignore = %v, want %v", p.IgnoreDirs, tt.ignore)
			}
			if p.TestCommand != tt.test {
				t.Errorf("test command = %q, want %q", p.TestCommand, tt.test)
			}
		})
	}
}

func TestScanMarkers(t *testing.T) {
	t.Parallel()
	p := scan(t, map[string]string{"go.mod": "module x\n", "requirements.txt": ""})
	want := []Language{{Name: "go", Markers: []string{"go.mod"}}, {Name: "python", Markers: []string{"requirements.txt"}}}
	if !reflect.DeepEqual(p.Languages, want) {
		t.Errorf("languages = %+v, want %+v", p.Languages, want)
	}
}

func TestCheckCommand(t *testing.T) {
	for _, tc := range []struct {
		files   map[string]string
		command string
		format  string
		builtin bool
	}{
		{map[string]string{"Cargo.toml": "[package]\n"}, "cargo check --workspace --all-targets --message-format=json", "rustc-json", true},
		{map[string]string{"pom.xml": "<project/>"}, "mvn -q -B compile", "javac", false},
		{map[string]string{"build.gradle": "", "gradlew": "#!/bin/sh\n"}, "./gradlew compileJava -q", "javac", false},
		{map[string]string{"App.csproj": "<Project/>"}, "dotnet build", "", false},
		{map[string]string{"pyproject.toml": "[project]\nname='x'\n\n[tool.mypy]\nstrict = true\n"}, "mypy --show-column-numbers --show-error-codes .", "mypy", false},
		{map[string]string{"setup.cfg": "[mypy]\n"}, "mypy --show-column-numbers --show-error-codes .", "mypy", false},
		{map[string]string{"pyproject.toml": "[project]\nname='x'\n"}, "", "", false},
	} {
		dir := t.TempDir()
		testfs.Write(t, dir, tc.files)
		got := checkCommand(dir)
		if tc.command == "" {
			if got != nil {
				t.Errorf("%v: proposed %+v", tc.files, got)
			}
			continue
		}
		if got == nil || got.Command != tc.command || got.Format != tc.format || got.Builtin != tc.builtin {
			t.Errorf("%v: got %+v, want %q %q builtin %v", tc.files, got, tc.command, tc.format, tc.builtin)
		}
	}
}
