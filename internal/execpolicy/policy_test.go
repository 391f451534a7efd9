package execpolicy

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestProgram(t *testing.T) {
	root := testfs.Tree(t, map[string]string{"node_modules/.bin/gopls": "#!/bin/sh\n", "link": "->/usr/bin/gcc"})
	outside := testfs.Tree(t, map[string]string{"bin/gopls": "#!/bin/sh\n", "into": "->" + filepath.Join(root, "node_modules/.bin/gopls")})
	tests := []struct {
		name    string
		origin  Origin
		trusted bool
		ok      bool
	}{
		{"Anvil's or the user's program", Origin{What: "gopls", Path: filepath.Join(outside, "bin/gopls")}, false, true},
		{"the workspace's program, untrusted", Origin{What: "gopls", Path: filepath.Join(root, "node_modules/.bin/gopls")}, false, false},
		{"the workspace's program, trusted", Origin{What: "gopls", Path: filepath.Join(root, "node_modules/.bin/gopls")}, true, true},
		{"a link into the workspace, untrusted", Origin{What: "gopls", Path: filepath.Join(outside, "into")}, false, false},
		{"a link of the workspace's out of it, untrusted", Origin{What: "cc", Path: filepath.Join(root, "link")}, false, false},
		{"named by a workspace file, untrusted", Origin{What: "-wrapper", Project: true}, false, false},
		{"named by a workspace file, trusted", Origin{What: "-wrapper", Project: true}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Options{Root: root, Trusted: tt.trusted})
			err := p.Program(tt.origin)
			if (err == nil) != tt.ok {
				t.Fatalf("Program = %v, want ok=%v", err, tt.ok)
			}
			var u *UntrustedError
			if err != nil && (!errors.As(err, &u) || !strings.Contains(err.Error(), "anvil trust "+root)) {
				t.Errorf("the refusal does not say how to trust: %v", err)
			}
		})
	}
}

// The environment of a program on the host keeps what locates the
// toolchains and the host's own temporary directory, never the keys,
// tokens and sockets of Anvil's environment; a sealed command gets the
// same names, with the shadow tree's /tmp.
func TestEnv(t *testing.T) {
	environ := []string{"PATH=/usr/bin", "HOME=/home/u", "GOPATH=/home/u/go", "TMPDIR=/var/tmp/u", "MY_SETTING=x",
		"ANTHROPIC_API_KEY=sk-ant", "OPENAI_API_KEY=sk", "GITHUB_TOKEN=ghp", "SSH_AUTH_SOCK=/run/ssh", "DBUS_SESSION_BUS_ADDRESS=unix:x", "ANVIL_TEST_SECRET=s"}
	for _, trusted := range []bool{false, true} {
		p := New(Options{Root: t.TempDir(), Trusted: trusted, Environ: environ, EnvAllow: []string{"MY_SETTING"}})
		host := p.Env("EXTRA=1")
		sealed := p.Sealed(sandbox.Spec{}).Seal.Env
		for _, env := range [][]string{host, sealed} {
			for _, kv := range env {
				if strings.Contains(kv, "KEY") || strings.Contains(kv, "TOKEN") || strings.Contains(kv, "SOCK") || strings.Contains(kv, "DBUS") || strings.Contains(kv, "SECRET") {
					t.Errorf("trusted=%v: %s let through", trusted, kv)
				}
			}
			for _, want := range []string{"PATH=/usr/bin", "HOME=/home/u", "GOPATH=/home/u/go", "MY_SETTING=x"} {
				if !slices.Contains(env, want) {
					t.Errorf("trusted=%v: %s missing from %v", trusted, want, env)
				}
			}
			if got := slices.Contains(env, "GOTOOLCHAIN=local"); got == trusted {
				t.Errorf("trusted=%v: GOTOOLCHAIN=local %v in %v", trusted, got, env)
			}
		}
		if !slices.Contains(host, "TMPDIR=/var/tmp/u") || !slices.Contains(host, "EXTRA=1") {
			t.Errorf("host env %v", host)
		}
		if !slices.Contains(sealed, "TMPDIR=/tmp") {
			t.Errorf("sealed env %v: TMPDIR is not the shadow tree's /tmp", sealed)
		}
	}
}

func TestEnvironOf(t *testing.T) {
	vars := map[string]string{"PATH": "/usr/bin", "LC_ALL": "C.UTF-8", "MY_SETTING": "x", "ANTHROPIC_API_KEY": "sk"}
	got := EnvironOf(func(k string) string { return vars[k] }, []string{"MY_SETTING"})
	slices.Sort(got)
	if want := []string{"LC_ALL=C.UTF-8", "MY_SETTING=x", "PATH=/usr/bin"}; !slices.Equal(got, want) {
		t.Errorf("EnvironOf = %v, want %v", got, want)
	}
}

