package main

import (
	"errors"
	"fmt"
	"strings"
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

// A mistyped flag names the command it was given to, as the user typed it,
// and exits as bad input.
func TestMistypedFlagNamesItsCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--frobnicate"}, "(see 'anvil --help')"},
		{[]string{"check", "--frobnicate"}, "(see 'anvil check --help')"},
		{[]string{"serve", "status", "--frobnicate"}, "(see 'anvil serve status --help')"},
	} {
		var stdout, stderr strings.Builder
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitBadInput || !strings.Contains(stderr.String(), "unknown flag: --frobnicate "+tc.want) {
			t.Errorf("anvil %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr.String(), exitBadInput, tc.want)
		}
	}
}
