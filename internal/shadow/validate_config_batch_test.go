package shadow

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// Configuration a server reads only from disk (tsserver's tsconfig.json,
// a base a tsconfig.json or pyright's configuration extends, JSON that
// code imports) is checked
// by the project's batch checker over every project, in a shadow tree of
// the changed files: the checker's verdict, where it was "unverified".
// A configuration file created or deleted changes what the projects are,
// which are read from the disk: still unverified, with the reason.
func TestConfigReadOnlyFromDiskGoesToTheBatchChecker(t *testing.T) {
	tsExtends := map[string]string{
		"tsconfig.json":       `{"extends": "./configs/strict.json", "compilerOptions": {"noEmit": true}, "include": ["src"]}`,
		"configs/strict.json": `{"compilerOptions": {"strict": false}}`,
		"src/loose.ts":        "export function f(x) {\n  return x;\n}\n",
	}
	pyExtends := map[string]string{
		"pyrightconfig.json": `{"extends": "./configs/base.json"}`,
		"configs/base.json":  `{"typeCheckingMode": "basic"}`,
		"app/loose.py":       "def f(x):\n    return x\n",
	}
	tsJSON := map[string]string{
		"tsconfig.json": `{"compilerOptions": {"target": "es2022", "module": "preserve", "moduleResolution": "bundler", "strict": true, "noEmit": true, "skipLibCheck": true, "resolveJsonModule": true}, "include": ["src"]}`,
		"src/data.json": `{"port": 80}`,
		"src/port.ts":   "import data from \"./data.json\";\n\nexport const port: number = data.port;\n",
	}
	tsserverParam := map[string]string{"src/param.ts": "export function f(unused: number): number {\n  return 1;\n}\n"}
	for _, tc := range []struct {
		name, project, server string
		files, change         map[string]string
		want                  Verdict
		newIn                 string // a file the new errors must include
		reason                string // in the unverified reason
	}{
		{name: "tsgo: an extended base turns strict on", project: "ts", server: "typescript", files: tsExtends,
			change: map[string]string{"configs/strict.json": `{"compilerOptions": {"strict": true}}`}, want: Rejected, newIn: "src/loose.ts"},
		{name: "tsgo: an extended base changes nothing checked", project: "ts", server: "typescript", files: tsExtends,
			change: map[string]string{"configs/strict.json": "{\"compilerOptions\": {\"strict\": false}}\n"}, want: Clean},
		// tsc checks no types while any file has a syntax error: its
		// silence about loose.ts is no evidence.
		{name: "tsgo: an extended base turns strict on beside a file that does not parse", project: "ts", server: "typescript",
			files:  withFiles(tsExtends, map[string]string{"src/broken.ts": "export const x = (;\n"}),
			change: map[string]string{"configs/strict.json": `{"compilerOptions": {"strict": true}}`}, want: Unverified, reason: "no error of its type checker"},
		// So do errors of its options: TypeScript 7 removed baseUrl
		// (TS5102, in tsconfig.json), and prints that error alone.
		{name: "tsgo: an extended base turns strict on under an option the compiler removed", project: "ts", server: "typescript",
			files:  withFiles(tsExtends, map[string]string{"tsconfig.json": `{"extends": "./configs/strict.json", "compilerOptions": {"noEmit": true, "baseUrl": "."}, "include": ["src"]}`}),
			change: map[string]string{"configs/strict.json": `{"compilerOptions": {"strict": true}}`}, want: Unverified, reason: "no error of its type checker"},
		{name: "tsgo: JSON code imports changes a type", project: "ts", server: "typescript", files: tsJSON,
			change: map[string]string{"src/data.json": `{"port": "80"}`}, want: Rejected, newIn: "src/port.ts"},
		{name: "tsgo: JSON code imports keeps its types", project: "ts", server: "typescript", files: tsJSON,
			change: map[string]string{"src/data.json": `{"port": 8080}`}, want: Clean},
		{name: "tsserver: tsconfig.json turns noUnusedParameters on", project: "ts-esm", server: "typescript", files: tsserverParam,
			change: map[string]string{"tsconfig.json": "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"nodenext\", \"moduleResolution\": \"nodenext\", \"strict\": true, \"noImplicitReturns\": true, \"noEmit\": true, \"noUnusedParameters\": true, \"paths\": {\"#lib/*\": [\"./src/lib/*\"]}}, \"include\": [\"src\"]}\n"},
			want:   Rejected, newIn: "src/param.ts"},
		{name: "tsserver: tsconfig.json reformatted", project: "ts-esm", server: "typescript", files: tsserverParam,
			change: map[string]string{"tsconfig.json": "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"nodenext\", \"moduleResolution\": \"nodenext\", \"strict\": true, \"noImplicitReturns\": true, \"noEmit\": true, \"paths\": {\"#lib/*\": [\"./src/lib/*\"]}}, \"include\": [\"src\"]}\n"},
			want:   Clean},
		{name: "tsserver: a project configuration created", project: "ts-esm", server: "typescript", files: tsserverParam,
			change: map[string]string{"src/lib/tsconfig.json": `{"compilerOptions": {"strict": false}}`},
			want:   Unverified, reason: "created or deleted"},
		{name: "pyright: an extended base turns strict on", project: "py", server: "python", files: pyExtends,
			change: map[string]string{"configs/base.json": `{"typeCheckingMode": "strict"}`}, want: Rejected, newIn: "app/loose.py"},
		{name: "pyright: an extended base changes nothing checked", project: "py", server: "python", files: pyExtends,
			change: map[string]string{"configs/base.json": "{\"typeCheckingMode\": \"basic\"}\n"}, want: Clean},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.project, harnessOptions{files: tc.files, opts: Options{BatchStateDir: t.TempDir()}})
			h.requireServer(tc.server)
			res := h.validate(tc.change)
			if res.Verdict != tc.want {
				t.Fatalf("verdict = %s, want %s\n%s", res.Verdict, tc.want, describe(res))
			}
			if tc.newIn != "" && !slices.Contains(res.NewErrorFiles(), tc.newIn) {
				t.Errorf("no new error in %s\n%s", tc.newIn, describe(res))
			}
			if tc.reason != "" && (len(res.Unverified) == 0 || !strings.Contains(res.Unverified[0].Reason, tc.reason)) {
				t.Errorf("unverified without saying %q\n%s", tc.reason, describe(res))
			}
			if tc.want != Unverified && !slices.ContainsFunc(res.Servers, func(s ServerInfo) bool { return strings.HasPrefix(s.Via, "batch:") }) {
				t.Errorf("not checked by the batch checker\n%s", describe(res))
			}
		})
	}
}

