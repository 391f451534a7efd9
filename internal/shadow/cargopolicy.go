package shadow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/sandbox"
	"github.com/anvil-dev/anvil/internal/servers"
)

// cargo check runs programs the workspace chooses: the build script and
// the procedural macros of every package of its graph (its own and those
// its manifests name), the compiler, wrappers and linkers its
// .cargo/config names and the environment it gives them, and the
// toolchain a rust-toolchain file points at. In a workspace the user does
// not trust, cargo check runs only where it runs none of them: the
// configuration and the toolchain file are read here, the graph is cargo
// metadata's (which builds nothing), over the tree as the change leaves
// it.

// metadataBound bounds cargo metadata: it reads manifests and the
// registry's cached index, offline.
const metadataBound = 30 * time.Second

// cargoAllowed says whether the policy lets cargo check run over the
// workspace with changes; the error says what it would run and how to
// trust the workspace.
func (v *Validator) cargoAllowed(ctx context.Context, snap *Snapshot, changes []*changeset.Change) error {
	p := v.opts.Policy
	if p == nil {
		return errors.New("no execution policy to run cargo check with")
	}
	if p.Trusted() {
		return nil
	}
	untrusted := func(what string) error {
		return p.Program(execpolicy.Origin{What: "the code cargo check would run (" + what + ")", Project: true})
	}
	read := func(rel string) ([]byte, bool) {
		for _, c := range changes {
			if c.Path == rel {
				return c.Content, !c.Delete
			}
		}
		data, err := os.ReadFile(v.root.Abs(rel))
		return data, err == nil
	}
	for _, rel := range []string{".cargo/config.toml", ".cargo/config"} {
		if data, ok := read(rel); ok {
			if why := cargoConfigPrograms(data); why != "" {
				return untrusted(fmt.Sprintf("%s that the workspace's %s names", why, rel))
			}
		}
	}
	for _, rel := range []string{"rust-toolchain.toml", "rust-toolchain"} {
		if data, ok := read(rel); ok && toolchainPath(data) {
			return untrusted("the toolchain under the path " + rel + " names")
		}
	}
	runs, err := v.cargoMeta.programs(ctx, snap.Fingerprint, changes, func(ctx context.Context) ([]string, error) {
		return v.cargoPrograms(ctx, changes)
	})
	if err != nil {
		return fmt.Errorf("cargo metadata could not say what cargo check would run: %w", err)
	}
	if len(runs) > 0 {
		return untrusted("the build scripts and procedural macros of " + strings.Join(runs, ", "))
	}
	return nil
}

// cargoConfigPrograms returns what a .cargo/config names that cargo
// would run or load ("" when nothing): a compiler, wrapper or linker, a
// runner, a credential provider, or an environment for the programs it
// starts (LD_PRELOAD is one). A file that does not parse is not
// understood, so it names something.
func cargoConfigPrograms(data []byte) string {
	var cfg map[string]any
	if err := toml.Unmarshal(data, &cfg); err != nil {
		return "whatever the configuration says (it does not parse)"
	}
	table := func(v any) map[string]any { t, _ := v.(map[string]any); return t }
	build := table(cfg["build"])
	for _, k := range []string{"rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc"} {
		if _, ok := build[k]; ok {
			return "the build." + k
		}
	}
	if len(table(cfg["env"])) > 0 {
		return "the programs it starts with the environment"
	}
	if _, ok := table(cfg["host"])["linker"]; ok {
		return "the host.linker"
	}
	for triple, t := range table(cfg["target"]) {
		for _, k := range []string{"linker", "runner"} {
			if _, ok := table(t)[k]; ok {
				return "the target." + triple + "." + k
			}
		}
	}
	if strings.Contains(string(data), "credential-provider") {
		return "the credential provider"
	}
	return ""
}

// toolchainPath reports whether a rust-toolchain file points rustup at a
// toolchain by path (rustup then runs that directory's cargo and rustc).
func toolchainPath(data []byte) bool {
	var f struct {
		Toolchain map[string]any `toml:"toolchain"`
	}
	if err := toml.Unmarshal(data, &f); err != nil {
		// The legacy form is a bare toolchain name; anything else is not
		// understood.
		name := strings.TrimSpace(string(data))
		return strings.ContainsAny(name, "/\\\n\"'= ")
	}
	_, ok := f.Toolchain["path"]
	return ok
}

