package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/anvil-dev/anvil/internal/daemon"
	"github.com/anvil-dev/anvil/internal/service"
)

// A commit or an undo whose daemon went away mid-way has an exit status
// of its own (4: it may or may not have been made), not "bad input".
func TestServiceErrorExitCodes(t *testing.T) {
	lost := &daemon.OutcomeUnknownError{Method: "anvil/commit", Err: errors.New("connection reset")}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{&service.InputError{Msg: "a path outside the workspace"}, exitBadInput},
		{lost, exitOutcomeUnknown},
		{fmt.Errorf("committing: %w", lost), exitOutcomeUnknown},
	} {
		var ee *exitError
		if err := serviceError(tc.err); !errors.As(err, &ee) || ee.code != tc.want {
			t.Errorf("%v: exit %v, want %d", tc.err, err, tc.want)
		}
	}
}
