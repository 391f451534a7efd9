package shadow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anvil-dev/anvil/internal/corpus"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// realBenchProjects are the benchmark projects built from the registries
// (see realcode_test.go), and a generated 1,000-file project pinned to
// TypeScript 5, checked by tsserver.
func realBenchProjects() map[string]*benchProject {
	withTS := func(b *testing.B, dir, version string) {
		testfs.Write(b, dir, map[string]string{"node_modules/typescript": "->" + testCorpus().NPMPackage(b, "typescript@"+version)})
	}
	ownTSC := func(p *benchProject) {
		// The project's own compiler, as tsserver runs it.
		p.batch = func(b *testing.B, _ *servers.Server) []string {
			return []string{"node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "."}
		}
	}
	ts5 := &benchProject{name: "ts-1000-ts5", target: "src/f07/m23.ts", renameFile: "src/types.ts", renameWord: "User", wantImporters: corpus.TSTypesImporters,
		setup: func(b *testing.B) string {
			dir := generateTS(b)
			testfs.Write(b, dir, map[string]string{"package.json": `{"name": "gen", "private": true, "devDependencies": {"typescript": "~5.9.3"}}`})
			withTS(b, dir, "5.9.3")
			return dir
		}}
	rxjs := &benchProject{name: "rxjs", target: "src/internal/operators/filter.ts", renameFile: "src/internal/util/isFunction.ts", renameWord: "isFunction", wantImporters: 10,
		setup: func(b *testing.B) string {
			dir := b.TempDir()
			pkg := testCorpus().NPMPackage(b, "rxjs@7.8.2")
			copyTreeB(b, filepath.Join(pkg, "src"), filepath.Join(dir, "src"), ".ts")
			copyFileB(b, filepath.Join(pkg, "tsconfig.json"), filepath.Join(dir, "tsconfig.json"))
			testfs.Write(b, dir, map[string]string{"package.json": `{"name": "rxjs-corpus", "private": true, "devDependencies": {"typescript": "~4.2.0"}}`})
			withTS(b, dir, "4.2.4")
			return dir
		}}
	zod := &benchProject{name: "zod", target: "src/v3/locales/en.ts", renameFile: "src/v3/ZodError.ts", renameWord: "ZodIssueCode", wantImporters: 2,
		setup: func(b *testing.B) string {
			dir := b.TempDir()
			copyTreeB(b, filepath.Join(testCorpus().NPMPackage(b, "zod@3.25.76"), "src", "v3"), filepath.Join(dir, "src", "v3"), ".ts")
			testfs.Write(b, dir, map[string]string{
				"package.json": `{"name": "zod-corpus", "private": true, "type": "module"}`,
				"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
					"target": "es2022", "skipLibCheck": true, "lib": ["es2022", "dom"]}, "include": ["src"], "exclude": ["src/**/tests/**", "src/**/benchmarks/**"]}`,
			})
			return dir
		}}
	cobra := &benchProject{name: "cobra", target: "command.go", renameFile: "args.go", renameWord: "PositionalArgs", wantImporters: 1,
		setup: func(b *testing.B) string {
			dir := b.TempDir()
			copyTreeB(b, testCorpus().GoModule(b, "github.com/spf13/cobra", "v1.10.2"), dir, "")
			return dir
		}}
	requests := &benchProject{name: "requests", target: "requests/sessions.py", renameFile: "requests/exceptions.py", renameWord: "RequestException", wantImporters: 1,
		setup: func(b *testing.B) string {
			dir := b.TempDir()
			deb := testCorpus().DebianPackage(b, "python3-requests")
			copyTreeB(b, filepath.Join(deb, "root", "usr", "lib", "python3", "dist-packages", "requests"), filepath.Join(dir, "requests"), ".py")
			testfs.Write(b, dir, map[string]string{"pyrightconfig.json": `{"typeCheckingMode": "standard", "include": ["requests"], "reportMissingImports": "none", "reportMissingModuleSource": "none"}`})
			return dir
		}}
	tsLines(ts5)
	tsLines(rxjs)
	tsLines(zod)
	ownTSC(ts5)
	ownTSC(rxjs)
	goLines(cobra)
	pyLines(requests)
	requests.preexisting = true // pyright finds errors in requests as shipped
	return map[string]*benchProject{"ts-1000-ts5": ts5, "rxjs": rxjs, "zod": zod, "cobra": cobra, "requests": requests}
}

func copyTreeB(b *testing.B, src, dst, ext string) {
	b.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (ext != "" && filepath.Ext(p) != ext) {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return copyFileErr(p, filepath.Join(dst, rel))
	})
	if err != nil {
		b.Fatal(err)
	}
}

func copyFileB(b *testing.B, src, dst string) {
	b.Helper()
	if err := copyFileErr(src, dst); err != nil {
		b.Fatal(err)
	}
}
