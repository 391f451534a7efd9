package shadow

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// withTypeScript installs the project's own TypeScript (from the npm
// registry, cached) into the harness's node_modules, as npm install would.
func withTypeScript(t *testing.T, h *harness, version string) {
	t.Helper()
	pkg := testCorpus().NPMPackage(t, "typescript@"+version)
	if err := os.MkdirAll(filepath.Join(h.dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pkg, filepath.Join(h.dir, "node_modules", "typescript")); err != nil {
		t.Fatal(err)
	}
}

// Projects pinned to TypeScript 6 or older are checked by their own
// compiler's tsserver, whose per-file answers need no quiet period: each
// case here came back clean through typescript-language-server.
func TestValidateTSServer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		installed string // the project's own TypeScript, "" for none
	}{
		{"own TypeScript 5.9", "5.9.3"},
		{"pinned 5.9 but not installed", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "ts-esm", harnessOptions{})
			if tc.installed != "" {
				withTypeScript(t, h, tc.installed)
			}
			srv := h.requireServer("typescript")
			if srv.Spec().Name != "tsserver" {
				t.Fatalf("a TypeScript 5 project got %s", srv.Spec().Name)
			}

			t.Run("partial rename breaks an ESM importer", func(t *testing.T) {
				res := h.validate(map[string]string{"src/shapes.ts": strings.Replace(h.read("src/shapes.ts"), "class Circle", "class Round", 1)})
				expect(t, res, Rejected, "src/render.ts")
				if c := res.New[0].Code; c != "2305" && c != "2724" {
					t.Errorf("want TS2305/TS2724 in the importer, got %s", res.New[0])
				}
				compiler := tc.installed
				if compiler == "" {
					compiler = "6.0.3"
				}
				if res.Servers[0].Version != "typescript "+compiler {
					t.Errorf("checked by %+v, want TypeScript %s", res.Servers, compiler)
				}
				pinNote := strings.Contains(strings.Join(res.Notes, "\n"), "pins typescript ~5.9.3, which is not installed")
				if pinNote != (tc.installed == "") {
					t.Errorf("notes %q: a note about the pinned compiler is wanted only when it is not installed", res.Notes)
				}
			})

			t.Run("the whole rename is clean", func(t *testing.T) {
				res := h.validate(map[string]string{
					"src/shapes.ts": strings.Replace(h.read("src/shapes.ts"), "class Circle", "class Round", 1),
					"src/render.ts": regexp.MustCompile(`\bCircle\b`).ReplaceAllString(h.read("src/render.ts"), "Round"),
				})
				expect(t, res, Clean)
				if !contains(res.CheckedFiles, "src/main.ts") {
					t.Errorf("transitive dependant not checked: %v", res.CheckedFiles)
				}
			})

			t.Run("created file with an error", func(t *testing.T) {
				res := h.validate(map[string]string{"src/newbad.ts": "export const x: number = \"str\";\n"})
				expect(t, res, Rejected, "src/newbad.ts")
			})

			t.Run("created file checked with its project's options", func(t *testing.T) {
				// noImplicitReturns and the #lib/* alias come from the
				// tsconfig.json: an inferred project has neither.
				res := h.validate(map[string]string{"src/sign.ts": "import { round } from \"#lib/round.js\";\n\nexport function sign(n: number) {\n  if (n > 0) return round(1);\n}\n"})
				expect(t, res, Rejected, "src/sign.ts")
				if res.New[0].Code != "7030" || len(res.New) != 1 {
					t.Errorf("want only TS7030 (not all code paths return), got %v", res.New)
				}
				res = h.validate(map[string]string{"src/sign.ts": "import { round } from \"#lib/round.js\";\n\nexport function sign(n: number): number {\n  return n > 0 ? round(1) : 0;\n}\n"})
				expect(t, res, Clean)
				if !contains(res.CheckedFiles, "src/sign.ts") {
					t.Errorf("created file not checked: %v", res.CheckedFiles)
				}
			})

			t.Run("a created module an importer could not resolve", func(t *testing.T) {
				// tsserver looks a failed import up again only when told
				// the disk changed: the importer's TS2307 stayed, and the
				// error the new module brings into it went unreported
				// (found by the gate fuzzer on a pinned workspace). tsc
				// reports TS2322 here, and decides; with no batch checker
				// the change is unverified.
				late := "import { z } from \"./later.js\";\n\nexport const y: boolean = z;\n"
				path := filepath.Join(h.dir, "src/late.ts")
				if err := os.WriteFile(path, []byte(late), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(path)
				expect(t, h.validate(map[string]string{"src/later.ts": "export const z = 1;\n"}), Unverified)

				hb := newHarness(t, "ts-esm", harnessOptions{files: map[string]string{"src/late.ts": late}, opts: Options{BatchStateDir: t.TempDir()}})
				if tc.installed != "" {
					withTypeScript(t, hb, tc.installed)
				}
				res := hb.validate(map[string]string{"src/later.ts": "export const z = 1;\n"})
				expect(t, res, Rejected, "src/late.ts")
				if res.New[0].Code != "2322" {
					t.Errorf("want TS2322 in the importer, got %v", res.New)
				}
				expect(t, hb.validate(map[string]string{"src/later.ts": "export const z = true;\n"}), Clean)
			})

			t.Run("a created file no module can carry into its project", func(t *testing.T) {
				// pkg's project has one file, a script, and a script
				// cannot carry an import. tsserver alone would check the
				// new file in an inferred project, without pkg's
				// noImplicitReturns, where tsc -p pkg reports TS7030: with
				// no batch checker the change is unverified, with one it
				// is tsc's to judge.
				project := map[string]string{
					"pkg/tsconfig.json": `{"compilerOptions": {"target": "es2022", "module": "nodenext", "noImplicitReturns": true, "noEmit": true}, "include": ["*.ts"]}` + "\n",
					"pkg/script.ts":     "const greeting = \"hi\";\n",
				}
				sign := map[string]string{"pkg/sign.ts": "export function sign(n: number) {\n  if (n > 0) return 1;\n}\n"}
				for p, text := range project {
					full := filepath.Join(h.dir, p)
					if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				defer os.RemoveAll(filepath.Join(h.dir, "pkg"))
				res := h.validate(sign)
				expect(t, res, Unverified)
				if why := res.Unverified[0].Reason; !strings.Contains(why, "only with default options") {
					t.Errorf("unverified because %q, want the reason: checked only with default options", why)
				}

				hb := newHarness(t, "ts-esm", harnessOptions{files: project, opts: Options{BatchStateDir: t.TempDir()}})
				if tc.installed != "" {
					withTypeScript(t, hb, tc.installed)
				}
				res = hb.validate(sign)
				expect(t, res, Rejected, "pkg/sign.ts")
				if res.New[0].Code != "7030" {
					t.Errorf("want TS7030 (not all code paths return), got %v", res.New)
				}
				expect(t, hb.validate(map[string]string{"pkg/sign.ts": "export function sign(n: number) {\n  return n > 0 ? 1 : 0;\n}\n"}), Clean)
			})

			t.Run("a file's own error before the change, checked twice", func(t *testing.T) {
				// The second check of the file takes its "before" from the
				// first's (the disk is unchanged): still the disk's, error
				// included. Once the disk changes, it is asked again.
				flaw := "export const bad: number = \"one\";\nexport const good = 1;\n"
				path := filepath.Join(h.dir, "src/flaw.ts")
				if err := os.WriteFile(path, []byte(flaw), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(path)
				expect(t, h.validate(map[string]string{"src/flaw.ts": flaw + "export const two = 2;\n"}), Clean)
				expect(t, h.validate(map[string]string{"src/flaw.ts": flaw + "export const three = 3;\n"}), Clean)
				res := h.validate(map[string]string{"src/flaw.ts": flaw + "export const four: string = 4;\n"})
				expect(t, res, Rejected, "src/flaw.ts")
				if len(res.New) != 1 {
					t.Errorf("new errors %v, want only the added one", res.New)
				}
				fixed := "export const bad: number = 1;\nexport const good = 1;\n"
				if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
					t.Fatal(err)
				}
				// The error is now the change's own.
				expect(t, h.validate(map[string]string{"src/flaw.ts": flaw}), Rejected, "src/flaw.ts")
			})

			t.Run("breaking change in a long file", func(t *testing.T) {
				var b strings.Builder
				b.WriteString("import { Circle } from \"./shapes.js\";\n\n")
				for i := range 1200 {
					fmt.Fprintf(&b, "export function f%d(c: Circle): number {\n  return c.radius + %d;\n}\n", i, i)
				}
				long := b.String()
				if err := os.WriteFile(filepath.Join(h.dir, "src/long.ts"), []byte(long), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(filepath.Join(h.dir, "src/long.ts"))
				broken := strings.Replace(long, "return c.radius + 1100;", "return c.radius + \"1100\";", 1)
				res := h.validate(map[string]string{"src/long.ts": broken})
				expect(t, res, Rejected, "src/long.ts")
				if res.New[0].Line != 2+3*1100+2 {
					t.Errorf("error at line %d, want %d", res.New[0].Line, 2+3*1100+2)
				}
			})
		})
	}
}

