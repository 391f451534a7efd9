package tsdecl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The test binary is also the containment helper.
func TestMain(m *testing.M) {
	proc.Main(os.Getenv)
	os.Exit(m.Run())
}

// emitter is the emitter as Anvil runs it: contained, with a hidden
// place (the test's own) it must not see.
func emitter(t *testing.T) *Emitter {
	t.Helper()
	e := Find(FindOptions{ToolsDir: servers.DefaultToolsDir(os.Getenv), Path: os.Getenv("PATH"),
		Contain: &proc.Containment{Helper: os.Args[0], Hidden: []string{t.TempDir()}}})
	if e == nil {
		t.Fatal("no TypeScript 6 in Anvil's tools directory, or no node: run scripts/install-servers.sh")
	}
	t.Cleanup(e.Close)
	return e
}

func TestEmit(t *testing.T) {
	e := emitter(t)
	cases := []struct {
		name, file, src string
		complete        bool
		contains        string
	}{
		{"declared types", "a.ts", "export function f(n: number): string { return String(n); }\n", true, "export declare function f(n: number): string;"},
		{"a body is not the interface", "a.ts", "export function f(n: number): string { const x = n * 2; return String(x); }\n", true, "export declare function f(n: number): string;"},
		{"an inferred return type needs the checker", "a.ts", "export function f(n: number) { return n; }\n", false, ""},
		{"a field inferred from the constructor needs the checker", "a.ts", "export class A {\n  x;\n  constructor() { this.x = 1; }\n}\n", false, ""},
		{"a text that does not parse", "a.ts", "export function (", false, ""},
		{"declare global is in the emit", "g.ts", "export {};\ndeclare global { var g: number }\n", true, "var g: number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := e.Emit(context.Background(), c.file, []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if r.Complete != c.complete || !strings.Contains(r.DTS, c.contains) {
				t.Errorf("complete %v (want %v), emit:\n%s", r.Complete, c.complete, r.DTS)
			}
		})
	}
}

