package app

import (
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/execpolicy"
)

// TrustNotice is the one line telling the user that the project's own
// checking would differ from Anvil's until the workspace at dir is
// trusted, with the command that trusts it; "" when nothing differs or
// the workspace is trusted. getenv locates the user's config file.
func TrustNotice(dir string, getenv func(string) string) string {
	layers, err := config.ReadLayers(config.DefaultPaths(dir, getenv))
	if err != nil {
		return ""
	}
	return execpolicy.New(execpolicy.Options{Root: dir, Trusted: layers.Trusted()}).DifferencesNotice(layers.Ignored())
}
