package daemon

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp/lspfake"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// freshProject is a hub (constants.ts) and a file that uses it
// (types.ts), as in date-fns: the first edit adds an export to the hub,
// the second uses it.
var freshProject = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler"}}`,
	"constants.ts":  "export const millisecondsInWeek = 604800000;\n",
	"types.ts":      "import { millisecondsInWeek } from \"./constants.js\";\nexport const week: number = millisecondsInWeek;\n",
	"use.ts":        "import { week } from \"./types.js\";\nexport const twice: number = week * 2;\n",
}

// A verdict is about the disk as it is when the check is asked: an edit
// a check allowed, written by the client as it is, is seen by the next
// check, whether the first check finished, or ran into its caller's
// bound while the client wrote (the hook's, which lets the edit through
// unverified). The second edit uses the export the first wrote, so a
// check that judged the older disk refuses it for TS2305.
func TestNextCheckSeesWhatTheClientWrote(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	c := e.dial(t)
	type variant struct {
		name string
		// bound is the first check's caller's bound (0: none).
		bound time.Duration
		extra map[string]string
	}
	var cases []variant
	for _, engine := range []struct {
		name  string
		files map[string]string
	}{
		{"TypeScript 7's server", nil},
		// A project pinning TypeScript 6 is checked by tsserver.
		{"tsserver", map[string]string{"package.json": `{"devDependencies": {"typescript": "^6.0.0"}}`}},
		{"batch", map[string]string{".anvil/config.toml": "check_strategy = \"batch\"\n"}},
	} {
		cases = append(cases, variant{engine.name + "/ran into its bound", 30 * time.Millisecond, engine.files})
		if engine.files == nil {
			cases = append(cases, variant{engine.name + "/finished", 0, nil}, variant{engine.name + "/ran into its bound later", 300 * time.Millisecond, nil})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := maps.Clone(freshProject)
			maps.Copy(files, tc.extra)
			dir := writeProject(t, files)
			ws, err := c.Workspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := untilDeadline(t)
			defer cancel()
			// Warm: the servers hold the disk as it is now.
			if _, err := ws.Check(ctx, specs(map[string]string{"use.ts": freshProject["use.ts"] + "\n"}), service.GateOptions{Staging: true}); err != nil {
				t.Fatal(err)
			}
			for round := range 2 {
				name := fmt.Sprintf("constructFromSymbol%d", round)
				hub := readFile(t, dir, "constants.ts") + fmt.Sprintf("export const %s: unique symbol = Symbol.for(%q);\n", name, name)
				first := specs(map[string]string{"constants.ts": hub})
				fctx, fcancel := ctx, context.CancelFunc(func() {})
				if tc.bound > 0 {
					fctx, fcancel = context.WithTimeout(ctx, tc.bound)
				}
				out, err := ws.Check(fctx, first, service.GateOptions{Staging: true})
				fcancel()
				if tc.bound == 0 && (err != nil || out.Result.Verdict != "clean") {
					t.Fatalf("the first edit: %v %s", err, describeOutcome(out))
				}
				// The client writes the edit it was allowed to make.
				if err := os.WriteFile(filepath.Join(dir, "constants.ts"), []byte(hub), 0o644); err != nil {
					t.Fatal(err)
				}
				types := readFile(t, dir, "types.ts")
				types = fmt.Sprintf("import { %s } from \"./constants.js\";\n", name) + types + fmt.Sprintf("export const tag%d: symbol = %s;\n", round, name)
				out, err = ws.Check(ctx, specs(map[string]string{"types.ts": types}), service.GateOptions{Staging: true})
				if err != nil {
					t.Fatal(err)
				}
				if out.Result.Verdict != "clean" {
					t.Fatalf("round %d: the second edit, which uses what the first wrote, was judged against an older disk: %s", round, describeOutcome(out))
				}
				if round == 0 {
					t.Logf("%s", describeOutcome(out))
				}
				if out.Result.DiskState == "" {
					t.Errorf("the verdict does not name the disk state it judged")
				}
				if err := os.WriteFile(filepath.Join(dir, "types.ts"), []byte(types), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func describeOutcome(out *service.Outcome) string {
	if out == nil || out.Result == nil {
		return "no result"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", out.Result.Verdict)
	for _, d := range out.Result.New {
		fmt.Fprintf(&b, "\n  new %s:%d %s %s", d.Path, d.Line, d.Code, d.Message)
	}
	for _, u := range out.Result.Unverified {
		fmt.Fprintf(&b, "\n  unverified %s: %s", u.Path, u.Reason)
	}
	for _, s := range out.Result.Servers {
		fmt.Fprintf(&b, "\n  by %s %s via %s", s.Name, s.Version, s.Via)
	}
	return b.String()
}

// A check asked while the server is still starting (its initial load
// outlasting the first check's caller) judges the disk as it is when it
// is asked: the file the client wrote meanwhile is told to the server
// once it is up, though the server read the workspace before the write.
// The fake server (lspfake "disk") reads the disk at its load and again
// only for the files it is told changed, as gopls does.
func TestCheckDuringServerStartSeesTheClientsWrite(t *testing.T) {
	e := newEnv(t)
	testfs.Write(t, e.vars["XDG_CONFIG_HOME"], map[string]string{"anvil/config.toml": fmt.Sprintf(
		"[servers.fake]\ncommand = %q\nlanguages = [\"java\"]\nmode = \"push-progress\"\nreports_dependants = true\nenv = [%q]\n",
		os.Args[0], lspfake.Env("progress,disk,load=3s"))})
	e.serve(t, Options{})
	c := e.dial(t)
	dir := writeProject(t, map[string]string{"Constants.java": "provides millis\n", "Types.java": "uses millis\n"})
	ws, err := c.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := untilDeadline(t)
	defer cancel()
	hub := "provides millis\nprovides constructFromSymbol\n"
	// The first check starts the server and runs into its caller's bound
	// while the server loads.
	fctx, fcancel := context.WithTimeout(ctx, 500*time.Millisecond)
	out, err := ws.Check(fctx, specs(map[string]string{"Constants.java": hub}), service.GateOptions{Staging: true})
	fcancel()
	if err == nil && out.Result.Verdict == "clean" {
		t.Fatalf("the first check finished before its bound: the test proves nothing")
	}
	// The client writes the edit, and asks about the next one at once.
	if err := os.WriteFile(filepath.Join(dir, "Constants.java"), []byte(hub), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = ws.Check(ctx, specs(map[string]string{"Types.java": "uses millis\nuses constructFromSymbol\n"}), service.GateOptions{Staging: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Verdict != "clean" {
		t.Fatalf("the edit that uses what the client wrote was judged against the disk before the write: %s", describeOutcome(out))
	}
}

// The same with gopls, cold: the first check starts gopls, whose initial
// load of the workspace outlasts the first check's caller (a hook's
// bound), and the client writes the edit meanwhile.
func TestNextGoCheckSeesWhatTheClientWrote(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	c := e.dial(t)
	for _, bound := range []time.Duration{50 * time.Millisecond, 0} {
		t.Run(fmt.Sprintf("bound %s", bound), func(t *testing.T) {
			dir := writeProject(t, map[string]string{
				"go.mod":      "module example.com/fresh\n\ngo 1.22\n",
				"p/p.go":      "package p\n\n// Week is a week in milliseconds.\nconst Week = 604800000\n",
				"cmd/main.go": "package main\n\nimport \"example.com/fresh/p\"\n\nfunc main() { println(p.Week) }\n",
			})
			ws, err := c.Workspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := untilDeadline(t)
			defer cancel()
			hub := readFile(t, dir, "p/p.go") + "\n// New returns a week.\nfunc New() int { return Week }\n"
			fctx, fcancel := ctx, context.CancelFunc(func() {})
			if bound > 0 {
				fctx, fcancel = context.WithTimeout(ctx, bound)
			}
			out, err := ws.Check(fctx, specs(map[string]string{"p/p.go": hub}), service.GateOptions{Staging: true})
			fcancel()
			if bound == 0 && (err != nil || out.Result.Verdict != "clean") {
				t.Fatalf("the first edit: %v %s", err, describeOutcome(out))
			}
			if err := os.WriteFile(filepath.Join(dir, "p/p.go"), []byte(hub), 0o644); err != nil {
				t.Fatal(err)
			}
			user := "package main\n\nimport \"example.com/fresh/p\"\n\nfunc main() { println(p.Week, p.New()) }\n"
			out, err = ws.Check(ctx, specs(map[string]string{"cmd/main.go": user}), service.GateOptions{Staging: true})
			if err != nil {
				t.Fatal(err)
			}
			if out.Result.Verdict != "clean" {
				t.Fatalf("the second edit, which uses what the first wrote, was judged against an older disk: %s", describeOutcome(out))
			}
		})
	}
}