// The emit writes a private member without its type; the open emit
// carries it, so a change of that type is a change of the interface.
func TestEmitPrivateMembers(t *testing.T) {
	e := emitter(t)
	cases := []struct {
		name, src string
		complete  bool
		open      []string // in the open emit
	}{
		{"a private field's type", "export class A {\n  private x: number = 1;\n}\n", true, []string{"x: number"}},
		{"a parameter property", "export class A {\n  constructor(private readonly y: string) {}\n}\n", true, []string{"readonly y: string"}},
		{"a private method's signature", "export class A {\n  private m(n: number): string {\n    return String(n);\n  }\n}\n", true, []string{"m(n: number): string"}},
		{"an inferred private field needs the checker", "export class A {\n  private x = f();\n}\ndeclare function f(): number;\n", false, nil},
		{"a name that is no modifier", "export const privateKey: number = 1;\nexport class B {\n  #p: number = 1;\n}\n", true, []string{"privateKey: number", "#private"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := e.Emit(context.Background(), "a.ts", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if r.Complete != c.complete {
				t.Fatalf("complete %v, want %v; open emit:\n%s", r.Complete, c.complete, r.Open)
			}
			for _, want := range c.open {
				if !strings.Contains(r.Open, want) {
					t.Errorf("the open emit lacks %q:\n%s", want, r.Open)
				}
			}
		})
	}
}

// A caller that gives up leaves no answer behind for the next one, and a
// killed process is started again.
func TestEmitAfterAKill(t *testing.T) {
	e := emitter(t)
	ctx := context.Background()
	if _, err := e.Emit(ctx, "a.ts", []byte("export const a: number = 1;\n")); err != nil {
		t.Fatal(err)
	}
	_ = e.acquire(ctx)
	e.p.Kill()
	e.release()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Emit(cancelled, "b.ts", []byte("export const b: number = 1;\n")); err == nil {
		t.Error("a cancelled call answered")
	}
	r, err := e.Emit(ctx, "c.ts", []byte("export const c: string = \"\";\n"))
	if err != nil || !strings.Contains(r.DTS, "c: string") {
		t.Errorf("after a kill: %v %q", err, r.DTS)
	}
}

// The emitter runs as the policy says: contained (its process is the
// helper's), and not at all with a node the policy refuses (one inside an
// untrusted workspace, first on PATH).
func TestEmitterFollowsThePolicy(t *testing.T) {
	e := emitter(t)
	if _, err := e.Emit(context.Background(), "a.ts", []byte("export const a = 1;\n")); err != nil {
		t.Fatal(err)
	}
	_ = e.acquire(context.Background())
	contained := e.p != nil && e.p.Contained()
	e.release()
	if !contained {
		t.Errorf("the declaration emitter runs uncontained")
	}
	refused := errors.New("untrusted")
	if got := Find(FindOptions{ToolsDir: servers.DefaultToolsDir(os.Getenv), Path: os.Getenv("PATH"), Allow: func(string) error { return refused }}); got != nil {
		t.Errorf("an emitter with a node the policy refuses")
	}
	if got := Find(FindOptions{ToolsDir: servers.DefaultToolsDir(os.Getenv), Path: "relative/bin"}); got != nil {
		t.Errorf("node found on a relative PATH entry")
	}
}

// A caller that gives up while the process answers leaves the process
// running (its warm programs kept), and the next call gets its own
// answer, never the abandoned one; a caller waiting for the process's
// turn waits only as long as its context lets it.
func TestAGivenUpAnswerKeepsTheProcess(t *testing.T) {
	e := emitter(t)
	ctx := context.Background()
	if _, err := e.Emit(ctx, "a.ts", []byte("export const a: number = 1;\n")); err != nil {
		t.Fatal(err)
	}
	_ = e.acquire(ctx)
	pid := e.p.PID()
	e.release()

	dir := slowProject(t)
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := e.Imports(short, filepath.Join(dir, "tsconfig.json"), dir, nil, false); err == nil {
		t.Fatal("the record came back within 20 ms: nothing was given up")
	}
	waiting, cancelWait := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancelWait()
	go func() { _ = e.acquire(ctx); time.Sleep(300 * time.Millisecond); e.release() }()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	if _, err := e.Emit(waiting, "busy.ts", []byte("export const busy = 1;\n")); err == nil || time.Since(start) > time.Second {
		t.Errorf("a call whose context ended while another held the turn: %v after %s", err, time.Since(start))
	}
	r, err := e.Emit(ctx, "c.ts", []byte("export const c: string = \"\";\n"))
	if err != nil || !strings.Contains(r.DTS, "c: string") {
		t.Fatalf("after an answer given up: %v %q", err, r.DTS)
	}
	_ = e.acquire(ctx)
	defer e.release()
	if e.p.PID() != pid {
		t.Errorf("the process was replaced (%d, then %d): giving up on an answer stopped it", pid, e.p.PID())
	}
}

// Close cuts a request in flight (a record made for the emitter's life,
// which no caller waits for) at once, ends the emitter's life, and leaves
// no process; a later request starts another.
func TestCloseCutsARequestInFlight(t *testing.T) {
	e := emitter(t)
	dir := slowProject(t)
	life := e.Lifetime()
	answered := make(chan error, 1)
	go func() {
		_, err := e.Imports(life, filepath.Join(dir, "tsconfig.json"), dir, nil, false)
		answered <- err
	}()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	e.Close()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close waited %s for the request in flight", took)
	}
	if err := <-answered; err == nil {
		t.Error("the request in flight was answered after Close")
	}
	if life.Err() == nil {
		t.Error("the emitter's life did not end at Close")
	}
	_ = e.acquire(context.Background())
	left := e.p
	e.release()
	if left != nil {
		t.Error("a process is left after Close")
	}
	if r, err := e.Emit(context.Background(), "a.ts", []byte("export const a: number = 1;\n")); err != nil || !strings.Contains(r.DTS, "a: number") {
		t.Errorf("after Close: %v %q", err, r.DTS)
	}
}

