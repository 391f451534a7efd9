package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/anvil-dev/anvil/internal/config"
)

// checkConfig reads each config file on its own, so that a broken one is
// reported with its path while the other still counts, and returns the
// merged config of the files that parse for the remaining checks.
func checkConfig(dir string, getenv func(string) string) ([]Check, config.Config) {
	paths := config.DefaultPaths(dir, getenv)
	var checks []Check
	var layers config.Layers
	for _, f := range []struct {
		name, path, flag string
		into             *config.Config
	}{
		{"user file", paths.User, " --user", &layers.User},
		{"project file", paths.Project, "", &layers.Project},
	} {
		if f.path == "" {
			continue // no HOME and no XDG_CONFIG_HOME: there is no user file
		}
		c := Check{Group: GroupConfig, Name: f.name}
		cfg, err := config.ReadFile(f.path)
		switch {
		case err != nil:
			c.Status, c.Detail = Fail, err.Error()
			c.Fix = fmt.Sprintf("correct %s (TOML; see 'anvil config --help' for the keys) or move it aside", f.path)
		case !exists(f.path):
			c.Detail = f.path + " (none)"
		default:
			*f.into = cfg
			c.Detail = f.path
			if errs := config.Check(cfg); len(errs) > 0 {
				c.Status, c.Detail = Fail, fmt.Sprintf("%s: %v", f.path, errors.Join(errs...))
				c.Fix = "set valid values with 'anvil config set KEY VALUE" + f.flag + "'"
			}
		}
		checks = append(checks, c)
	}
	return checks, layers.Merged()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