// cargoPrograms asks cargo metadata, in a sealed shadow tree holding the
// changes, which packages of the graph have a build script or are
// procedural macros.
func (v *Validator) cargoPrograms(ctx context.Context, changes []*changeset.Change) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, metadataBound)
	defer cancel()
	var sc []sandbox.Change
	for _, c := range changes {
		sc = append(sc, sandbox.Change{Path: c.Path, Content: c.Content, Delete: c.Delete})
	}
	script := `out=$(cargo metadata --format-version 1 --offline 2>/tmp/cargo-metadata.err) || { cat /tmp/cargo-metadata.err; exit 1; }; printf '%s' "$out"`
	res, err := sandbox.Run(ctx, v.opts.Policy.Sealed(sandbox.Spec{Root: v.root.Dir(), Changes: sc, Argv: []string{"/bin/sh", "-c", script},
		Env: cargoEnv(v.opts.Policy.Getenv), OutputLimit: 64 << 20}))
	switch {
	case err != nil:
		return nil, err
	case res.Killed && ctx.Err() != nil:
		return nil, fmt.Errorf("not done within %s", metadataBound)
	case res.Killed || res.Truncated:
		return nil, errors.New("killed, or its output passed 64 MiB")
	case res.ExitCode != 0:
		return nil, fmt.Errorf("exit status %d: %s", res.ExitCode, strings.TrimSpace(string(res.Output)))
	}
	return metadataPrograms(res.Output)
}

// metadataPrograms reads cargo metadata's packages: the names of those
// with a build script (a custom-build target) or a procedural macro.
func metadataPrograms(out []byte) ([]string, error) {
	var meta struct {
		Packages []struct {
			Name    string `json:"name"`
			Targets []struct {
				Kind []string `json:"kind"`
			} `json:"targets"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(out, &meta); err != nil {
		return nil, fmt.Errorf("its output does not read: %w", err)
	}
	var runs []string
	for _, p := range meta.Packages {
		for _, t := range p.Targets {
			if slices.Contains(t.Kind, "custom-build") || slices.Contains(t.Kind, "proc-macro") {
				runs = append(runs, p.Name)
				break
			}
		}
	}
	slices.Sort(runs)
	return slices.Compact(runs), nil
}

// shapesGraph reports whether a change can change cargo's graph or what
// it runs: a manifest, the lock file, a build script, cargo's or rustup's
// configuration.
func shapesGraph(rel string) bool {
	switch path.Base(rel) {
	case "Cargo.toml", "Cargo.lock", "build.rs":
		return true
	}
	return servers.ConfigLanguage(rel) == "rust"
}

// cargoMetaCache keeps what cargo metadata said of the latest disk state;
// a change that can change the graph is asked about on its own. One run
// answers every check of a state: a check that finds it under way waits
// for it within its own context, not behind a lock.
type cargoMetaCache struct {
	mu   sync.Mutex
	last *cargoMeta // the latest disk state's answer, done or under way
}

// cargoMeta is one state's answer; runs and err are set before done
// closes.
type cargoMeta struct {
	state string
	done  chan struct{}
	runs  []string
	err   error
}

func (c *cargoMetaCache) programs(ctx context.Context, state string, changes []*changeset.Change, ask func(context.Context) ([]string, error)) ([]string, error) {
	if state == "" || slices.ContainsFunc(changes, func(c *changeset.Change) bool { return shapesGraph(c.Path) }) {
		return ask(ctx)
	}
	for {
		c.mu.Lock()
		m := c.last
		if m == nil || m.state != state {
			m = &cargoMeta{state: state, done: make(chan struct{})}
			c.last = m
			c.mu.Unlock()
			m.runs, m.err = ask(ctx)
			if m.err != nil {
				// A failed run (its caller's bound, a broken manifest) is
				// not kept: the next check asks again.
				c.mu.Lock()
				if c.last == m {
					c.last = nil
				}
				c.mu.Unlock()
			}
			close(m.done)
			return m.runs, m.err
		}
		c.mu.Unlock()
		select {
		case <-m.done:
			if m.err != nil {
				continue // its caller's run failed: this one asks itself
			}
			return m.runs, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for cargo metadata of this disk state: %w", ctx.Err())
		}
	}
}
