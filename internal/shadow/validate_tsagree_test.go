package shadow

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// agreeOptions are the app's options for TypeScript 7 where it agrees,
// with the background proof made for a project of any size.
func agreeOptions(t *testing.T) Options {
	return Options{BatchStateDir: t.TempDir(), WarmBatch: true, WarmBatchFiles: 1, NativeWhereAgrees: true}
}

// awaitProof makes a check the server answers (which starts the
// background job that warms both compilers' answers for the unchanged
// tree and compares them) and waits until the comparison is made.
func awaitProof(t *testing.T, h *harness, config string) {
	t.Helper()
	res := h.validate(map[string]string{"src/main.ts": h.read("src/main.ts") + "\n// a note\n"})
	expect(t, res, Clean)
	snap, err := h.v.syncDisk(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for !h.v.agreementProven(config, snap.Fingerprint) && !h.v.agreementDisagreed(config) {
		if time.Now().After(deadline) {
			t.Fatalf("no comparison of the two compilers was made; background: %+v", h.v.Background())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A project on TypeScript 5.9 is checked by its own compiler until
// TypeScript 7's answer for its unchanged tree is proven the same; then
// TypeScript 7's tsc takes its batch runs, except at the end of a turn
// (a Complete check), where the project's tsc decides. A configuration
// TypeScript 7 rejects (moduleResolution node10, removed in 7) is a
// disagreement: the project's compiler keeps every run, for good.
func TestTypeScript7WhereItAgrees(t *testing.T) {
	rename := func(h *harness) map[string]string {
		return map[string]string{"src/shapes.ts": strings.Replace(h.read("src/shapes.ts"), "class Circle", "class Round", 1)}
	}
	t.Run("agrees", func(t *testing.T) {
		h := newHarness(t, "ts-esm", harnessOptions{opts: agreeOptions(t)})
		withTypeScript(t, h, "5.9.3")
		h.requireServer("typescript")
		config := filepath.Join(h.dir, "tsconfig.json")

		// Before any proof, the project's own compiler runs.
		h.v.opts.Strategy = StrategyBatch
		res := h.validate(rename(h))
		expect(t, res, Rejected, "src/render.ts")
		if via := res.Servers[0].Via; !strings.Contains(via, "tsc 5.9.3") || strings.Contains(via, "in place of") {
			t.Fatalf("before a proof: via %q, want the project's tsc 5.9.3", via)
		}

		h.v.opts.Strategy = StrategyAuto
		awaitProof(t, h, config)
		if d := h.v.Disagreements(); len(d) != 0 {
			t.Fatalf("the compilers disagree on the unchanged tree: %v", d)
		}
		h.v.opts.Strategy = StrategyBatch
		res = h.validate(rename(h))
		expect(t, res, Rejected, "src/render.ts")
		if via := res.Servers[0].Via; !strings.Contains(via, "tsc 7") || !strings.Contains(via, "in place of the project's tsc 5.9.3") {
			t.Fatalf("after the proof: via %q, want TypeScript 7 in place of tsc 5.9.3", via)
		}

		// The end of a turn: the project's compiler, TypeScript 7 held
		// to its answer (they agree: no note).
		res = h.validateScope(rename(h), Scope{Complete: true})
		expect(t, res, Rejected, "src/render.ts")
		if via := res.Servers[0].Via; !strings.Contains(via, "tsc 5.9.3") || strings.Contains(via, "in place of") || strings.Contains(via, "differ") {
			t.Fatalf("at the end of a turn: via %q, want the project's tsc 5.9.3 and no disagreement", via)
		}
		// A commit too.
		res = h.validateScope(rename(h), Scope{Confirm: true})
		if via := res.Servers[0].Via; !strings.Contains(via, "tsc 5.9.3") || strings.Contains(via, "in place of") {
			t.Fatalf("a commit: via %q, want the project's tsc 5.9.3", via)
		}
		// A clean change TypeScript 7 answered: the commit of the same
		// change reuses none of its answers.
		widen := map[string]string{"src/shapes.ts": strings.Replace(h.read("src/shapes.ts"), "area(): number;", "area(): number;\n  name?: string;", 1)}
		res = h.validate(widen)
		expect(t, res, Clean)
		if via := res.Servers[0].Via; !strings.Contains(via, "in place of") {
			t.Fatalf("a clean change: via %q, want TypeScript 7", via)
		}
		res = h.validateScope(widen, Scope{Confirm: true})
		expect(t, res, Clean)
		if via, notes := res.Servers[0].Via, strings.Join(res.Notes, "\n"); strings.Contains(via, "in place of") || strings.Contains(notes, "reused") {
			t.Fatalf("the commit took TypeScript 7's answers: via %q, notes %q", via, notes)
		}
		// A configuration changed since the proof: the project's
		// compiler, until a proof of the new one.
		testfs.Write(t, h.dir, map[string]string{"tsconfig.json": strings.Replace(h.read("tsconfig.json"), `"strict": true,`, `"strict": true, "noUnusedParameters": false,`, 1)})
		res = h.validate(rename(h))
		if via := res.Servers[0].Via; strings.Contains(via, "in place of") {
			t.Fatalf("after a configuration change: via %q, want the project's tsc", via)
		}

		// New errors that differ on a confirmed change switch the
		// project back, with a note.
		own := &batch.Result{After: map[string][]lsp.Diagnostic{filepath.Join(h.dir, "src/render.ts"): {diag(0, "2305")}}}
		if note := h.v.confirm([]string{config}, "tsc 5.9.3", "tsc 7", own, &batch.Result{}); !strings.Contains(note, "TS2305") {
			t.Fatalf("note %q, want the error only one compiler found", note)
		}
		res = h.validate(rename(h))
		if via := res.Servers[0].Via; strings.Contains(via, "in place of") {
			t.Fatalf("after a disagreement: via %q, want the project's tsc", via)
		}
	})

	t.Run("the server, file by file", func(t *testing.T) {
		h := newHarness(t, "ts-esm", harnessOptions{opts: agreeOptions(t)})
		withTypeScript(t, h, "5.9.3")
		h.requireServer("typescript")
		config := filepath.Join(h.dir, "tsconfig.json")
		broken := func() map[string]string {
			return map[string]string{"src/main.ts": h.read("src/main.ts") + "\nconst count: number = \"three\";\n"}
		}
		viaNative := func(res *Result) bool {
			return strings.Contains(res.Servers[0].Via, "TypeScript 7's server") && strings.Contains(res.Servers[0].Via, "in place of the project's tsc 5.9.3")
		}

		// Before any proof: tsserver of the project's TypeScript.
		res := h.validate(broken())
		expect(t, res, Rejected, "src/main.ts")
		if viaNative(res) {
			t.Fatalf("before a proof: via %q, want tsserver", res.Servers[0].Via)
		}

		awaitProof(t, h, config)
		// TypeScript 7's server has not loaded the project: tsserver
		// answers, and the server loads it for the next check.
		res = h.validate(broken())
		expect(t, res, Rejected, "src/main.ts")
		if viaNative(res) {
			t.Fatalf("before TypeScript 7's server loaded the project: via %q, want tsserver", res.Servers[0].Via)
		}
		awaitNativeLoaded(t, h, "src/main.ts")
		// A full check, and the pre-edit hook's (hooks.EditOptions).
		hook := Scope{Staging: true, NewOnly: true, ChangedOnly: true}
		for _, scope := range []Scope{{}, hook} {
			res = h.validateScope(broken(), scope)
			expect(t, res, Rejected, "src/main.ts")
			if !viaNative(res) {
				t.Fatalf("after the proof (%+v): via %q, want TypeScript 7's server", scope, res.Servers[0].Via)
			}
			res = h.validateScope(map[string]string{"src/main.ts": h.read("src/main.ts") + "\nconst count: number = 3;\n"}, scope)
			expect(t, res, Clean)
			if !viaNative(res) {
				t.Fatalf("a clean edit after the proof (%+v): via %q, want TypeScript 7's server", scope, res.Servers[0].Via)
			}
		}
		// A file with an error on disk: the hook's check asks its
		// "before" only where the change leaves an error, and reads one
		// new error beside the old one, or none.
		main := h.read("src/main.ts")
		h.write(map[string]string{"src/main.ts": main + "\nexport const wrong: number = \"one\";\n"})
		withError := h.read("src/main.ts")
		res = h.validateScope(map[string]string{"src/main.ts": withError + "export const worse: string = 2;\n"}, hook)
		expect(t, res, Rejected, "src/main.ts")
		if len(res.New) != 1 || !strings.Contains(res.New[0].Message, "Type 'number' is not assignable") || !viaNative(res) {
			t.Fatalf("an error beside the file's own: new %v via %q, want TS2322 of worse alone, by TypeScript 7's server", res.New, res.Servers[0].Via)
		}
		res = h.validateScope(map[string]string{"src/main.ts": withError + "// edited\n"}, hook)
		expect(t, res, Clean)
		if !viaNative(res) {
			t.Fatalf("an edit keeping the file's error: via %q, want TypeScript 7's server", res.Servers[0].Via)
		}
		h.write(map[string]string{"src/main.ts": main})
		// The commit and the end of a turn: the project's own server,
		// TypeScript 7's held to its answer (they agree: no note).
		for _, scope := range []Scope{{Confirm: true}, {Complete: true}} {
			res = h.validateScope(broken(), scope)
			expect(t, res, Rejected, "src/main.ts")
			if via := res.Servers[0].Via; viaNative(res) || !strings.Contains(via, "held to its answer, agreed") {
				t.Fatalf("%+v: via %q, want the project's tsserver, and TypeScript 7's server agreeing", scope, via)
			}
		}
		// TypeScript 7's server dies in the middle of a check (once it
		// holds the change): tsserver checks the change, the verdict
		// says so, and the server is started and loaded again in the
		// background once a check finds it gone.
		native, _ := h.mgr.NativeFor("typescript")
		var killed atomic.Bool
		h.v.opts.AfterOverlay = func(*servers.Server) {
			if native.PID() != 0 && killed.CompareAndSwap(false, true) {
				native.Kill()
			}
		}
		res = h.validateScope(broken(), hook)
		h.v.opts.AfterOverlay = nil
		expect(t, res, Rejected, "src/main.ts")
		if notes := strings.Join(res.Notes, "\n"); !killed.Load() || viaNative(res) || !strings.Contains(notes, "tsserver checked it file by file") {
			t.Fatalf("TypeScript 7's server killed (%v) in its check: via %q, notes %q, want tsserver's answer, and a note", killed.Load(), res.Servers[0].Via, notes)
		}
		// The next check finds it gone: tsserver, while it is started
		// again.
		if res = h.validateScope(broken(), hook); viaNative(res) {
			t.Fatalf("right after TypeScript 7's server died: via %q, want tsserver", res.Servers[0].Via)
		}
		awaitNativeLoaded(t, h, "src/main.ts")
		if res = h.validateScope(broken(), hook); !viaNative(res) {
			t.Fatalf("after TypeScript 7's server was loaded again: via %q, want it", res.Servers[0].Via)
		}
		expect(t, res, Rejected, "src/main.ts")
		// A created file: the project's own server, which carries it
		// into its project.
		res = h.validate(map[string]string{"src/extra.ts": "export const extra: number = \"x\";\n"})
		expect(t, res, Rejected, "src/extra.ts")
		if viaNative(res) {
			t.Fatalf("a created file: via %q, want the project's tsserver", res.Servers[0].Via)
		}
		// New errors that differ at a turn's end switch the project
		// back, with a note; never again.
		own := &batch.Result{After: map[string][]lsp.Diagnostic{filepath.Join(h.dir, "src/main.ts"): {diag(3, "2322")}}}
		if note := h.v.confirm([]string{config}, "tsserver", "TypeScript 7's server", own, &batch.Result{}); !strings.Contains(note, "TS2322") || !strings.Contains(note, "from now on") {
			t.Fatalf("note %q, want the error only one server found, and the switch", note)
		}
		res = h.validate(broken())
		expect(t, res, Rejected, "src/main.ts")
		if viaNative(res) {
			t.Fatalf("after a disagreement: via %q, want the project's tsserver", res.Servers[0].Via)
		}
	})

	t.Run("proven after the project's own batch run", func(t *testing.T) {
		// No warm-up ahead (a project below its size): the project's tsc
		// answered a batch check, and the proof takes its answer.
		h := newHarness(t, "ts-esm", harnessOptions{opts: Options{BatchStateDir: t.TempDir(), NativeWhereAgrees: true, Strategy: StrategyBatch}})
		withTypeScript(t, h, "5.9.3")
		h.requireServer("typescript")
		config := filepath.Join(h.dir, "tsconfig.json")
		res := h.validate(rename(h))
		expect(t, res, Rejected, "src/render.ts")
		snap, err := h.v.syncDisk(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(3 * time.Minute); !h.v.agreementProven(config, snap.Fingerprint); {
			if time.Now().After(deadline) {
				t.Fatalf("no proof after the project's batch run; background: %+v; disagreements: %v", h.v.Background(), h.v.Disagreements())
			}
			time.Sleep(100 * time.Millisecond)
		}
		res = h.validate(rename(h))
		expect(t, res, Rejected, "src/render.ts")
		if via := res.Servers[0].Via; !strings.Contains(via, "in place of the project's tsc 5.9.3") {
			t.Fatalf("via %q, want TypeScript 7", via)
		}
	})

	t.Run("baseUrl, which TypeScript 7 removed, read as paths", func(t *testing.T) {
		h := newHarness(t, "ts-esm", harnessOptions{opts: agreeOptions(t), files: map[string]string{
			"tsconfig.json": `{
  // paths through baseUrl, as projects written for TypeScript 5 have them
  "compilerOptions": {"target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": true,
    "noImplicitReturns": true, "noEmit": true, "baseUrl": ".", "paths": {"#lib/*": ["src/lib/*"]}},
  "include": ["src"],
}`,
		}})
		withTypeScript(t, h, "5.9.3")
		h.requireServer("typescript")
		config := filepath.Join(h.dir, "tsconfig.json")
		awaitProof(t, h, config)
		if d := h.v.Disagreements(); len(d) != 0 {
			t.Fatalf("the compilers disagree with baseUrl read as paths: %v", d)
		}
		h.v.opts.Strategy = StrategyBatch
		res := h.validate(rename(h))
		expect(t, res, Rejected, "src/render.ts")
		if via := res.Servers[0].Via; !strings.Contains(via, "in place of the project's tsc 5.9.3") || !strings.Contains(via, "baseUrl as paths") {
			t.Fatalf("via %q, want TypeScript 7 reading baseUrl as paths", via)
		}
		// A break through the mapped path is found under the rewrite.
		res = h.validate(map[string]string{"src/lib/round.ts": strings.Replace(h.read("src/lib/round.ts"), "export function round", "export function roundOff", 1)})
		expect(t, res, Rejected, "src/render.ts")
		// TypeScript 7's server reads the configuration from disk, where
		// no rewrite is: tsserver answers an edit file by file.
		h.v.opts.Strategy = StrategyAuto
		res = h.validate(map[string]string{"src/main.ts": h.read("src/main.ts") + "\nconst count: number = \"three\";\n"})
		expect(t, res, Rejected, "src/main.ts")
		if via := res.Servers[0].Via; strings.Contains(via, "TypeScript 7's server") {
			t.Fatalf("an edit under baseUrl: via %q, want the project's tsserver", via)
		}
		// Not for want of a loaded server: it was never asked to load.
		awaitNoBackground(t, h)
		if srv, ok := h.mgr.NativeFor("typescript"); !ok || srv.PID() != 0 {
			t.Fatalf("TypeScript 7's server was started for a project with baseUrl (may stand in: %v)", ok)
		}
	})

	t.Run("a configuration TypeScript 7 rejects", func(t *testing.T) {
		h := newHarness(t, "ts-esm", harnessOptions{opts: agreeOptions(t), files: map[string]string{
			"tsconfig.json": `{"compilerOptions": {"target": "es2022", "module": "commonjs", "moduleResolution": "node", "strict": true, "noEmit": true, "paths": {"#lib/*": ["./src/lib/*"]}}, "include": ["src"]}`,
			"package.json":  `{"name": "shapes", "private": true, "devDependencies": {"typescript": "~5.9.3"}}`,
		}})
		withTypeScript(t, h, "5.9.3")
		h.requireServer("typescript")
		config := filepath.Join(h.dir, "tsconfig.json")
		awaitProof(t, h, config)
		if why := h.v.Disagreements()[config]; !strings.Contains(why, "TS5108") {
			t.Fatalf("disagreements %v, want TypeScript 7's TS5108 in tsconfig.json", h.v.Disagreements())
		}
		h.v.opts.Strategy = StrategyBatch
		res := h.validate(rename(h))
		expect(t, res, Rejected, "src/render.ts")
		if via := res.Servers[0].Via; !strings.Contains(via, "tsc 5.9.3") || strings.Contains(via, "in place of") {
			t.Fatalf("via %q, want the project's tsc 5.9.3", via)
		}
		// Kept on disk: a new validator (a daemon's restart) knows.
		v2 := New(h.root, h.mgr, h.v.deps, h.v.opts)
		t.Cleanup(v2.Close)
		if _, ok := v2.Disagreements()[config]; !ok {
			t.Fatal("the disagreement was not kept for the next validator")
		}
		if _, ok := NativeDisagreements(h.v.opts.BatchStateDir, h.dir)[config]; !ok {
			t.Fatal("'anvil doctor' would not find the disagreement")
		}
	})
}

// awaitNativeLoaded waits until TypeScript 7's server has loaded the
// project of rel (a check it could have answered has it loaded).
func awaitNativeLoaded(t *testing.T, h *harness, rel string) {
	t.Helper()
	srv, ok := h.mgr.NativeFor("typescript")
	if !ok {
		t.Fatal("no TypeScript 7 server may stand in here")
	}
	for deadline := time.Now().Add(2 * time.Minute); !srv.Prepared([]string{filepath.Join(h.dir, rel)}); {
		if time.Now().After(deadline) {
			t.Fatalf("TypeScript 7's server did not load the project; background: %+v", h.v.Background())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitNoBackground waits until the validator runs no background job.
func awaitNoBackground(t *testing.T, h *harness) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); len(h.v.Background()) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("background work did not end: %+v", h.v.Background())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func diag(line int, code string) lsp.Diagnostic {
	return lsp.Diagnostic{Severity: lsp.SeverityError, Code: json.RawMessage(code), Message: "m" + code, Range: lsp.Range{Start: lsp.Position{Line: line}}}
}

// The comparison: errors by file, line and code, counted; new errors are
// the changed tree's beyond the unchanged tree's.
func TestAnswersDiffer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   map[string][]lsp.Diagnostic
		differ bool
	}{
		{"same", map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322")}}, map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322")}}, false},
		{"another column or wording is the same error", map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322")}},
			map[string][]lsp.Diagnostic{"a.ts": {{Severity: lsp.SeverityError, Code: json.RawMessage("2322"), Message: "other words", Range: lsp.Range{Start: lsp.Position{Line: 1, Character: 9}}}}}, false},
		{"another code", map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322")}}, map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2345")}}, true},
		{"another line", map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322")}}, map[string][]lsp.Diagnostic{"a.ts": {diag(2, "2322")}}, true},
		{"one more", map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322")}}, map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322"), diag(1, "2322")}}, true},
		{"only on one side", nil, map[string][]lsp.Diagnostic{"b.ts": {diag(0, "5108")}}, true},
		{"warnings do not count", nil, map[string][]lsp.Diagnostic{"b.ts": {{Severity: lsp.SeverityWarning, Code: json.RawMessage("6133")}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := answersDiffer(tc.a, tc.b) != ""; got != tc.differ {
				t.Errorf("differ = %v, want %v (%q)", got, tc.differ, answersDiffer(tc.a, tc.b))
			}
		})
	}
	r := &batch.Result{
		Before: map[string][]lsp.Diagnostic{"a.ts": {diag(1, "2322")}},
		After:  map[string][]lsp.Diagnostic{"a.ts": {diag(4, "2322"), diag(7, "2345")}, "b.ts": {diag(0, "2305")}},
	}
	got := newErrorsOf(r)
	if len(got["a.ts"]) != 1 || got["a.ts"][0].CodeString() != "2345" || len(got["b.ts"]) != 1 {
		t.Errorf("new errors %v: want a.ts's TS2345 (its TS2322 only moved) and b.ts's TS2305", got)
	}
}