// gopls reads go.sum only from disk, and a go.mod's requirements load only
// as far as go.sum's entries allow: the go command itself (go vet ./...)
// checks a change to the module files over the changed tree. One
// workspace for the cases: the checker's build cache is cold only once.
func TestModuleFilesGoToTheGoCommand(t *testing.T) {
	goMod := "module example.com/shop\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ./lib\n"
	h := newHarness(t, "go", harnessOptions{files: map[string]string{
		"go.mod":       goMod,
		"go.sum":       "example.com/unused v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
		"lib/go.mod":   "module example.com/lib\n\ngo 1.22\n",
		"lib/lib.go":   "package lib\n\nfunc Name() string { return Same(\"lib\") }\n\nfunc Same[T any](x T) T { return x }\n",
		"uses/uses.go": "package uses\n\nimport \"example.com/lib\"\n\nvar N = lib.Name()\n",
	}, opts: Options{BatchStateDir: t.TempDir()}})
	h.requireServer("go")
	// go vet ./... at the root leaves out a module below it: a change to
	// that module's files runs it there, and in the root, whose replace
	// builds from lib's folder (modules: how many go vet runs).
	for _, tc := range []struct {
		name    string
		change  map[string]string
		want    Verdict
		modules int
	}{
		{"go.mod drops the module a package imports", map[string]string{"go.mod": "module example.com/shop\n\ngo 1.22\n"}, Rejected, 1},
		{"go.mod gains a comment", map[string]string{"go.mod": "// The shop.\n" + goMod}, Clean, 1},
		{"go.sum gains an entry nothing uses", map[string]string{"go.sum": "example.com/unused v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\nexample.com/unused v1.1.0/go.mod h1:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=\n"}, Clean, 1},
		{"lib/go.mod lowers the go version below a generic function of lib", map[string]string{"lib/go.mod": "module example.com/lib\n\ngo 1.17\n"}, Rejected, 2},
		// (The go command takes a directory a replace names whatever
		// path its go.mod declares.)
		{"lib/go.mod renames the module the root replaces by it", map[string]string{"lib/go.mod": "module example.com/lib2\n\ngo 1.22\n"}, Clean, 2},
		{"lib/go.mod gains a comment", map[string]string{"lib/go.mod": "// The library.\nmodule example.com/lib\n\ngo 1.22\n"}, Clean, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.validate(tc.change)
			if res.Verdict != tc.want {
				t.Fatalf("verdict = %s, want %s\n%s", res.Verdict, tc.want, describe(res))
			}
			via := fmt.Sprintf("batch: go vet over the whole of %d %s", tc.modules, plural(tc.modules, "project", "projects"))
			if !slices.ContainsFunc(res.Servers, func(s ServerInfo) bool { return strings.HasPrefix(s.Via, via) }) {
				t.Errorf("not checked by the go command in %d modules\n%s", tc.modules, describe(res))
			}
		})
	}
}

// withFiles is files with more laid over them.
func withFiles(files, more map[string]string) map[string]string {
	out := maps.Clone(files)
	maps.Copy(out, more)
	return out
}

// A change the batch checker takes, in a project where another file does
// not parse: tsc reports that file's syntax error and checks no types
// anywhere, so its answer on either side says nothing of the change's
// type error. The server, which checks each file's types whatever
// another file holds, answers instead.
func TestASyntaxErrorElsewhereLeavesTheBatchCheckerSilent(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{files: map[string]string{
		"src/broken.ts": "export const x = (;\n",
		"src/n.ts":      "export const n: number = 1;\n",
	}, opts: Options{BatchStateDir: t.TempDir(), Strategy: StrategyBatch}})
	h.requireServer("typescript")
	res := h.validate(map[string]string{"src/n.ts": "export const n: number = \"one\";\n"})
	expect(t, res, Rejected, "src/n.ts")
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "no error of its type checker") {
		t.Errorf("the verdict does not say why the batch checker could not answer: %s\n%s", notes, describe(res))
	}
}
