package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A session with no model provider configured (a first run) says what it
// needs: a key (or a local server) to set, and the demo that needs none.
func TestSessionWithoutAProviderSaysWhatItNeeds(t *testing.T) {
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "ANVIL_STATE_DIR": filepath.Join(home, "state"),
		"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "ANVIL_DAEMON": "off",
	} {
		t.Setenv(k, v)
	}
	cmd := &cobra.Command{}
	cmd.SetContext(t.Context())
	err := runInteractive(cmd, runOptions{dir: t.TempDir()})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitBadInput {
		t.Fatalf("runInteractive without a provider: %v", err)
	}
	for _, want := range []string{"a session sends its requests to a model", "export ANTHROPIC_API_KEY=", "OPENAI_BASE_URL", "anvil demo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message does not say %q:\n%v", want, err)
		}
	}
}
