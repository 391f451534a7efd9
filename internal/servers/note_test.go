package servers

import (
	"context"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/proc"
)

// running is a backend that is up, contained or not.
type running struct{ contained bool }

func (running) Alive() bool                    { return true }
func (running) Exited() <-chan struct{}        { return nil }
func (running) ExitError() error               { return nil }
func (running) PID() int                       { return 1 }
func (running) Info() lsp.ServerInfo           { return lsp.ServerInfo{} }
func (running) Kill()                          {}
func (running) Shutdown(context.Context) error { return nil }
func (running) OutputBytes() uint64            { return 0 }
func (r running) Contained() bool              { return r.contained }

// A server the policy asked to contain that runs uncontained (a machine
// without namespaces) says so in every verdict's notes, beside the note
// of its choice; contained, or never asked to be, it says nothing more.
func TestNoteSaysUncontained(t *testing.T) {
	for _, tc := range []struct {
		name      string
		contain   *proc.Containment
		contained bool
		want      string
	}{
		{"contained", &proc.Containment{Helper: "anvil"}, true, "Anvil's TypeScript"},
		{"uncontained", &proc.Containment{Helper: "anvil"}, false, "Anvil's TypeScript; tsgo runs uncontained"},
		{"no containment asked", nil, false, "Anvil's TypeScript"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(Resolved{Spec: Spec{Name: "tsgo"}, Note: "Anvil's TypeScript", Contain: tc.contain}, "/w", nil, nil, 0)
			s.client = running{contained: tc.contained}
			got := s.Note()
			if !strings.HasPrefix(got, tc.want) || (tc.want == "Anvil's TypeScript") != (got == tc.want) {
				t.Errorf("Note() = %q, want %q…", got, tc.want)
			}
		})
	}
}
