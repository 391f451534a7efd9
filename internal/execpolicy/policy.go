// Package execpolicy is the one decision about what Anvil runs and what it
// runs with. It is built once per workspace by the composition root, from
// the user's configuration and the environment Anvil was started with,
// never from the workspace's files, and every program Anvil starts asks
// it: which program runs ([Policy.Program]: the project's own programs
// and settings only in a workspace the user trusts), with which
// environment ([Policy.Env] for programs outside a shadow tree: language
// servers, git, the declaration emitter), and how a command in a shadow
// tree is sealed ([Policy.Sealed]: the allow-listed environment, the
// credential stores hidden, the toolchains shown as they report
// themselves). Trust widens which programs run, never what a command in
// a shadow tree sees.
package execpolicy

import (
	"cmp"
	"context"
	"fmt"
	"github.com/anvil-dev/anvil/internal/envlist"
	"github.com/anvil-dev/anvil/internal/state"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
	"github.com/anvil-dev/anvil/internal/sandbox"
)

// Options are what the composition root knows: nothing here comes from
// the workspace's files.
type Options struct {
	// Root is the workspace (absolute).
	Root string
	// Trusted: the user's own configuration lists the workspace in
	// trusted_projects.
	Trusted bool
	// Environ is the environment Anvil was started with.
	Environ []string
	// EnvAllow are names of Environ the user's [run] env lets through
	// to the commands in a shadow tree.
	EnvAllow []string
	// Hidden are the places no command Anvil starts may see: Anvil's
	// state and configuration, the home's credential stores.
	Hidden []string
	// Helper is the executable that contains a program Anvil starts on
	// the host (the anvil binary: its main calls the helper first);
	// "" starts those programs uncontained (a test of another package
	// whose binary is no helper).
	Helper string
	// ToolsDir is Anvil's tools directory (its pinned language servers),
	// shown to the programs it contains wherever it lies.
	ToolsDir string
}

// Policy answers for one workspace. It holds no state that changes after
// New but the toolchains' answer, asked once.
type Policy struct {
	opts       Options
	sealedEnv  []string
	toolchains func() sandbox.ToolchainPlaces
}

// toolchainsTimeout bounds asking the toolchains where they live.
const toolchainsTimeout = time.Minute

// New returns the policy for opts.
func New(opts Options) *Policy {
	p := &Policy{opts: opts}
	p.opts.Environ = slices.Clone(opts.Environ)
	p.sealedEnv = p.untrustedEnv(sandbox.SealedEnv(p.opts.Environ, opts.EnvAllow))
	p.toolchains = sync.OnceValue(func() sandbox.ToolchainPlaces {
		ctx, cancel := context.WithTimeout(context.Background(), toolchainsTimeout)
		defer cancel()
		return sandbox.Toolchains(ctx, p.sealedEnv, opts.Root)
	})
	return p
}

// Trusted reports whether the user trusts the workspace.
func (p *Policy) Trusted() bool { return p.opts.Trusted }

// Root is the workspace the policy answers for.
func (p *Policy) Root() string { return p.opts.Root }

// Getenv reads the environment Anvil was started with.
func (p *Policy) Getenv(name string) string { return envlist.Value(p.opts.Environ, name) }

