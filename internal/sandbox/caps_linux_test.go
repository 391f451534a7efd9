package sandbox

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// The command holds exactly the kept capabilities (no CAP_SYS_ADMIN, so
// it cannot unmount its shadow tree), every time: the helper drops them
// on the thread that execs the command. Runs at once, so the helper's
// goroutine has reasons to change threads; before the helper locked its
// thread, about one run in seven kept every capability.
func TestCommandKeepsOnlyTheKeptCapabilities(t *testing.T) {
	var want uint64
	for c := range keptCaps {
		want |= 1 << c
	}
	dir := testfs.Tree(t, tree)
	const runs, parallel = 24, 6
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	errs := make(chan error, runs)
	for range runs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := Run(context.Background(), Spec{Seal: hostSeal(), Root: dir, Env: env(), Argv: []string{"grep", "^Cap", "/proc/self/status"}})
			if err != nil {
				errs <- err
				return
			}
			for _, line := range strings.Split(strings.TrimSpace(string(res.Output)), "\n") {
				name, hex, _ := strings.Cut(line, ":")
				v, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
				if err != nil {
					errs <- fmt.Errorf("%q: %v", line, err)
					return
				}
				if (name == "CapPrm" || name == "CapEff" || name == "CapBnd") && v != want {
					errs <- fmt.Errorf("%s %016x, want %016x:\n%s", name, v, want, res.Output)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
