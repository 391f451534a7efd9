package daemon

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/service"
)

// A link outlives the daemon it started with: after 'anvil serve stop',
// after a client of another build replaced the daemon, and after a kill,
// the next check reaches a daemon again and gets its verdict.
// linkedProject is a one-file TypeScript project reached through a Link to
// e's daemon (stopped at the end of the test).
func linkedProject(t *testing.T, e *env) (context.Context, *Link, *Remote) {
	t.Helper()
	t.Cleanup(func() { e.stopDaemon(t) })
	dir := writeProject(t, map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`, "a.ts": "export const a: number = 1;\n"})
	ctx, cancel := untilDeadline(t)
	t.Cleanup(cancel)
	l, err := NewLink(ctx, e.connectOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ws, err := l.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, l, ws
}

func TestLinkOutlivesTheDaemon(t *testing.T) {
	e := newEnv(t)
	ctx, l, ws := linkedProject(t, e)
	check := func(stage string) int {
		t.Helper()
		out, err := ws.Check(ctx, specs(map[string]string{"a.ts": "export const a: number = \"one\";\n"}), service.GateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		if out.Result.Verdict != "rejected" {
			t.Fatalf("%s: %s", stage, out.Result.Summary())
		}
		c, err := l.client(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.PID
	}
	first := check("first check")

	e.stopDaemon(t) // anvil serve stop
	second := check("after the daemon was stopped")
	if second == first {
		t.Fatalf("the same daemon (%d) answered after it was stopped", first)
	}

	// A client of another build replaces the daemon; this link's next
	// call finds that one of the wrong build, which it replaces in turn.
	opts := e.connectOptions("ANVIL_TEST_DAEMON_VERSION=another-build")
	opts.Version = "another-build"
	other, err := Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	waitGone(t, second)
	third := check("after another build replaced the daemon")
	if third == second || third == other.PID {
		t.Fatalf("answered by %d (before %d, the other build %d)", third, second, other.PID)
	}

	if err := syscall.Kill(third, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, third)
	if fourth := check("after the daemon was killed"); fourth == third {
		t.Fatal("a killed daemon answered")
	}
}

// A daemon with a client connected is not idle: an MCP session waiting
// for its model keeps it, and the idle time counts from the last client.
func TestIdleExitWaitsForClients(t *testing.T) {
	e := newEnv(t)
	d := e.serve(t, Options{Idle: 200 * time.Millisecond})
	c := e.dial(t)
	select {
	case <-d.Done():
		t.Fatal("the daemon exited with a client connected")
	case <-time.After(1500 * time.Millisecond):
	}
	c.Close()
	ctx, cancel := untilDeadline(t)
	defer cancel()
	select {
	case <-d.Done():
	case <-ctx.Done():
		t.Fatal("the daemon did not exit once idle with no client")
	}
}

// A daemon a client started, which no client reaches (it lost a start
// race and came up after the winner stopped, or its client went away
// first), exits on its own instead of waiting out its idle time.
func TestUnusedDaemonExits(t *testing.T) {
	e := newEnv(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = e.environ("ANVIL_TEST_DAEMON="+e.socket, "ANVIL_TEST_DAEMON_IDLE=1h")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ctx, cancel := untilDeadline(t)
	defer cancel()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(log.String(), "no client came within 5s; exiting") {
			t.Fatalf("exit %v:\n%s", err, log.String())
		}
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("an unused daemon still runs at the test's deadline:\n%s", log.String())
	}
}

// Warming through the daemon: the daemon's servers answer for the files
// as on disk, and the next check of a change to them reuses that answer.
func TestWarmThroughTheDaemon(t *testing.T) {
	ctx, _, ws := linkedProject(t, newEnv(t))
	if err := ws.Warm(ctx, []string{"a.ts", "../outside.ts"}); err != nil {
		t.Fatalf("Warm: %v", err)
	}
	out, err := ws.Check(ctx, specs(map[string]string{"a.ts": "export const a: number = \"one\";\n"}), service.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Verdict != "rejected" || len(out.Result.Servers) != 1 || out.Result.Servers[0].BaselinesReused != 1 {
		t.Fatalf("check after the warm-up: %s, servers %+v", out.Result.Summary(), out.Result.Servers)
	}
}
