package daemon

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/service"
)

// A check writes nothing: it does not wait for the workspace lock another
// client's commit holds (for its run stage, minutes maybe); a commit does,
// and says what it waits for.
func TestCheckDoesNotWaitForACommit(t *testing.T) {
	e := newEnv(t)
	dir := writeProject(t, map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`, "a.ts": "export const a: number = 1;\n"})
	a, err := app.New(app.Options{Dir: dir, Getenv: e.getenv, SessionBase: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	svc := a.Service()
	// Another client's commit, in its run stage, holds the lock.
	lock, err := a.Journal.Lock(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := untilDeadline(t)
	defer cancel()
	out, err := svc.Check(ctx, specs(map[string]string{"a.ts": "export const a: number = \"x\";\n"}), service.GateOptions{})
	if err != nil || out.Result.Verdict != "rejected" {
		t.Fatalf("a check beside a held lock: %v %+v", err, out)
	}
	var mu sync.Mutex
	var said []string
	cctx, ccancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer ccancel()
	progress := func(p service.Progress) {
		mu.Lock()
		said = append(said, p.Message)
		mu.Unlock()
	}
	_, err = svc.Commit(cctx, specs(map[string]string{"a.ts": "export const a: number = 2;\n"}), "m", service.GateOptions{Progress: progress})
	lock.Unlock()
	if err == nil {
		t.Fatal("a commit went through a held lock")
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(said, "\n"), "waiting for another Anvil run committing in this workspace") {
		t.Errorf("the commit's wait was not said: %q", said)
	}
}

// A check that has to wait for a server's turn (another client's check on
// it) says so.
func TestWaitForTurnIsSaid(t *testing.T) {
	e := newEnv(t)
	e.serve(t, Options{})
	c := e.dial(t)
	dir := writeProject(t, map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`, "a.ts": "export const a: number = 1;\n", "b.ts": "import { a } from \"./a\";\nexport const b: number = a;\n"})
	ws, err := c.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Many overlapping checks: some must find the server busy.
	var mu sync.Mutex
	var said []string
	progress := func(p service.Progress) {
		mu.Lock()
		said = append(said, p.Message)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			content := "export const a: number = " + strings.Repeat("1", i+1) + ";\n"
			if _, err := ws.Check(context.Background(), specs(map[string]string{"a.ts": content}), service.GateOptions{Progress: progress}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(said, "\n"), "is busy with another check or query; waiting for its turn") {
		t.Errorf("no wait was said: %q", said)
	}
}
