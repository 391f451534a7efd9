package sandbox

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/envlist"
)

// A command sees the host's system directories and nothing else of it
// but what it is shown: no home, no /var, not the
// host's /tmp. The toolchains and their caches are shown wherever they
// are, read-only, as the toolchains themselves say where they keep them
// (never a layout assumed): go env's GOROOT, GOPATH, GOMODCACHE and
// GOENV; rustup's and cargo's homes; npm's cache and pnpm's store; the
// virtual environment's and the interpreter's prefixes; git's own
// configuration. The programs on PATH are shown by the sandbox itself.

// toolchainTimeout bounds each question asked of a toolchain.
const toolchainTimeout = 20 * time.Second

// ToolchainPlaces is where the toolchains say they live.
type ToolchainPlaces struct {
	// Visible are what commands need shown of the host.
	Visible []string
	// ModuleCache is the go command's module cache (go env GOMODCACHE),
	// which the go command fills as it loads a workspace (gopls does):
	// a contained server writes it, and makes it when it is missing. ""
	// without go.
	ModuleCache string
}

// Toolchains returns what commands run with env in the workspace root
// need shown of the host, asking the toolchains (each question bounded).
func Toolchains(ctx context.Context, env []string, root string) ToolchainPlaces {
	home := envlist.Value(env, "HOME")
	var places ToolchainPlaces
	var out []string
	add := func(paths ...string) {
		for _, p := range paths {
			if p == "" || !filepath.IsAbs(p) {
				continue
			}
			p = filepath.Clean(p)
			// Never the home or what holds it: only what lies in it.
			if home != "" && (p == home || within(home, p)) || within(p, root) || !ShowsAsVisible(p) {
				continue
			}
			out = append(out, p)
		}
	}
	if _, err := LookPath("go", env); err == nil {
		// GOTOOLCHAIN=local: the answer of the go command on PATH, never
		// a toolchain it would fetch; in "/", so no project's go.mod or
		// go.work is read.
		if b, err := ask(ctx, env, []string{"GOTOOLCHAIN=local"}, "go", "env", "-json", "GOROOT", "GOPATH", "GOMODCACHE", "GOENV"); err == nil {
			var v struct{ GOROOT, GOPATH, GOMODCACHE, GOENV string }
			if json.Unmarshal(b, &v) == nil {
				add(v.GOROOT, v.GOMODCACHE, v.GOENV)
				add(filepath.SplitList(v.GOPATH)...)
				if filepath.IsAbs(v.GOMODCACHE) {
					places.ModuleCache = filepath.Clean(v.GOMODCACHE)
				}
			}
		}
	}
	rustup, cargo := envlist.Value(env, "RUSTUP_HOME"), envlist.Value(env, "CARGO_HOME")
	if home != "" {
		rustup = cmp.Or(rustup, filepath.Join(home, ".rustup"))
		cargo = cmp.Or(cargo, filepath.Join(home, ".cargo"))
	}
	add(rustup, cargo)
	if _, err := LookPath("npm", env); err == nil {
		if b, err := ask(ctx, env, nil, "npm", "config", "get", "cache"); err == nil {
			add(strings.TrimSpace(string(b)))
		}
	}
	if _, err := LookPath("pnpm", env); err == nil {
		if b, err := ask(ctx, env, nil, "pnpm", "store", "path"); err == nil {
			add(strings.TrimSpace(string(b)))
		}
	}
	add(envlist.Value(env, "VIRTUAL_ENV"), envlist.Value(env, "CONDA_PREFIX"), envlist.Value(env, "JAVA_HOME"), envlist.Value(env, "NVM_DIR"))
	add(filepath.SplitList(envlist.Value(env, "NODE_PATH"))...)
	add(filepath.SplitList(envlist.Value(env, "PYTHONPATH"))...)
	// A virtual environment's interpreter links to the one it was made
	// from (pyenv's, a home's): its installation is needed too. The
	// workspace's link and pyvenv.cfg only say where to look: what is
	// shown is a Python installation found there, never a directory of
	// the home that the repository names.
	for _, venv := range []string{".venv", "venv"} {
		for _, py := range []string{"python", "python3"} {
			if t, err := filepath.EvalSymlinks(filepath.Join(root, venv, "bin", py)); err == nil {
				add(pythonInstallation(Installation(filepath.Dir(t), home)))
			}
		}
		if h := venvHome(filepath.Join(root, venv, "pyvenv.cfg")); h != "" {
			add(pythonInstallation(Installation(h, home)))
		}
	}
	if home != "" {
		// git's identity and settings, for tests that commit; never its
		// credentials (hidden by name, see credentialPaths).
		add(filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"), filepath.Join(home, ".config", "git", "ignore"))
	}
	places.Visible = out
	return places
}

// ask runs a toolchain's command in "/" with env (and extra) and returns
// its standard output.
func ask(ctx context.Context, env, extra []string, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, toolchainTimeout)
	defer cancel()
	path, err := LookPath(argv[0], env)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = envlist.With(append([]string{}, env...), extra...)
	cmd.Dir = "/"
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	return out.Bytes(), err
}

// pythonInstallation returns dir when it holds a Python installation (an
// interpreter in bin and its standard library in lib/python3.*, or dir
// is that bin), "" otherwise.
func pythonInstallation(dir string) string {
	prefix := dir
	if filepath.Base(dir) == "bin" {
		prefix = filepath.Dir(dir)
	}
	interpreters, _ := filepath.Glob(filepath.Join(prefix, "bin", "python3*"))
	libs, _ := filepath.Glob(filepath.Join(prefix, "lib", "python3.*", "os.py"))
	for _, py := range interpreters {
		if info, err := os.Stat(py); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 && len(libs) > 0 {
			return dir
		}
	}
	return ""
}

// venvHome reads the "home" (the base interpreter's directory) of a
// virtual environment's pyvenv.cfg; "" without one.
func venvHome(cfg string) string {
	f, err := os.Open(cfg)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "home" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