// slowProject is a project whose record takes the emitter far longer
// than a test's short waits: 400 files in a ring of imports.
func slowProject(t *testing.T) string { return slowProjectOf(t, 400) }

// slowProjectOf is a project of n modules in rings of up to 400 imports
// (a longer ring overflows the checker's stack).
func slowProjectOf(t *testing.T, n int) string {
	dir := t.TempDir()
	files := map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true}}`}
	for i := range n {
		ring := i / 400 * 400
		next := ring + (i-ring+1)%min(400, n-ring)
		files[fmt.Sprintf("m%d.ts", i)] = fmt.Sprintf("import { v%d } from \"./m%d\";\nexport const v%d: number = %d;\nexport const w%d = v%d;\n", next, next, i, i, i, next)
	}
	testfs.Write(t, dir, files)
	return dir
}

// A request its caller gave up on that is still unanswered past its own
// bound is a hung process: the next request does not wait behind it,
// whether it comes after that bound or before, but is asked of a new
// process. One answered meanwhile, while no one read it, is no hang: the
// process, and the programs it keeps, stay.
func TestNoRequestWaitsBehindAHungOne(t *testing.T) {
	dir := slowProjectOf(t, 2400)
	ctx := context.Background()
	pidOf := func(e *Emitter) int {
		_ = e.acquire(ctx)
		defer e.release()
		return e.p.PID()
	}
	// slow sends the slow record with bound and gives it up after 20 ms,
	// leaving the process at it.
	slow := func(e *Emitter, bound time.Duration) time.Time {
		t.Helper()
		pid := pidOf(e)
		_ = e.acquire(ctx)
		defer e.release()
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		sent := time.Now()
		_, err := e.roundTrip(short, bound, map[string]any{"kind": "imports", "config": filepath.Join(dir, "tsconfig.json"), "root": dir, "reuse": false})
		if err == nil || !strings.Contains(err.Error(), "not waited for") || e.p == nil || e.p.PID() != pid {
			t.Fatalf("the record was not given up with its process kept: %v", err)
		}
		return sent
	}
	// How long the slow record takes in full, to tell waiting behind it
	// from being asked anew.
	e := emitter(t)
	if _, err := e.Emit(ctx, "warm.ts", []byte("export const w = 1;\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := e.Imports(ctx, filepath.Join(dir, "tsconfig.json"), dir, nil, false); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	const bound = 200 * time.Millisecond
	if full < 4*bound {
		t.Fatalf("the slow project's record took %s: too fast to stand for a hung one", full)
	}
	for _, tc := range []struct {
		name string
		// wait before the next request: past the hung request's bound,
		// none (the process still owes the answer), or until the answer
		// came, unread.
		wait     time.Duration
		replaced bool
	}{
		{"after the hung request's bound", bound + 50*time.Millisecond, true},
		{"within it", 0, true},
		{"answered meanwhile, unread", full + time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := emitter(t)
			if _, err := e.Emit(ctx, "warm.ts", []byte("export const w = 1;\n")); err != nil {
				t.Fatal(err)
			}
			pid := pidOf(e)
			sent := slow(e, bound)
			time.Sleep(time.Until(sent.Add(tc.wait)))
			r, err := e.Emit(ctx, "next.ts", []byte("export const n: number = 1;\n"))
			if err != nil || !strings.Contains(r.DTS, "n: number") {
				t.Fatalf("the next request: %v %q", err, r.DTS)
			}
			if replaced := pidOf(e) != pid; replaced != tc.replaced {
				t.Errorf("the process was replaced: %t, want %t", replaced, tc.replaced)
			}
		})
	}
}
