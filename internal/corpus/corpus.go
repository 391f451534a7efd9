// Package corpus fetches real code from the package registries for tests:
// npm packages (TypeScript sources and compilers), Go modules from the
// module proxy, and Python sources from Debian packages. Nothing fetched
// is committed; everything is cached, so CI downloads each version once
// and a second run reads the cache.
//
// The cache (Cache) is $ANVIL_CORPUS_CACHE, else
// $XDG_CACHE_HOME/anvil-corpus, else ~/.cache/anvil-corpus, in the
// environment the test hands it. Each entry is filled under a lock and moved
// into place whole, so test packages running at the same time share it
// safely.
package corpus

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/anvil-dev/anvil/internal/envlist"
)

// fetchTimeout bounds one download and unpack.
const fetchTimeout = 10 * time.Minute

// Cache is the corpus's cache directory and the environment its
// downloads (npm, the go command, apt-get) run with: a test hands it
// the environment it runs in, and the corpus reads none itself.
type Cache struct {
	dir     string
	environ []string
}

// FromEnviron returns the cache the environment names ("KEY=value"
// entries): $ANVIL_CORPUS_CACHE, else $XDG_CACHE_HOME/anvil-corpus, else
// $HOME/.cache/anvil-corpus; with none of them, no cache (every fetch
// fails the test and says so), never a directory relative to wherever
// the test runs.
func FromEnviron(environ []string) Cache {
	get := func(key string) string { return envlist.Value(environ, key) }
	dir := get("ANVIL_CORPUS_CACHE")
	switch {
	case dir != "":
	case filepath.IsAbs(get("XDG_CACHE_HOME")): // a relative one is to be ignored (the XDG base directory spec)
		dir = filepath.Join(get("XDG_CACHE_HOME"), "anvil-corpus")
	case get("HOME") != "":
		dir = filepath.Join(get("HOME"), ".cache", "anvil-corpus")
	}
	return Cache{dir: dir, environ: environ}
}

// Dir returns the corpus cache directory.
func (c Cache) Dir() string { return c.dir }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._@+-]+`)

// entry returns the cache directory for key, filling it with fill (which
// gets an empty directory) the first time. A fetch that fails fails the
// test: the registries are reachable wherever the tests run.
func (c Cache) entry(t testing.TB, kind, key string, fill func(ctx context.Context, dir string) error) string {
	t.Helper()
	if !filepath.IsAbs(c.dir) {
		t.Fatalf("corpus: no cache directory (%q): set ANVIL_CORPUS_CACHE, XDG_CACHE_HOME or HOME to an absolute path", c.dir)
	}
	base := filepath.Join(c.dir, kind)
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	name := unsafeName.ReplaceAllString(key, "_")
	dir := filepath.Join(base, name)
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir
	}
	lock := flock.New(filepath.Join(base, name+".lock"))
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	if _, err := lock.TryLockContext(ctx, 100*time.Millisecond); err != nil {
		t.Fatalf("corpus lock for %s: %v", key, err)
	}
	defer lock.Unlock()
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir // another process filled it while this one waited
	}
	tmp, err := os.MkdirTemp(base, name+".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Logf("corpus: fetching %s %s into %s", kind, key, c.dir)
	if err := fill(ctx, tmp); err != nil {
		t.Fatalf("corpus: fetching %s %s: %v", kind, key, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (c Cache) run(ctx context.Context, dir string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{}, c.environ...) // never nil: nil would inherit the process's
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out))
	}
	return out, nil
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// NPM returns a directory whose node_modules holds the npm packages specs
// ("typescript@5.9.3", "rxjs@7.8.2"), installed together without running
// their install scripts.
func (c Cache) NPM(t testing.TB, specs ...string) string {
	t.Helper()
	return c.entry(t, "npm", strings.Join(specs, "+"), func(ctx context.Context, dir string) error {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"anvil-corpus","private":true}`), 0o644); err != nil {
			return err
		}
		args := append([]string{"install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "--no-save"}, specs...)
		_, err := c.run(ctx, dir, "npm", args...)
		return err
	})
}

// NPMPackage returns the installed directory of one npm package (name as
// in node_modules, version pinned in spec).
func (c Cache) NPMPackage(t testing.TB, spec string) string {
	t.Helper()
	name := spec
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		name = spec[:i]
	}
	return filepath.Join(c.NPM(t, spec), "node_modules", filepath.FromSlash(name))
}

// GoModule returns the source directory of module@version, downloaded
// through the Go module proxy into a module cache of the corpus's own (the
// files are read-only, as in any module cache).
func (c Cache) GoModule(t testing.TB, module, version string) string {
	t.Helper()
	modcache := c.GoModCache()
	dir := c.entry(t, "go", module+"@"+version, func(ctx context.Context, dir string) error {
		cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
		cmd.Dir = dir
		cmd.Env = append(slices.Clone(c.environ), "GOMODCACHE="+modcache, "GOFLAGS=-mod=mod")
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("go mod download %s@%s: %w", module, version, err)
		}
		var info struct{ Dir string }
		if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
			return fmt.Errorf("go mod download %s@%s: no directory in %s", module, version, out)
		}
		return os.WriteFile(filepath.Join(dir, "path"), []byte(info.Dir), 0o644)
	})
	data, err := os.ReadFile(filepath.Join(dir, "path"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// GoModCache is the corpus's module cache: a copied module's
// dependencies are downloaded there (go mod download with GOMODCACHE set
// to it), and its tests find them there offline.
func (c Cache) GoModCache() string { return filepath.Join(c.dir, "gomod") }

// DebianPackage returns a directory holding the files of the Debian
// package pkg (as apt-get download and dpkg -x unpack them), for example
// python3-requests: its sources are under usr/lib/python3/dist-packages.
func (c Cache) DebianPackage(t testing.TB, pkg string) string {
	t.Helper()
	return c.entry(t, "deb", pkg, func(ctx context.Context, dir string) error {
		if _, err := c.run(ctx, dir, "apt-get", "download", pkg); err != nil {
			// The package lists may be missing on a fresh machine.
			if _, uerr := c.run(ctx, dir, "apt-get", "update", "-qq"); uerr != nil {
				return fmt.Errorf("%w; apt-get update: %v", err, uerr)
			}
			if _, err := c.run(ctx, dir, "apt-get", "download", pkg); err != nil {
				return err
			}
		}
		debs, _ := filepath.Glob(filepath.Join(dir, "*.deb"))
		if len(debs) == 0 {
			return fmt.Errorf("apt-get download %s left no .deb", pkg)
		}
		for _, d := range debs {
			if _, err := c.run(ctx, dir, "dpkg", "-x", d, filepath.Join(dir, "root")); err != nil {
				return err
			}
			os.Remove(d)
		}
		return nil
	})
}