// Env is the environment of a program Anvil starts outside a shadow tree
// (a language server, git, the declaration emitter): the allow-listed
// names and the user's [run] env, with the host's temporary directory
// and caches (those programs run on the host), never the provider keys,
// tokens, agent sockets or the session bus of Anvil's own environment.
// extra are set over it.
func (p *Policy) Env(extra ...string) []string {
	env := sandbox.SealedEnv(p.opts.Environ, append(slices.Clone(p.opts.EnvAllow), hostPlaces...))
	// SealedEnv points these at a shadow tree's private /tmp; on the
	// host they are the host's.
	for _, name := range []string{"TMPDIR", "XDG_CACHE_HOME"} {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
		if v := p.Getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	return envlist.With(p.untrustedEnv(env), extra...)
}

// untrustedEnv pins what an untrusted workspace's files would otherwise
// choose through the environment's defaults: a go.mod's toolchain line
// makes the go command (and gopls through it) fetch and run another Go
// unless GOTOOLCHAIN=local.
func (p *Policy) untrustedEnv(env []string) []string {
	if p.opts.Trusted {
		return env
	}
	return envlist.With(env, "GOTOOLCHAIN=local")
}

// hostPlaces are the variables a program on the host needs besides a
// sealed command's: where its temporary files, caches and settings go.
var hostPlaces = []string{"TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "GOCACHE", "GOENV"}

// Sealed returns spec sealed: whatever runs in a shadow tree (batch tsc
// and pyright, cargo and build scripts, [check], compile commands,
// tests) gets the allow-listed environment, the hidden places kept from
// it and the toolchains shown, trusted workspace or not.
func (p *Policy) Sealed(spec sandbox.Spec) sandbox.Spec {
	spec.Seal = &sandbox.Seal{Env: slices.Clone(p.sealedEnv), Hidden: slices.Clone(p.opts.Hidden), Visible: p.toolchains().Visible, Host: p.HostPlaces()}
	return spec
}

// Cache names places of the home a contained program writes. Each
// program writes only its own: a cache is read by every workspace's
// programs and builds (an entry of the go command's build cache is
// linked into another project's binary as it is), so a trusted
// workspace's own program (its TypeScript's plugins) that could write
// them would reach workspaces the user never trusted.
type Cache int

const (
	// GoCaches: the go command's build and module caches and gopls'
	// own. gopls loads packages through the go command, which downloads
	// what the module cache lacks (with none in a new home, every
	// package load failed) and builds export data into the build cache.
	GoCaches Cache = iota + 1
	// ClangdCache: clangd's own.
	ClangdCache
)

// Containment is how a program Anvil starts on the host (a language
// server, tsserver) is kept from the places no program may see: a
// server follows includes, imports and links wherever the workspace's
// files point, so `include/k.h` linking to `~/.ssh/id_rsa` would put the
// key in a diagnostic. Hidden are the policy's places and the user's
// runtime directories (the daemon's socket, the session bus), except one
// that holds the workspace. The program writes the temporary directory
// and the caches of writes, no other place of the home. nil without a
// helper.
func (p *Policy) Containment(writes ...Cache) *proc.Containment {
	if p.opts.Helper == "" {
		return nil
	}
	// A program Anvil starts never writes the user's tree: a clean
	// commit alone does.
	c := &proc.Containment{Helper: p.opts.Helper, Hidden: p.hiddenPlaces(), ReadOnly: []string{p.opts.Root}}
	home := p.Getenv("HOME")
	if !filepath.IsAbs(home) || filepath.Clean(home) == "/" {
		return c
	}
	home = filepath.Clean(home)
	if within(home, p.opts.Root) {
		// The workspace holds the home: nothing of it to cover, but
		// the caches stay writable inside the read-only workspace.
		c.Caches = p.cachesOf(home, writes)
		return c
	}
	c.Home = home
	c.Shown, c.Caches = p.shownOfHome(home, writes)
	return c
}

// cachesOf are the places the program writes, with the home at home:
// the temporary directory and the caches of writes.
func (p *Policy) cachesOf(home string, writes []Cache) []string {
	cache := cmp.Or(p.Getenv("XDG_CACHE_HOME"), filepath.Join(home, ".cache"))
	caches := []string{p.HostPlaces().TempDir}
	for _, w := range writes {
		switch w {
		case GoCaches:
			caches = append(caches, cmp.Or(p.Getenv("GOCACHE"), filepath.Join(cache, "go-build")), filepath.Join(cache, "gopls"), p.toolchains().ModuleCache)
		case ClangdCache:
			caches = append(caches, filepath.Join(cache, "clangd"))
		}
	}
	return slices.DeleteFunc(caches, func(x string) bool { return !filepath.IsAbs(x) })
}

// RepositoryContainment is how the programs a trusted repository names
// for git run (its hooks, its filters, through git itself): they do not
// see the places no program may (the credential stores, Anvil's state,
// the runtime directories); the rest of the home is as it is, since a
// hook keeps its state there (pre-commit's environments in ~/.cache).
// nil in a workspace the user does not trust (none of them runs), or
// without a helper.
func (p *Policy) RepositoryContainment() *proc.Containment {
	if p.opts.Helper == "" || !p.opts.Trusted {
		return nil
	}
	return &proc.Containment{Helper: p.opts.Helper, Hidden: p.hiddenPlaces()}
}

// hiddenPlaces are the policy's places and the user's runtime
// directories (the daemon's socket, the session bus), except one that
// holds the workspace.
func (p *Policy) hiddenPlaces() []string {
	var hidden []string
	for _, h := range append(slices.Clone(p.opts.Hidden), sandbox.RuntimeDirs(p.Getenv("XDG_RUNTIME_DIR"))...) {
		if !within(p.opts.Root, h) {
			hidden = append(hidden, h)
		}
	}
	return hidden
}

// shownOfHome is what a contained program sees of the home: an allow
// list, since a list of secrets' places is never complete. Shown: the
// workspace, Anvil's tools, the toolchains where they say they live
// (the Go tree and module cache, read-only, rustup's and cargo's homes, npm's cache, the virtual
// environment, git's settings), the installations of the programs on
// PATH and the user's own settings of the servers. Caches, which the
// program writes, each made when missing: the temporary directory and
// the places of writes.
func (p *Policy) shownOfHome(home string, writes []Cache) (shown, caches []string) {
	config := cmp.Or(p.Getenv("XDG_CONFIG_HOME"), filepath.Join(home, ".config"))
	shown = append([]string{p.opts.Root, p.opts.ToolsDir, filepath.Join(config, "clangd")}, p.toolchains().Visible...)
	shown = append(shown, sandbox.PathInstallations(p.Env())...)
	caches = p.cachesOf(home, writes)
	keep := func(ps []string) []string {
		ps = slices.DeleteFunc(ps, func(x string) bool { return !filepath.IsAbs(x) || !within(filepath.Clean(x), home) })
		slices.Sort(ps)
		return slices.Compact(ps)
	}
	// A place that does not exist has nothing to show (a cache is made).
	caches = keep(caches)
	shown = slices.DeleteFunc(keep(shown), func(x string) bool {
		_, err := os.Stat(x)
		return err != nil || slices.Contains(caches, x)
	})
	return shown, caches
}

// HostPlaces are the host's temporary, cache and runtime directories, as
// the environment Anvil started with names them.
func (p *Policy) HostPlaces() sandbox.HostPlaces {
	return sandbox.HostPlaces{
		TempDir:    cmp.Or(p.Getenv("TMPDIR"), "/tmp"),
		PlacesFile: sandbox.PlacesFile(state.CacheDir(p.Getenv)),
		RuntimeDir: p.Getenv("XDG_RUNTIME_DIR"),
	}
}

// SealedEnv is the environment a sealed command gets (for keys that must
// change when it does).
func (p *Policy) SealedEnv() []string { return slices.Clone(p.sealedEnv) }

// Origin is a program Anvil would start, and who named it.
type Origin struct {
	// What names it for the user ("the project's TypeScript 5.4.5").
	What string
	// Path is the program, or the file that makes a program load it (a
	// plugin); "" when a workspace's file names a command by name.
	Path string
	// Project: a file of the workspace chose it (a compile database's
	// compiler, a [check] command, a tsconfig's plugins), wherever the
	// program itself lies.
	Project bool
}

// UntrustedError says a program of the workspace's was not started
// because the user does not trust the workspace, and how to trust it.
type UntrustedError struct {
	What string
	Root string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%s is the project's own and runs only in a trusted workspace; %s", e.What, TrustFix(e.Root))
}

// TrustFix is the one command that trusts the workspace at root.
func TrustFix(root string) string {
	return fmt.Sprintf("to trust it, run: anvil trust %s", shellQuote(root))
}

// Program says whether o may run: Anvil's own programs and the user's
// (on PATH, in the user's configuration) always; the workspace's own (a
// program inside it, or one a file of it names) only when the user
// trusts the workspace.
func (p *Policy) Program(o Origin) error {
	if !o.Project && !p.inWorkspace(o.Path) {
		return nil
	}
	if p.opts.Trusted {
		return nil
	}
	return &UntrustedError{What: o.What, Root: p.opts.Root}
}

// inWorkspace reports whether path lies in the workspace, as given or
// with its links resolved (a link out of the workspace is still the
// workspace's choice, and so is a link into it).
func (p *Policy) inWorkspace(path string) bool {
	if path == "" || p.opts.Root == "" {
		return false
	}
	root := p.opts.Root
	if within(filepath.Clean(path), root) {
		return true
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && within(real, realRoot) {
		return true
	}
	return within(filepath.Clean(path), realRoot)
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// localeNames are the LC_* settings EnvironOf reads (SealedEnv lets
// every LC_* through; a Getenv cannot list them).
var localeNames = []string{"LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LC_MONETARY", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION"}

// EnvironOf is the environment the policy can let through, read with
// getenv: for a front end that has a Getenv and no environment (the
// daemon's workspaces). extra are further names ([run] env).
func EnvironOf(getenv func(string) string, extra []string) []string {
	var env []string
	for _, names := range [][]string{sandbox.AllowedEnvNames(), hostPlaces, localeNames, extra} {
		for _, name := range names {
			if v := getenv(name); v != "" {
				env = envlist.With(env, name+"="+v)
			}
		}
	}
	return env
}
