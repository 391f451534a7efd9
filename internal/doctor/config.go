package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/config"
)

// checkConfig reads each config file on its own, so that a broken one is
// reported with its path while the other still counts, and returns the
// merged config of the files that parse for the remaining checks.
func checkConfig(dir string, getenv func(string) string) ([]Check, config.Config) {
	paths := config.DefaultPaths(dir, getenv)
	var checks []Check
	layers := config.Layers{Paths: paths}
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
	if c, ok := ignoredSettings(layers); ok {
		checks = append(checks, c)
	}
	return checks, layers.Merged()
}

// ignoredSettings warns about what the project's file sets that only the
// user's file may, with how to allow it.
func ignoredSettings(l config.Layers) (Check, bool) {
	ignored := l.Ignored()
	if len(ignored) == 0 {
		return Check{}, false
	}
	c := Check{Group: GroupConfig, Name: "project file", Status: Warn,
		Detail: fmt.Sprintf("ignores %s: a repository's file does not decide these for whoever runs Anvil in it", strings.Join(ignored, ", "))}
	fixes := []string{}
	if slices.ContainsFunc(ignored, func(s string) bool { return strings.HasPrefix(s, "servers.") }) {
		fixes = append(fixes, fmt.Sprintf("if you trust the project's language server commands, 'anvil config set --user trusted_projects %s'", strings.Join(append(slices.Clone(l.User.TrustedProjects), filepath.Dir(filepath.Dir(l.Paths.Project))), ",")))
	}
	if slices.ContainsFunc(ignored, func(s string) bool { return !strings.HasPrefix(s, "servers.") }) {
		fixes = append(fixes, "set the others in your user file ("+l.Paths.User+") if you want them")
	}
	c.Fix = strings.Join(fixes, "; ")
	return c, true
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
