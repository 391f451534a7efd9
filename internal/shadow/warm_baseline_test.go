package shadow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Warming a plan's files while its user reads it: the first check of a
// change to them then takes their "before" from what the server said, and
// asks about the change alone; the verdict is the same as without it,
// pre-existing errors included, and a disk changed since is asked again.
func TestWarmBaselines(t *testing.T) {
	for _, tc := range []struct {
		project, language, file, server string
		flaw, addition, breaking        string
		withTS                          string
		// lazy: the server applies opens lazily (pyright), so a changed
		// file is always pulled once more at its disk content before the
		// change goes in (check_pull.go); its warm-up is the server
		// started, the project loaded and the file analysed.
		lazy bool
	}{
		{"ts-esm", "typescript", "src/flaw.ts", "tsserver",
			"export const bad: number = \"one\";\n", "export const two = 2;\n", "export const three: string = 3;\n", "5.9.3", false},
		{"ts", "typescript", "src/flaw.ts", "tsgo",
			"export const bad: number = \"one\";\n", "export const two = 2;\n", "export const three: string = 3;\n", "", false},
		{"py", "python", "app/flaw.py", "pyright",
			"bad: int = \"one\"\n", "two = 2\n", "three: str = 3\n", "", true},
	} {
		t.Run(tc.server, func(t *testing.T) {
			h := newHarness(t, tc.project, harnessOptions{files: map[string]string{tc.file: tc.flaw}})
			if tc.withTS != "" {
				withTypeScript(t, h, tc.withTS)
			}
			if name := h.requireServer(tc.language).Spec().Name; name != tc.server {
				t.Fatalf("%s checked by %s, want %s", tc.project, name, tc.server)
			}
			ctx := context.Background()
			if err := h.v.Warm(ctx, []string{tc.file, "no/such/file.ts"}); err != nil {
				t.Fatalf("Warm: %v", err)
			}
			res := h.validate(map[string]string{tc.file: tc.flaw + tc.addition})
			expect(t, res, Clean)
			if got := res.Servers[0].BaselinesReused; got < 1 && !tc.lazy {
				t.Errorf("the warmed file's baseline was asked again (%d reused)", got)
			}
			res = h.validate(map[string]string{tc.file: tc.flaw + tc.breaking})
			expect(t, res, Rejected, tc.file)
			if len(res.New) != 1 {
				t.Errorf("new errors %v, want only the added one (the pre-existing one is in the baseline)", res.New)
			}

			// The disk changes after the warm-up: the baseline is asked
			// again, and the flaw is now the change's own.
			if err := os.WriteFile(filepath.Join(h.dir, tc.file), []byte(tc.addition), 0o644); err != nil {
				t.Fatal(err)
			}
			res = h.validate(map[string]string{tc.file: tc.flaw + tc.addition})
			expect(t, res, Rejected, tc.file)
			if got := res.Servers[0].BaselinesReused; got != 0 {
				t.Errorf("a baseline of the disk before it changed was reused (%d)", got)
			}
		})
	}
}

// After a check, a small project's answers at the unchanged tree are asked
// of a server that computes them only when asked (pyright), in the
// background: the next change that reaches every importer asks each of
// them once (its "after"), and the verdict is the one a check without
// that work gives (the oracle: the same change on a validator that never
// asked ahead), pre-existing errors and all.
func TestServerAnswersTheUnchangedTreeAhead(t *testing.T) {
	const importers = 6
	files := pyImporters(importers) // use3 is the one the interface change breaks
	withWork := newHarness(t, "py", harnessOptions{files: files, opts: Options{WarmBatch: true}})
	without := newHarness(t, "py", harnessOptions{files: files})
	if name := withWork.requireServer("python").Spec().Name; name != "pyright" {
		t.Fatalf("checked by %s, want pyright", name)
	}
	without.requireServer("python")

	// A body-only edit: the session's first check, which starts the work.
	body := map[string]string{"app/use0.py": files["app/use0.py"] + "\n\ndef more() -> int:\n    return 2\n"}
	expect(t, withWork.validate(body), Clean)
	waitBackground(t, withWork.v)

	change := map[string]string{"app/hub.py": strings.Replace(files["app/hub.py"], "def name(self) -> str", "def label(self) -> str", 1)}
	got := withWork.validate(change)
	want := without.validate(change)
	expect(t, got, Rejected, "app/use3.py")
	if !slices.Equal(got.NewErrorFiles(), want.NewErrorFiles()) || len(got.New) != len(want.New) || len(got.Preexisting) != len(want.Preexisting) {
		t.Errorf("with the answers asked ahead:\n%s\nwithout:\n%s", describe(got), describe(want))
	}
	if reused := got.Servers[0].BaselinesReused; reused < importers {
		t.Errorf("%d answers of the unchanged tree reused, want the %d importers'", reused, importers)
	}
}

// waitBackground waits for v's background jobs to end.
func waitBackground(t *testing.T, v *Validator) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); len(v.Background()) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("background work still running: %+v", v.Background())
		}
	}
}

