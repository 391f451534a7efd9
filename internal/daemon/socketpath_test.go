package daemon

import "testing"

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
