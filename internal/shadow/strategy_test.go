package shadow

import (
	"slices"
	"strings"
	"testing"
)

// The batch checker and the server, file by file, give the same verdict
// with the new errors in the same files, and the verdict says which
// checked.
func TestBatchAgreesWithTheServer(t *testing.T) {
	type change struct {
		name  string
		files func(h *harness) map[string]string
	}
	renameUser := func(h *harness, files ...string) map[string]string {
		out := map[string]string{}
		for _, f := range files {
			out[f] = wordUser.ReplaceAllString(h.read(f), "Account")
		}
		return out
	}
	for _, tc := range []struct {
		project  string
		language string
		tsVer    string // the project's own TypeScript, for tsserver
		changes  []change
	}{
		{"ts", "typescript", "", []change{
			{"partial rename", func(h *harness) map[string]string { return renameUser(h, "src/types.ts") }},
			{"full rename", func(h *harness) map[string]string { return renameUser(h, "src/types.ts", "src/db.ts", "src/auth.ts") }},
			{"a type error", func(h *harness) map[string]string {
				return map[string]string{"src/orders.ts": h.read("src/orders.ts") + "\nexport const bad: number = \"x\";\n"}
			}},
			{"a body-only edit", func(h *harness) map[string]string {
				return map[string]string{"src/db.ts": strings.Replace(h.read("src/db.ts"), "return users.get(id);", "const u = users.get(id);\n  return u;", 1)}
			}},
			// (A deleted module with importers goes to the batch checker
			// whatever the strategy: see servers.Defaults, tsgo.)
			{"a created module", func(h *harness) map[string]string {
				return map[string]string{"src/extra.ts": "import { User } from \"./types\";\nexport const n: User = { id: 1 };\n"}
			}},
		}},
		{"ts-esm", "typescript", "5.9.3", []change{
			{"partial rename", func(h *harness) map[string]string {
				return map[string]string{"src/shapes.ts": strings.Replace(h.read("src/shapes.ts"), "class Circle", "class Round", 1)}
			}},
			{"a comment", func(h *harness) map[string]string {
				return map[string]string{"src/shapes.ts": h.read("src/shapes.ts") + "\n// c\n"}
			}},
		}},
		{"py", "python", "", []change{
			{"a changed signature", func(h *harness) map[string]string {
				return map[string]string{"app/db.py": strings.Replace(h.read("app/db.py"), "def find_user(user_id: str)", "def find_user(user_id: int)", 1)}
			}},
			{"a type error", func(h *harness) map[string]string {
				return map[string]string{"app/auth.py": h.read("app/auth.py") + "\nbad: int = \"x\"\n"}
			}},
		}},
	} {
		t.Run(tc.project, func(t *testing.T) {
			verdicts := map[Strategy][]*Result{}
			for _, strategy := range []Strategy{StrategyPerFile, StrategyBatch} {
				h := newHarness(t, tc.project, harnessOptions{opts: Options{Strategy: strategy, BatchStateDir: t.TempDir(), Exhaustive: true}})
				if tc.tsVer != "" {
					withTypeScript(t, h, tc.tsVer)
				}
				h.requireServer(tc.language)
				for _, c := range tc.changes {
					res := h.validate(c.files(h))
					verdicts[strategy] = append(verdicts[strategy], res)
					via := res.Servers[0].Via
					if (strategy == StrategyBatch) != strings.HasPrefix(via, "batch: ") {
						t.Errorf("%s, %s: checked via %q (notes: %v)", strategy, c.name, via, res.Notes)
					}
				}
			}
			for i, c := range tc.changes {
				pf, b := verdicts[StrategyPerFile][i], verdicts[StrategyBatch][i]
				if pf.Verdict != b.Verdict || !slices.Equal(pf.NewErrorFiles(), b.NewErrorFiles()) {
					t.Errorf("%s: file by file %s in %v; batch %s in %v\nper file:\n%s\nbatch:\n%s", c.name,
						pf.Verdict, pf.NewErrorFiles(), b.Verdict, b.NewErrorFiles(), describe(pf), describe(b))
				}
			}
		})
	}
}

// A batch checker that cannot build the program as the project's build
// does (a type library it cannot find, seen as an error of no file both
// before and after the change) is no evidence, though both sides agree:
// the server checks instead, and a type error is still rejected.
func TestBatchWithAnErrorOfNoFileIsNoEvidence(t *testing.T) {
	h := newHarness(t, "ts", harnessOptions{
		files: map[string]string{"tsconfig.json": `{"compilerOptions": {"target": "es2022", "module": "preserve", "moduleResolution": "bundler",
			"strict": true, "noEmit": true, "skipLibCheck": true, "types": ["anvil-missing-types"]}, "include": ["src"]}`},
		opts: Options{Strategy: StrategyBatch, BatchStateDir: t.TempDir()}})
	h.requireServer("typescript")
	res := h.validate(map[string]string{"src/db.ts": h.read("src/db.ts") + "\nexport const anvilBad: number = \"s\";\n"})
	if res.Verdict != Rejected || !contains(res.NewErrorFiles(), "src/db.ts") {
		t.Fatalf("a type error under a batch checker that cannot build the program:\n%s", describe(res))
	}
	if via := res.Servers[0].Via; strings.HasPrefix(via, "batch: ") || !strings.Contains(strings.Join(res.Notes, "\n"), "error of no file") {
		t.Errorf("checked via %q, notes %v", via, res.Notes)
	}
}