// Anvil's TypeScript 6, in place of a project's older one, takes the
// options 6 deprecates (baseUrl, moduleResolution node) as the project's
// compiler does. TypeScript 6 reports each as an error of the options
// and its tsc then checks no file's types, so no batch run of such a
// project was an answer: a check the server could not take alone was
// unverified (an agent's rename of rxjs 7.8.2's Observer, rxjs pinned to
// 4.2), and here the server took it. Its batch runs now say nothing of
// the deprecation and check the types.
func TestStandInTypeScriptTakesTheOptionsItDeprecates(t *testing.T) {
	h := newHarness(t, "ts-esm", harnessOptions{opts: Options{BatchStateDir: t.TempDir(), Strategy: StrategyBatch}})
	tsconfig := strings.Replace(h.read("tsconfig.json"), `"strict": true,`, `"strict": true, "baseUrl": ".",`, 1)
	h.write(map[string]string{"tsconfig.json": tsconfig})
	if srv := h.requireServer("typescript"); srv.Spec().Name != "tsserver" {
		t.Fatalf("a project pinned to TypeScript 5.9 got %s", srv.Spec().Name)
	}
	res := h.validate(map[string]string{"src/shapes.ts": strings.Replace(h.read("src/shapes.ts"), "class Circle", "class Round", 1)})
	expect(t, res, Rejected, "src/render.ts")
	if !strings.HasPrefix(res.Servers[0].Via, "batch: tsc 6") {
		t.Errorf("checked %+v, want TypeScript 6's tsc", res.Servers)
	}
}
