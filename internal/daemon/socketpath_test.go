package daemon

import (
	"os"
	"path/filepath"
	"testing"
)

// Clients whose answers would differ never share a daemon: a daemon holds
// servers started with its own environment, so a client with other build
// tags, another Python environment or another tools directory must reach
// another one. Settings that resolve to the same place share it.
func TestSocketPathFollowsWhatVerdictsDependOn(t *testing.T) {
	base := map[string]string{"HOME": "/home/u", "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": "/run/user/1000"}
	with := func(kv ...string) func(string) string {
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return func(k string) string { return env[k] }
	}
	cases := []struct {
		name string
		env  func(string) string
		same bool
	}{
		{"build tags", with("GOFLAGS", "-tags=integration"), false},
		{"target platform", with("GOOS", "windows"), false},
		{"a virtualenv", with("VIRTUAL_ENV", "/home/u/proj/.venv"), false},
		{"Node's module path", with("NODE_PATH", "/opt/lib/node"), false},
		{"another PATH", with("PATH", "/opt/node22/bin:/usr/bin:/bin"), false},
		{"another state directory", with("ANVIL_STATE_DIR", "/home/u/elsewhere"), false},
		{"another tools directory", with("ANVIL_TOOLS_DIR", "/opt/anvil-tools"), false},
		{"the state directory spelled out as its default", with("XDG_STATE_HOME", "/home/u/.local/state"), true},
		{"a variable no answer depends on", with("EDITOR", "vim", "TERM", "xterm"), true},
	}
	want := SocketPath(with())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SocketPath(c.env)
			if (got == want) != c.same {
				t.Fatalf("socket %s, without the setting %s: want same=%v", got, want, c.same)
			}
		})
	}
}

// The variables the user's [run] env passes to the run stage decide its
// verdicts: a client with another value reaches another daemon.
func TestSocketPathFollowsTheRunEnv(t *testing.T) {
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "anvil"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "anvil", "config.toml"), []byte("[run]\nenv = [\"DATABASE_URL\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(db string) func(string) string {
		m := map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": cfg, "XDG_RUNTIME_DIR": "/run/user/1000", "DATABASE_URL": db}
		return func(k string) string { return m[k] }
	}
	if SocketPath(env("postgres://a")) == SocketPath(env("postgres://b")) {
		t.Fatal("two values of a [run] env variable share a daemon")
	}
	if SocketPath(env("postgres://a")) != SocketPath(env("postgres://a")) {
		t.Fatal("the same environment reaches two daemons")
	}
}
