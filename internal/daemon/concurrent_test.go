package daemon

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// mixedProject is a TypeScript and Go workspace whose files the change
// sets below edit in conflicting ways.
var mixedProject = map[string]string{
	"package.json":  `{"name": "mixed", "private": true}`,
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler"}, "include": ["src"]}`,
	"src/types.ts":  "export interface User {\n  id: string;\n  name: string;\n}\n",
	"src/db.ts":     "import { User } from \"./types\";\n\nexport function find(id: string): User {\n  return { id, name: \"x\" };\n}\n",
	"src/api.ts":    "import { find } from \"./db\";\n\nexport function nameOf(id: string): string {\n  return find(id).name;\n}\n",
	"src/util.ts":   "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
	"src/main.ts":   "import { add } from \"./util\";\n\nexport const three: number = add(1, 2);\n",
	"go.mod":        "module example.com/mixed\n\ngo 1.22\n",
	"lib/lib.go":    "package lib\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n",
	"main.go":       "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/mixed/lib\"\n)\n\nfunc main() { fmt.Println(lib.Twice(2) + 1) }\n",
}

// conflicting change sets: several edit the same file in different ways,
// some break its dependants, some are clean.
var conflicting = []map[string]string{
	{"src/types.ts": "export interface User {\n  id: string;\n  title: string;\n}\n"},                                                                                                                                                          // breaks db.ts, api.ts
	{"src/types.ts": "export interface User {\n  id: string;\n  name: string;\n  email?: string;\n}\n"},                                                                                                                                        // clean
	{"src/db.ts": "import { User } from \"./types\";\n\nexport function find(id: string): string {\n  return id;\n}\n"},                                                                                                                        // breaks api.ts
	{"src/util.ts": "export function add(a: number, b: number): string {\n  return `${a + b}`;\n}\n"},                                                                                                                                          // breaks main.ts
	{"src/util.ts": "// Adds.\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n"},                                                                                                                                     // clean
	{"lib/lib.go": "package lib\n\n// Twice doubles n.\nfunc Twice(n int) string { return fmt.Sprint(2 * n) }\n"},                                                                                                                              // breaks lib.go and main.go
	{"lib/lib.go": "package lib\n\n// Twice doubles n, twice.\nfunc Twice(n int) int { return n + n }\n", "src/api.ts": "import { find } from \"./db\";\n\nexport function nameOf(id: string): string {\n  return find(id).name.trim();\n}\n"}, // clean, both servers
	{"src/types.ts": "export interface User {\n  id: number;\n  name: string;\n}\n", "lib/lib.go": "package lib\n\nfunc Twice(n int) int { return 2 * m }\n"},                                                                                  // breaks both
}

// Clients checking conflicting change sets on one workspace at once get
// exactly the verdicts each change set gets alone: no client ever sees
// another's overlay.
func TestConcurrentClientsMatchSolo(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	dir := writeProject(t, mixedProject)
	ctx := context.Background()

	solo := make([]string, len(conflicting))
	ws, err := e.dial(t).Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, cs := range conflicting {
		out, err := ws.Check(ctx, specs(cs), service.GateOptions{})
		if err != nil {
			t.Fatalf("change set %d alone: %v", i, err)
		}
		solo[i] = verdict(out.Result)
	}
	// The table means what its comments say.
	for i, want := range []shadow.Verdict{"rejected", "clean", "rejected", "rejected", "clean", "rejected", "clean", "rejected"} {
		if !strings.Contains(solo[i], `"verdict":"`+string(want)+`"`) {
			t.Fatalf("change set %d alone: want %s, got %s", i, want, solo[i])
		}
	}

	const clients, rounds = 6, 2
	var wg sync.WaitGroup
	errs := make(chan string, clients*rounds*len(conflicting))
	for n := range clients {
		c := e.dial(t)
		wg.Go(func() {
			ws, _ := c.Workspace(dir)
			r := rand.New(rand.NewPCG(uint64(n), 7))
			for range rounds {
				for _, i := range r.Perm(len(conflicting)) {
					out, err := ws.Check(ctx, specs(conflicting[i]), service.GateOptions{})
					switch {
					case err != nil:
						errs <- fmt.Sprintf("client %d, change set %d: %v", n, i, err)
					case verdict(out.Result) != solo[i]:
						errs <- fmt.Sprintf("client %d, change set %d:\n  beside others %s\n  alone         %s", n, i, verdict(out.Result), solo[i])
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if snap := readAll(t, dir); snap != readAllMap(mixedProject) {
		t.Error("a check wrote to the workspace")
	}
}

// A client that goes away in the middle of a check leaves nothing of its
// change behind: the next check, of a file that depends on the one the
// first changed, sees the disk.
func TestDisconnectMidCheckLeavesNoOverlay(t *testing.T) {
	e := newEnv(t)
	d := e.serve(t, Options{})
	dir := writeProject(t, mixedProject)

	for attempt := range 3 {
		c := e.dial(t)
		ws, _ := c.Workspace(dir)
		done := checkUnderWay(t, ws, conflicting[0]) // types.ts renamed: db.ts breaks
		// Later and later into the check.
		time.Sleep(time.Duration(attempt) * 3 * time.Millisecond)
		c.Close()
		<-done

		ws2, _ := e.dial(t).Workspace(dir)
		edit := strings.Replace(mixedProject["src/db.ts"], "return {", "// found\n  return {", 1)
		out, err := ws2.Check(context.Background(), specs(map[string]string{"src/db.ts": edit}), service.GateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Result.Verdict != shadow.Clean {
			t.Fatalf("attempt %d: after a client left mid-check, a clean edit of a dependant was not clean:\n%s", attempt, verdict(out.Result))
		}
	}
	waitIdle(t, d)
	// And it costs the other clients nothing: the servers that were warm
	// stay warm.
	for _, ws := range d.status().Workspaces {
		for _, srv := range ws.Servers {
			if srv.Restarts != 0 {
				t.Errorf("%s was restarted %d times after clients left mid-check", srv.Name, srv.Restarts)
			}
		}
	}
}

// waitIdle waits until the daemon has no request in flight.
func waitIdle(t *testing.T, d *Daemon) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		busy := 0
		for _, ws := range d.status().Workspaces {
			busy += ws.Active
		}
		if busy == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("requests still in flight after 30 s")
}
