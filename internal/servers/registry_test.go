package servers

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// fakeTools lays out a tools directory with a TypeScript 7 tsc and the other
// servers' binaries, the way install-servers.sh does.
func fakeTools(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "tools")
	testfs.Write(t, dir, map[string]string{
		"node/node_modules/typescript/package.json": `{"name":"typescript","version":"7.0.2"}`,
		"node/node_modules/typescript/bin/tsc":      "#!/bin/sh\n",
		"bin/tsc":                                   "->../node/node_modules/typescript/bin/tsc",
		"bin/node":                                  "#!/bin/sh\n",
		"bin/gopls":                                 "#!/bin/sh\n",
		"bin/clangd":                                "#!/bin/sh\n",
		"ts-legacy/node_modules/typescript/lib/tsserver.js": "",
		"ts-legacy/node_modules/typescript/package.json":    `{"name":"typescript","version":"6.0.3"}`,
	})
	return dir
}

func noPath(string) (string, error) { return "", errors.New("not on PATH") }

func TestResolve(t *testing.T) {
	tools := fakeTools(t)
	tests := []struct {
		name     string
		files    map[string]string
		language string
		want     string
		wantPath string // suffix
		engine   Engine
		// wantTSServer is the end of the tsserver.js path; wantNote a part
		// of the note about the compiler.
		wantTSServer, wantNote string
		wantErr                string
		// trusted: the user trusts the workspace (its own programs run).
		trusted bool
	}{
		{name: "no TypeScript pinned: native server", language: "typescript", want: "tsgo", wantPath: "bin/tsc"},
		{name: "TypeScript 7 pinned", files: map[string]string{"package.json": `{"devDependencies":{"typescript":"^7.0.0"}}`}, language: "typescriptreact", want: "tsgo"},
		{name: "TypeScript 5 pinned, not installed", files: map[string]string{"package.json": `{"devDependencies":{"typescript":"~5.4.2"}}`},
			language: "typescript", want: "tsserver", wantPath: "bin/node",
			wantTSServer: "ts-legacy/node_modules/typescript/lib/tsserver.js", wantNote: "pins typescript ~5.4.2, which is not installed"},
		{name: "TypeScript 5 installed: its own tsserver", files: map[string]string{
			"package.json":                            `{"dependencies":{"typescript":"latest"}}`,
			"node_modules/typescript/package.json":    `{"name":"typescript","version":"5.9.3"}`,
			"node_modules/typescript/lib/tsserver.js": "",
		}, language: "javascript", want: "tsserver", wantTSServer: "/node_modules/typescript/lib/tsserver.js", trusted: true},
		// A repository's own tsserver.js runs as the user, and loads the
		// plugins its tsconfig names: not before the user trusts it.
		{name: "TypeScript 5.4.5 installed, untrusted: Anvil's tsserver", files: map[string]string{
			"package.json":                            `{"devDependencies":{"typescript":"5.4.5"}}`,
			"node_modules/typescript/package.json":    `{"name":"typescript","version":"5.4.5"}`,
			"node_modules/typescript/lib/tsserver.js": "require('fs').writeFileSync(process.env.HOME + '/pwned', process.env.ANVIL_TEST_SECRET)",
		}, language: "typescript", want: "tsserver", wantPath: "bin/node",
			wantTSServer: "ts-legacy/node_modules/typescript/lib/tsserver.js", wantNote: "anvil trust "},
		{name: "engine native for a TypeScript 5 project", files: map[string]string{"package.json": `{"devDependencies":{"typescript":"^5.0.0"}}`},
			engine: EngineNative, language: "typescript", want: "tsgo"},
		{name: "engine tsserver for a TypeScript 7 project", files: map[string]string{"package.json": `{"devDependencies":{"typescript":"^7.0.0"}}`},
			engine: EngineTSServer, language: "typescript", want: "tsserver",
			wantTSServer: "ts-legacy/node_modules/typescript/lib/tsserver.js", wantNote: "checked with TypeScript 6.0.3"},
		{name: "project's own TypeScript 7 first", files: map[string]string{
			"node_modules/typescript/package.json": `{"name":"typescript","version":"7.1.0"}`,
			"node_modules/typescript/bin/tsc":      "#!/bin/sh\n",
			"node_modules/.bin/tsc":                "->../typescript/bin/tsc",
		}, language: "typescript", want: "tsgo", wantPath: "node_modules/.bin/tsc", trusted: true},
		{name: "project's own TypeScript 7 untrusted: Anvil's", files: map[string]string{
			"node_modules/typescript/package.json": `{"name":"typescript","version":"7.1.0"}`,
			"node_modules/typescript/bin/tsc":      "#!/bin/sh\n",
			"node_modules/.bin/tsc":                "->../typescript/bin/tsc",
		}, language: "typescript", want: "tsgo", wantPath: "tools/bin/tsc"},
		{name: "node_modules/.bin/gopls untrusted: Anvil's gopls", files: map[string]string{
			"node_modules/.bin/gopls": "#!/bin/sh\necho \"$ANVIL_TEST_SECRET\" > \"$HOME/pwned\"\n",
		}, language: "go", want: "gopls", wantPath: "tools/bin/gopls"},
		{name: "node_modules/.bin/gopls trusted: the project's", files: map[string]string{
			"node_modules/.bin/gopls": "#!/bin/sh\n",
		}, language: "go", want: "gopls", wantPath: "node_modules/.bin/gopls", trusted: true},
		{name: "go", language: "go", want: "gopls", wantPath: "bin/gopls"},
		{name: "c", language: "c", want: "clangd", wantPath: "bin/clangd"},
		{name: "c++", language: "cpp", want: "clangd", wantPath: "bin/clangd"},
		{name: "python server missing", language: "python", wantErr: "no language server found for python"},
		{name: "no spec at all", language: "rust", wantErr: "no language server is configured for rust"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testfs.Tree(t, tt.files)
			policy := execpolicy.New(execpolicy.Options{Root: root, Trusted: tt.trusted})
			r := NewRegistry(RegistryOptions{ToolsDir: tools, LookPath: noPath, TypeScriptEngine: tt.engine, Policy: policy})
			got, err := r.Resolve(root, tt.language)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Spec.Name != tt.want || !strings.HasSuffix(got.Path, tt.wantPath) {
				t.Fatalf("got %s at %s, want %s at …%s", got.Spec.Name, got.Path, tt.want, tt.wantPath)
			}
			if !strings.HasSuffix(got.Spec.tsserver, tt.wantTSServer) || (tt.wantTSServer == "") != (got.Spec.tsserver == "") {
				t.Errorf("tsserver.js = %q, want …%s", got.Spec.tsserver, tt.wantTSServer)
			}
			if !strings.Contains(got.Note, tt.wantNote) || (tt.wantNote == "") != (got.Note == "") {
				t.Errorf("note = %q, want one with %q", got.Note, tt.wantNote)
			}
		})
	}
}