// A contained program's home is an allow list: what it is shown lies in
// the home, the workspace and Anvil's tools among it, and the caches it
// writes are made there (gopls': the go command's module cache among
// them where the home has none yet); a workspace that holds the home, or no home,
// leaves nothing to cover.
func TestContainmentShowsOfTheHomeOnlyWhatIsNeeded(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "src", "proj")
	tools := filepath.Join(home, ".local", "share", "anvil", "tools")
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=" + filepath.Join(home, ".local", "bin") + ":" + filepath.Dir(goCmd) + ":/usr/bin:/bin", "HOME=" + home, "TMPDIR=/var/tmp", "GOCACHE=" + filepath.Join(home, "gocache")}
	p := New(Options{Root: ws, Environ: environ, Helper: "/usr/bin/anvil", ToolsDir: tools})
	c := p.Containment()
	if c.Home != home {
		t.Fatalf("home %q, want %q", c.Home, home)
	}
	for _, want := range []string{ws, tools} {
		if !slices.Contains(c.Shown, want) {
			t.Errorf("%s not shown: %v", want, c.Shown)
		}
	}
	if !slices.Equal(c.ReadOnly, []string{ws}) {
		t.Errorf("read-only %v, want the workspace", c.ReadOnly)
	}
	if len(c.Caches) != 0 {
		t.Errorf("a program that writes no cache writes %v", c.Caches)
	}
	goCaches := p.Containment(GoCaches).Caches
	if !slices.Contains(goCaches, filepath.Join(home, "gocache")) || !slices.Contains(goCaches, filepath.Join(home, ".cache", "gopls")) || !slices.Contains(goCaches, filepath.Join(home, "go", "pkg", "mod")) {
		t.Errorf("gopls' caches %v", goCaches)
	}
	for _, p := range append(slices.Clone(c.Shown), c.Caches...) {
		if p == home || !strings.HasPrefix(p, home+"/") {
			t.Errorf("%s shown: not a place inside the home", p)
		}
	}
	// A workspace holding the home: nothing to cover, and gopls' caches
	// stay writable inside the read-only workspace.
	holding := New(Options{Root: filepath.Dir(home), Environ: environ, Helper: "/usr/bin/anvil"}).Containment(GoCaches)
	if !slices.Contains(holding.Caches, filepath.Join(home, "gocache")) || !slices.Equal(holding.ReadOnly, []string{filepath.Dir(home)}) {
		t.Errorf("a workspace holding the home: caches %v, read-only %v", holding.Caches, holding.ReadOnly)
	}
	for name, opts := range map[string]Options{
		"a workspace holding the home": {Root: filepath.Dir(home), Environ: environ, Helper: "/usr/bin/anvil"},
		"no home":                      {Root: ws, Environ: []string{"PATH=/usr/bin"}, Helper: "/usr/bin/anvil"},
		"a relative home":              {Root: ws, Environ: []string{"HOME=home"}, Helper: "/usr/bin/anvil"},
	} {
		if c := New(opts).Containment(); c.Home != "" {
			t.Errorf("%s: home %q covered", name, c.Home)
		}
	}
}

// A repository's own programs for git (hooks, filters) run only in a
// trusted workspace, and then without the places no program may see.
func TestRepositoryContainment(t *testing.T) {
	hidden := []string{"/home/u/.ssh", "/home/u/.config/anvil"}
	for _, tc := range []struct {
		name    string
		opts    Options
		contain bool
	}{
		{"untrusted: none of them runs", Options{Root: "/w", Hidden: hidden, Helper: "/usr/bin/anvil"}, false},
		{"trusted", Options{Root: "/w", Trusted: true, Hidden: hidden, Helper: "/usr/bin/anvil"}, true},
		{"trusted, no helper", Options{Root: "/w", Trusted: true, Hidden: hidden}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.opts).RepositoryContainment()
			if (c != nil) != tc.contain {
				t.Fatalf("containment %+v, want one: %v", c, tc.contain)
			}
			if c == nil {
				return
			}
			for _, h := range hidden {
				if !slices.Contains(c.Hidden, h) {
					t.Errorf("%s not hidden: %v", h, c.Hidden)
				}
			}
			if c.Home != "" {
				t.Errorf("the home is covered (%q): a hook keeps its state there", c.Home)
			}
		})
	}
}