// Where the project's own batch checker has checked the unchanged tree
// (the background run a large project gets, warmBatch), a change the
// server checks spares the "before" of every file that run found clean,
// and tsserver has been asked ahead about the files it found errors in:
// the verdict is the one a check without any of that gives (the oracle:
// the same change on a validator with no batch checker), pre-existing
// errors and all.
func TestTheBatchCheckersCleanFilesAreNotAskedAgain(t *testing.T) {
	const importers = 6
	for _, tc := range []struct {
		server, project, language, withTS string
		files                             map[string]string
		body, hub, change                 map[string]string
		breaks                            string
		// reused: the "before" answers not asked. tsserver: the hub and
		// the clean importers but the one the change breaks (its
		// "before" is asked where the "after" has an error), and the one
		// with an error, asked ahead; pyright: the clean importers.
		reused int
	}{
		{server: "tsserver", project: "ts-esm", language: "typescript", withTS: "5.9.3",
			files:  tsImporters(importers),
			body:   map[string]string{"src/main.ts": "export const body = 1;\n"},
			hub:    map[string]string{"src/hub.ts": "export interface Shape {\n  area(): number;\n  label(): string;\n}\n\nexport function make(): Shape {\n  return { area: () => 1, label: () => \"s\" };\n}\n"},
			breaks: "src/use3.ts", reused: importers},
		{server: "pyright", project: "py", language: "python",
			files:  pyImporters(importers),
			body:   map[string]string{"app/other.py": "def other() -> int:\n    return 2\n"},
			hub:    map[string]string{"app/hub.py": "class Shape:\n    def area(self) -> int:\n        return 1\n\n    def label(self) -> str:\n        return \"shape\"\n"},
			breaks: "app/use3.py", reused: importers - 1},
	} {
		t.Run(tc.server, func(t *testing.T) {
			withBatch := newHarness(t, tc.project, harnessOptions{files: tc.files, opts: Options{BatchStateDir: t.TempDir(), WarmBatch: true, WarmBatchFiles: 1}})
			without := newHarness(t, tc.project, harnessOptions{files: tc.files})
			if tc.withTS != "" {
				withTypeScript(t, withBatch, tc.withTS)
				withTypeScript(t, without, tc.withTS)
			}
			for _, h := range []*harness{withBatch, without} {
				if name := h.requireServer(tc.language).Spec().Name; name != tc.server {
					t.Fatalf("checked by %s, want %s", name, tc.server)
				}
			}
			// A check of another file: the session's first, which starts
			// the batch checker's run over the unchanged tree.
			expect(t, withBatch.validate(tc.body), Clean)
			waitBackground(t, withBatch.v)
			// That run taught what a run of the batch checker costs here,
			// before any change was weighed by it.
			if _, learned := withBatch.v.costs.batch[tc.server]; !learned {
				t.Errorf("the background run of %s taught no cost of a batch run", tc.server)
			}

			got := withBatch.validate(tc.hub)
			want := without.validate(tc.hub)
			expect(t, got, Rejected, tc.breaks)
			if !slices.Equal(got.NewErrorFiles(), want.NewErrorFiles()) || len(got.New) != len(want.New) || len(got.Preexisting) != len(want.Preexisting) || len(want.Preexisting) == 0 {
				t.Errorf("with the batch checker's answer:\n%s\nwithout:\n%s", describe(got), describe(want))
			}
			if !strings.HasPrefix(got.Servers[0].Via, "the server") {
				t.Fatalf("checked by %q, want the server", got.Servers[0].Via)
			}
			if reused := got.Servers[0].BaselinesReused; reused != tc.reused {
				t.Errorf("%d answers of the unchanged tree not asked, want %d", reused, tc.reused)
			}
		})
	}
}

// hubAndImporters is a hub and n files that use it, in one language: the
// third uses the member the hub's change renames, the fifth has an error
// of its own.
type hubAndImporters struct {
	hubPath, hub string
	// path names importer i; importer writes it, using use; flaw is
	// the fifth's error.
	path     func(i int) string
	importer func(i int, use string) string
	flaw     string
}

func (h hubAndImporters) files(n int) map[string]string {
	files := map[string]string{h.hubPath: h.hub}
	for i := range n {
		use := "area()"
		if i == 3 {
			use = "name()"
		}
		body := h.importer(i, use)
		if i == 5 {
			body += h.flaw
		}
		files[h.path(i)] = body
	}
	return files
}

// tsImporters is the hub and importers in an ESM project.
func tsImporters(n int) map[string]string {
	return hubAndImporters{
		hubPath: "src/hub.ts",
		hub:     "export interface Shape {\n  area(): number;\n  name(): string;\n}\n\nexport function make(): Shape {\n  return { area: () => 1, name: () => \"s\" };\n}\n",
		path:    func(i int) string { return fmt.Sprintf("src/use%d.ts", i) },
		importer: func(i int, use string) string {
			return fmt.Sprintf("import { make } from \"./hub.js\";\n\nexport const use%d = make().%s;\n", i, use)
		},
		flaw: "export const flaw: number = \"pre-existing\";\n",
	}.files(n)
}

// pyImporters is the hub and importers in Python.
func pyImporters(n int) map[string]string {
	return hubAndImporters{
		hubPath: "app/hub.py",
		hub:     "class Shape:\n    def area(self) -> int:\n        return 1\n\n    def name(self) -> str:\n        return \"shape\"\n",
		path:    func(i int) string { return fmt.Sprintf("app/use%d.py", i) },
		importer: func(i int, use string) string {
			return fmt.Sprintf("from app.hub import Shape\n\n\ndef use%d() -> object:\n    return Shape().%s\n", i, use)
		},
		flaw: "\nflaw: int = \"pre-existing\"\n",
	}.files(n)
}
