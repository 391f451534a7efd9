package doctor

import (
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/execpolicy"
)

// checkTrust says whether the workspace is trusted and, when it is not
// and the project's own checking would differ from Anvil's, what differs
// and the one command that trusts it.
func checkTrust(root string, getenv func(string) string) Check {
	c := Check{Group: GroupConfig, Name: "trust", Status: OK}
	layers, err := config.ReadLayers(config.DefaultPaths(root, getenv))
	if err != nil {
		c.Status, c.Detail = Warn, "could not read the config files: "+err.Error()
		return c
	}
	p := execpolicy.New(execpolicy.Options{Root: root, Trusted: layers.Trusted()})
	switch d := p.Differences(layers.Ignored()); {
	case layers.Trusted():
		c.Detail = "trusted: the project's own programs and settings check it (what runs in a shadow tree is sealed all the same)"
	case len(d) == 0:
		c.Detail = "not trusted; nothing of the project's own would check differently"
	default:
		c.Status = Warn
		c.Detail = p.DifferencesNotice(layers.Ignored())
		c.Fix = execpolicy.TrustFix(root)
	}
	return c
}
