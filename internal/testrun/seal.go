package testrun

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/state"
)

// What the stage's commands see. The shadow tree (internal/sandbox) makes
// everything outside the workspace read-only and gives them a private
// /tmp and /proc; the stage decides, in this file, what they see besides:
// an environment of allow-listed names, and no view of Anvil's own state
// and configuration or of the usual credential stores.

// envDigest keys the baselines by the commands' environment: the same
// tree under other build tags or another interpreter is another baseline.
func envDigest(env []string) string {
	sorted := slices.Clone(env)
	slices.Sort(sorted)
	sum := sha256.Sum256([]byte(strings.Join(sorted, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// credentialPaths are where the usual tools keep secrets and histories,
// under the home. The commands see no home but the toolchains' paths in
// it (toolchains.go); these stay hidden even inside one of those (a
// cargo home's credentials, a ~/.config shown for git).
var credentialPaths = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".yarnrc.yml",
	".config/gcloud", ".config/gh", ".config/hub", ".config/git/credentials", ".config/op", ".config/doctl", ".config/heroku",
	".cargo/credentials", ".cargo/credentials.toml", ".local/share/keyrings", ".password-store", ".vault-token", ".terraform.d",
	".claude", ".claude.json", ".codex", ".gemini", ".config/anthropic", ".config/openai", ".config/github-copilot",
	".bash_history", ".zsh_history", ".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".lesshst", ".local/share/fish",
}

// Hidden returns what the commands must not see: Anvil's state (the
// journal, the locks) and configuration (which names the servers Anvil
// starts), the daemon's socket directory when moved out of the runtime
// directory (which the shadow tree always hides), and the credential
// stores of the home. getenv reads the environment Anvil started with.
func Hidden(getenv func(string) string) []string {
	out := []string{state.Dir(getenv)}
	if p := config.DefaultPaths("", getenv).User; p != "" {
		out = append(out, filepath.Dir(p))
	}
	out = append(out, state.DaemonDir(getenv))
	if home := getenv("HOME"); filepath.IsAbs(home) {
		for _, p := range credentialPaths {
			out = append(out, filepath.Join(home, p))
		}
	}
	for i, p := range out {
		out[i] = filepath.Clean(p)
	}
	return out
}

// LimitsOf is the bounds [run] sets (memory, tmp_size, processes,
// file_size; "off" is no bound), for [Options.Limits].
func LimitsOf(r config.RunConfig) sandbox.Limits {
	return sandbox.Limits{Memory: int64(r.Memory), Tmp: int64(r.TmpSize), Processes: r.Processes, FileSize: int64(r.FileSize)}
}
