package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/detect"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// checkServers finds the server of each language (the config's languages,
// else the detected ones), starts each server once, in parallel, as a run
// would, and shuts them all down.
func checkServers(ctx context.Context, root *workspace.Root, cfg config.Config, opts Options, policy *execpolicy.Policy) []Check {
	langs, from, err := projectLanguages(ctx, root, cfg)
	if err != nil {
		return []Check{{Group: GroupServer, Name: "languages", Status: Warn, Detail: "could not scan the workspace: " + err.Error()}}
	}
	if len(langs) == 0 {
		return []Check{{Group: GroupServer, Name: "languages", Status: Warn,
			Detail: "no source files of a known language found; Anvil validates edits only where a language server runs",
			Fix:    "run doctor in the project's root (-C DIR), or set them with 'anvil config set languages go,typescript'"}}
	}
	toolsDir := servers.DefaultToolsDir(opts.Getenv)
	registry := servers.NewRegistry(servers.RegistryOptions{Overrides: cfg.ServerSpecs(), ToolsDir: toolsDir, LookPath: opts.LookPath,
		TypeScriptEngine: servers.Engine(cfg.TypeScriptEngine), Policy: policy})

	checks := make([]Check, len(langs))
	starts := map[string]*startResult{} // by spec name: each server starts once
	for i, lang := range langs {
		c := Check{Group: GroupServer, Name: lang}
		resolved, err := registry.Resolve(root.Dir(), lang)
		var ns *servers.NoServerError
		switch {
		case errors.As(err, &ns) && len(ns.Tried) == 0:
			c.Status = Warn
			c.Detail = fmt.Sprintf("no language server is configured for %s (%s), so its edits cannot be validated", lang, from)
			c.Fix = ns.Fix
		case errors.As(err, &ns):
			c.Status = Fail
			c.Detail = fmt.Sprintf("no language server found for %s (%s); tried %s", lang, from, strings.Join(ns.Tried, "; "))
			c.Fix = ns.Fix
		case err != nil:
			c.Status, c.Detail = Fail, err.Error()
		default:
			c.Server = &ServerInfo{Spec: resolved.Spec.Name, Path: resolved.Path, Note: resolved.Note}
			if slices.Contains(resolved.Spec.Languages, "typescript") {
				c.Server.Choice = registry.ExplainTypeScript(root.Dir())
				seen := shadow.NativeDisagreements(state.Dir(opts.Getenv), root.Dir())
				for _, config := range slices.Sorted(maps.Keys(seen)) {
					c.Server.Choice += fmt.Sprintf("; TypeScript 7 disagreed with the project's compiler on %s, which its own compiler checks for good (%s)", config, seen[config])
				}
			}
			if starts[c.Server.Spec] == nil {
				starts[c.Server.Spec] = &startResult{language: lang, log: tailBuffer{max: 16 << 10}}
			}
		}
		checks[i] = c
	}

	var wg sync.WaitGroup
	for _, st := range starts {
		wg.Go(func() { st.run(ctx, root.Dir(), registry, opts.ServerTimeout) })
	}
	wg.Wait()

	for i, c := range checks {
		if c.Server == nil {
			continue
		}
		st := starts[c.Server.Spec]
		c.Server.Name, c.Server.Version, c.Server.StartMillis = st.name, st.version, st.elapsed.Milliseconds()
		if st.err != nil {
			c.Status = Fail
			c.Detail = fmt.Sprintf("%s at %s did not start: %v", c.Server.Spec, c.Server.Path, st.err)
			if last := st.log.lastLines(3); last != "" {
				c.Detail += "; its last output: " + last
			}
			c.Fix = fmt.Sprintf("run %s by hand to see why; reinstall with scripts/install-servers.sh", c.Server.Path)
			if errors.Is(st.err, context.DeadlineExceeded) {
				c.Fix = "a large workspace can take long to load: try a longer --timeout; " + c.Fix
			}
		} else {
			c.Detail = fmt.Sprintf("%s %s at %s, ready in %s", orName(st.name, c.Server.Spec), orUnknown(st.version),
				c.Server.Path, st.elapsed.Round(time.Millisecond))
			if c.Server.Choice != "" {
				c.Detail += "; " + c.Server.Choice
			}
			if c.Server.Note != "" {
				c.Status = Warn
				c.Detail += "; " + c.Server.Note
				c.Fix = servers.TSServerFix
			}
		}
		checks[i] = c
	}
	if slices.Contains(langs, "c") || slices.Contains(langs, "cpp") {
		checks = append(checks, checkCompileDatabase(root.Dir()))
	}
	return checks
}

// checkCompileDatabase says whether the workspace has the compile
// database clangd, and the gate's C/C++ check, need: without one a C/C++
// change is unverified.
func checkCompileDatabase(root string) Check {
	c := Check{Group: GroupServer, Name: "compile database"}
	p, err := compiledb.Find(filepath.Join(root, "x.c"))
	if err == nil {
		_, err = compiledb.Load(p)
	}
	switch {
	case compiledb.IsNotFound(err):
		c.Status = Warn
		c.Detail = fmt.Sprintf("no %s or %s at the workspace's root, in a build/ beside it, or above it: C and C++ changes are unverified without one (a database deeper in the tree serves only the files under it)", compiledb.CommandsFile, compiledb.FlagsFile)
		c.Fix = compiledb.Fix
	case err != nil:
		c.Status, c.Detail, c.Fix = Fail, err.Error(), "regenerate it: "+compiledb.Fix
	default:
		c.Status, c.Detail = OK, p
	}
	return c
}

// projectLanguages returns the configured languages, else the detected
// ones, and says which.
func projectLanguages(ctx context.Context, root *workspace.Root, cfg config.Config) ([]string, string, error) {
	if len(cfg.Languages) > 0 {
		return cfg.Languages, "set in the config", nil
	}
	p, err := detect.Scan(ctx, root)
	if err != nil {
		return nil, "", err
	}
	return p.Names(), "detected", nil
}

// startResult is the outcome of starting one server.
type startResult struct {
	language      string // one of the languages it serves here
	log           tailBuffer
	name, version string
	elapsed       time.Duration
	err           error
}

// run starts the server through its own Manager, so that its stderr is
// its own, as the first check of a run would: initialize, then whatever
// the server needs before its answers are complete. Then it shuts it down.
func (st *startResult) run(ctx context.Context, root string, registry *servers.Registry, timeout time.Duration) {
	mgr := servers.NewManager(root, registry, servers.ManagerOptions{Log: &st.log, StartTimeout: timeout})
	defer func() {
		// Shut down even after Ctrl-C, but never hang on a server that
		// ignores the request: Shutdown kills it when the bound passes.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		mgr.Shutdown(sctx)
	}()
	s, err := mgr.ForLanguage(st.language)
	if err != nil {
		st.err = err
		return
	}
	// The server bounds its own start by the Manager's StartTimeout.
	begin := time.Now()
	st.err = s.Start(ctx)
	st.elapsed = time.Since(begin)
	if st.err == nil {
		info := s.Info()
		st.name, st.version = info.Name, info.Version
	}
}

func orName(name, spec string) string {
	if name == "" {
		return spec
	}
	return name
}

func orUnknown(v string) string {
	if v == "" {
		return "(version not reported)"
	}
	return v
}

// tailBuffer keeps the last max bytes the servers wrote to stderr, for
// the detail of a server that fails to start.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// lastLines returns the last n non-empty lines, joined by " | ".
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range bytes.Split(bytes.TrimSpace(t.buf), []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, string(l))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, " | ")
}
