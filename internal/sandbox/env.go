package sandbox

import (
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/envlist"
)

// What a sealed command inherits of the environment.

// allowedEnv are the variables the commands inherit: what locates
// programs and toolchains and sets the locale. Anything else (provider
// API keys, SSH_AUTH_SOCK, the session bus, tokens, Anvil's own settings)
// stays out unless the user names it in [run] env.
var allowedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "CI",
	"GOFLAGS", "GOOS", "GOARCH", "GOAMD64", "GOARM", "GOARM64", "CGO_ENABLED", "GOWORK", "GOPATH", "GOMODCACHE", "GOROOT",
	"GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GONOPROXY", "GOSUMDB", "GOTOOLCHAIN", "GOEXPERIMENT",
	"CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH",
	"VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONPATH", "PYTHONHOME",
	"NODE_PATH", "NODE_OPTIONS", "NODE_ENV", "NVM_DIR", "NVM_BIN",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS",
	"JAVA_HOME",
}

// SealedEnv filters environ down to the allowed names, extra (the user's
// [run] env) and LC_* locale settings, and points temporary files and
// caches at the private /tmp: the environment of a command that runs the
// project's code (tests, build scripts, a project's own checker).
func SealedEnv(environ, extra []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if slices.Contains(allowedEnv, name) || slices.Contains(extra, name) || strings.HasPrefix(name, "LC_") {
			out = envlist.With(out, kv)
		}
	}
	// Tools that cache under the home (which is read-only) cache in the
	// private /tmp instead.
	return envlist.With(out, "TMPDIR=/tmp", "XDG_CACHE_HOME=/tmp/.cache")
}

// AllowedEnvNames are the names [SealedEnv] lets through by itself (the
// LC_* settings aside).
func AllowedEnvNames() []string { return slices.Clone(allowedEnv) }