// An old tsc on PATH is not taken for the native server.
func TestResolveRejectsOldTsc(t *testing.T) {
	old := testfs.Tree(t, map[string]string{
		"lib/node_modules/typescript/package.json": `{"name":"typescript","version":"5.9.3"}`,
		"lib/node_modules/typescript/bin/tsc":      "#!/bin/sh\n",
		"bin/tsc":                                  "->../lib/node_modules/typescript/bin/tsc",
	})
	r := NewRegistry(RegistryOptions{LookPath: func(string) (string, error) { return filepath.Join(old, "bin", "tsc"), nil }})
	_, err := r.Resolve(t.TempDir(), "typescript")
	if err == nil || !strings.Contains(err.Error(), "is TypeScript 5.9.3") {
		t.Fatalf("err = %v", err)
	}
}

func TestOverrides(t *testing.T) {
	tools := fakeTools(t)
	r := NewRegistry(RegistryOptions{ToolsDir: tools, LookPath: noPath, Overrides: []Spec{
		{Name: "gopls", Args: []string{"-remote=auto"}},
		{Name: "rust-analyzer", Command: filepath.Join(tools, "bin", "gopls"), Languages: []string{"rust"}, Mode: ModePush},
	}})
	g, err := r.Resolve(t.TempDir(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Spec.Args, " ") != "-remote=auto" || g.Spec.Mode != ModePushProgress || !g.Spec.ReportsDependants {
		t.Errorf("override did not merge field by field: %+v", g.Spec)
	}
	if rs, err := r.Resolve(t.TempDir(), "rust"); err != nil || rs.Spec.Name != "rust-analyzer" {
		t.Errorf("added server: %+v %v", rs, err)
	}
}

func TestLanguageOf(t *testing.T) {
	for path, want := range map[string]string{
		"a.ts": "typescript", "b.TSX": "typescriptreact", "c.mjs": "javascript", "d.go": "go",
		"e.pyi": "python", "README.md": "", "Makefile": "", "x.json": "",
	} {
		if got := LanguageOf(path); got != want {
			t.Errorf("LanguageOf(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestMajorOf(t *testing.T) {
	for in, want := range map[string]int{"7.0.2": 7, "^5.4.0": 5, "~6.0": 6, ">=5": 5, "latest": 0, "*": 0, "": 0, "v4.9": 4} {
		if got := majorOf(in); got != want {
			t.Errorf("majorOf(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestDefaultToolsDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := DefaultToolsDir(env(map[string]string{"ANVIL_TOOLS_DIR": "/x"})); got != "/x" {
		t.Error(got)
	}
	if got := DefaultToolsDir(env(map[string]string{"XDG_DATA_HOME": "/d", "HOME": "/h"})); got != "/d/anvil/tools" {
		t.Error(got)
	}
	if got := DefaultToolsDir(env(map[string]string{"HOME": "/h"})); got != "/h/.local/share/anvil/tools" {
		t.Error(got)
	}
}

// A missing server is named as the one the project would use: for a
// TypeScript 5 project, tsserver, not the native server; and the error
// says how to get it.
func TestNoServerNamesTheChosenServer(t *testing.T) {
	root := testfs.Tree(t, map[string]string{"package.json": `{"devDependencies":{"typescript":"^5.4.0"}}`})
	tools := testfs.Tree(t, map[string]string{"bin/node": "#!/bin/sh\n"}) // node, but no TypeScript 6
	_, err := NewRegistry(RegistryOptions{LookPath: noPath, ToolsDir: tools}).Resolve(root, "typescript")
	var ns *NoServerError
	if !errors.As(err, &ns) || len(ns.Servers) != 1 || ns.Servers[0] != "tsserver" {
		t.Fatalf("err = %v (%+v)", err, ns)
	}
	for _, fix := range []string{"run the package manager's install in the project", "scripts/install-servers.sh", "ANVIL_TOOLS_DIR"} {
		if !strings.Contains(err.Error(), fix) {
			t.Errorf("error %q does not say %q", err, fix)
		}
	}
}

func TestExplainTypeScript(t *testing.T) {
	ts5 := testfs.Tree(t, map[string]string{"package.json": `{"devDependencies":{"typescript":"^5.4.0"}}`})
	for _, tc := range []struct {
		root   string
		engine Engine
		want   string
	}{
		{ts5, "", "engine auto: the project uses TypeScript ^5.4.0, so that TypeScript's tsserver checks it"},
		{ts5, EngineNative, "engine native: TypeScript 7's server checks every project"},
		{t.TempDir(), "", "engine auto: the project pins no TypeScript"},
	} {
		got := NewRegistry(RegistryOptions{TypeScriptEngine: tc.engine}).ExplainTypeScript(tc.root)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("ExplainTypeScript = %q, want %q…", got, tc.want)
		}
	}
}

// clangd comes from Debian, not from Anvil's installer: its absence says
// so, and it checks C and C++ by version-matched publishes.
func TestClangdSpec(t *testing.T) {
	r := NewRegistry(RegistryOptions{ToolsDir: t.TempDir(), LookPath: noPath})
	_, err := r.Resolve(t.TempDir(), "c")
	if err == nil || !strings.Contains(err.Error(), "apt-get install clangd") {
		t.Fatalf("err = %v, want the apt install as the fix", err)
	}
	var spec Spec
	for _, s := range Defaults() {
		if s.Name == "clangd" {
			spec = s
		}
	}
	if spec.Mode != ModePush || !spec.ReadsDiskIncludes || !spec.serves("c") || !spec.serves("cpp") {
		t.Fatalf("clangd spec = %+v", spec)
	}
	for _, p := range []string{"a.c", "a.h", "a.cc", "a.cpp", "a.cxx", "a.hpp", "a.hh", "a.hxx"} {
		if l := LanguageOf(p); l != "c" && l != "cpp" {
			t.Errorf("LanguageOf(%s) = %q", p, l)
		}
	}
}
